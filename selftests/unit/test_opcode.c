// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The opcode table (kernel/core/opcode.[ch]) against an expectation list
 * written by hand from IBTA vol. 1 table 38 (BTH opcodes) and 9.3 (which
 * extension headers each packet carries), plus message sequences.
 */
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "opcode.h"
#include "hdr.h"

/*
 * hdrs: each extension header as NAME@offset-from-BTH-start.
 * pos: F first, M middle, L last, O only, - none.
 * dir: Q request, S response, - neither.
 */
struct expect {
	u8 op;
	const char *name;
	const char *hdrs;
	unsigned int len;
	char pos;
	char dir;
	const char *kind;
	bool payload;
	const char *qpt;
};

static const struct expect table[] = {
	{ 0x00, "RC_SEND_FIRST", "", 12, 'F', 'Q', "send", 1, "RC" },
	{ 0x01, "RC_SEND_MIDDLE", "", 12, 'M', 'Q', "send", 1, "RC" },
	{ 0x02, "RC_SEND_LAST", "", 12, 'L', 'Q', "send", 1, "RC" },
	{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", "IMMDT@12", 16, 'L', 'Q',
	  "send", 1, "RC" },
	{ 0x04, "RC_SEND_ONLY", "", 12, 'O', 'Q', "send", 1, "RC" },
	{ 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", "IMMDT@12", 16, 'O', 'Q',
	  "send", 1, "RC" },
	{ 0x06, "RC_RDMA_WRITE_FIRST", "RETH@12", 28, 'F', 'Q', "write", 1,
	  "RC" },
	{ 0x07, "RC_RDMA_WRITE_MIDDLE", "", 12, 'M', 'Q', "write", 1, "RC" },
	{ 0x08, "RC_RDMA_WRITE_LAST", "", 12, 'L', 'Q', "write", 1, "RC" },
	{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "IMMDT@12", 16, 'L',
	  'Q', "write", 1, "RC" },
	{ 0x0a, "RC_RDMA_WRITE_ONLY", "RETH@12", 28, 'O', 'Q', "write", 1,
	  "RC" },
	{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RETH@12 IMMDT@28", 32,
	  'O', 'Q', "write", 1, "RC" },
	{ 0x0c, "RC_RDMA_READ_REQUEST", "RETH@12", 28, 'O', 'Q', "read", 0,
	  "RC" },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", "AETH@12", 16, 'F', 'S',
	  "read", 1, "RC" },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", "", 12, 'M', 'S', "read", 1,
	  "RC" },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", "AETH@12", 16, 'L', 'S',
	  "read", 1, "RC" },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", "AETH@12", 16, 'O', 'S',
	  "read", 1, "RC" },
	{ 0x11, "RC_ACKNOWLEDGE", "AETH@12", 16, 'O', 'S', "ack", 0, "RC" },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", "AETH@12 ATMACK@16", 24, 'O', 'S',
	  "atomic_ack", 0, "RC" },
	{ 0x13, "RC_CMP_SWAP", "ATMETH@12", 40, 'O', 'Q', "atomic", 0,
	  "RC" },
	{ 0x14, "RC_FETCH_ADD", "ATMETH@12", 40, 'O', 'Q', "atomic", 0,
	  "RC" },
	{ 0x15, "RC_SEND_LAST_WITH_INVALIDATE", "IETH@12", 16, 'L', 'Q',
	  "send", 1, "RC" },
	{ 0x16, "RC_SEND_ONLY_WITH_INVALIDATE", "IETH@12", 16, 'O', 'Q',
	  "send", 1, "RC" },

	{ 0x20, "UC_SEND_FIRST", "", 12, 'F', 'Q', "send", 1, "UC" },
	{ 0x21, "UC_SEND_MIDDLE", "", 12, 'M', 'Q', "send", 1, "UC" },
	{ 0x22, "UC_SEND_LAST", "", 12, 'L', 'Q', "send", 1, "UC" },
	{ 0x23, "UC_SEND_LAST_WITH_IMMEDIATE", "IMMDT@12", 16, 'L', 'Q',
	  "send", 1, "UC" },
	{ 0x24, "UC_SEND_ONLY", "", 12, 'O', 'Q', "send", 1, "UC" },
	{ 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", "IMMDT@12", 16, 'O', 'Q',
	  "send", 1, "UC" },
	{ 0x26, "UC_RDMA_WRITE_FIRST", "RETH@12", 28, 'F', 'Q', "write", 1,
	  "UC" },
	{ 0x27, "UC_RDMA_WRITE_MIDDLE", "", 12, 'M', 'Q', "write", 1, "UC" },
	{ 0x28, "UC_RDMA_WRITE_LAST", "", 12, 'L', 'Q', "write", 1, "UC" },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "IMMDT@12", 16, 'L',
	  'Q', "write", 1, "UC" },
	{ 0x2a, "UC_RDMA_WRITE_ONLY", "RETH@12", 28, 'O', 'Q', "write", 1,
	  "UC" },
	{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RETH@12 IMMDT@28", 32,
	  'O', 'Q', "write", 1, "UC" },

	{ 0x64, "UD_SEND_ONLY", "DETH@12", 20, 'O', 'Q', "send", 1, "UD" },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", "DETH@12 IMMDT@20", 24, 'O',
	  'Q', "send", 1, "UD" },

	{ 0x81, "CNP", "CNP_RESV@12", 28, '-', '-', "cnp", 0, "any" },
};

static const struct {
	const char *name;
	u32 flag;
	unsigned int size;
} hdr_names[] = {
	{ "RETH", SROCE_OPF_RETH, 16 },
	{ "AETH", SROCE_OPF_AETH, 4 },
	{ "ATMETH", SROCE_OPF_ATMETH, 28 },
	{ "ATMACK", SROCE_OPF_ATMACK, 8 },
	{ "DETH", SROCE_OPF_DETH, 8 },
	{ "IMMDT", SROCE_OPF_IMMDT, 4 },
	{ "IETH", SROCE_OPF_IETH, 4 },
	{ "CNP_RESV", SROCE_OPF_CNP_RESV, 16 },
};

static const struct {
	const char *name;
	u32 flags;
} kinds[] = {
	{ "send", SROCE_OPF_SEND },
	{ "write", SROCE_OPF_WRITE },
	{ "read", SROCE_OPF_READ },
	{ "atomic", SROCE_OPF_ATOMIC },
	{ "ack", SROCE_OPF_ACK },
	{ "atomic_ack", SROCE_OPF_ACK | SROCE_OPF_ATOMIC },
	{ "cnp", SROCE_OPF_CNP },
};

static const struct expect *find(unsigned int op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].op == op)
			return &table[i];
	return NULL;
}

/* Offset of header @name in an expectation's hdrs string, or -1 */
static int exp_offset(const struct expect *e, const char *name)
{
	const char *p = e->hdrs;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == e->hdrs || p[-1] == ' ') && p[n] == '@')
			return atoi(p + n + 1);
		p += n;
	}
	return -1;
}

static void check_entry(const struct expect *e)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(e->op);
	u32 f = sroce_opcode_flags(e->op);
	u32 pos = f & SROCE_OPF_POS_MASK;
	u32 h = f & SROCE_OPF_HDR_MASK;
	unsigned int sum = 12;
	size_t i;

	if (!CHECK(sroce_opcode_valid(e->op)) || !CHECK(info))
		return;
	CHECK(info->flags == f);
	CHECKF(!strcmp(sroce_opcode_name(e->op), e->name), "name %s",
	       sroce_opcode_name(e->op));
	CHECK_EQ(sroce_opcode_hdr_len(e->op), e->len);
	CHECK_EQ(info->hdr_len, e->len);

	for (i = 0; i < ARRAY_SIZE(hdr_names); i++) {
		int want = exp_offset(e, hdr_names[i].name);

		CHECKF(!!(f & hdr_names[i].flag) == (want >= 0), "%s",
		       hdr_names[i].name);
		CHECKF(sroce_opcode_hdr_offset(e->op, hdr_names[i].flag) ==
		       want, "%s offset %d want %d", hdr_names[i].name,
		       sroce_opcode_hdr_offset(e->op, hdr_names[i].flag),
		       want);
		if (want >= 0)
			sum += hdr_names[i].size;
	}
	CHECKF(sum == e->len, "expectation list itself: %u vs %u", sum,
	       e->len);
	CHECK((f & SROCE_OPF_HDR_MASK & ~(SROCE_OPF_RETH | SROCE_OPF_AETH |
	      SROCE_OPF_ATMETH | SROCE_OPF_ATMACK | SROCE_OPF_DETH |
	      SROCE_OPF_IMMDT | SROCE_OPF_IETH | SROCE_OPF_CNP_RESV)) == 0);
	CHECK_EQ(sroce_opcode_hdr_offset(e->op, 0), -1);
	CHECK_EQ(sroce_opcode_hdr_offset(e->op, SROCE_OPF_PAYLOAD), -1);
	if (h & (h - 1))	/* two headers at once is not one header */
		CHECK_EQ(sroce_opcode_hdr_offset(e->op, h), -1);

	CHECK(!!(f & SROCE_OPF_PAYLOAD) == e->payload);
	CHECK(pos == (e->pos == 'F' ? SROCE_OPF_FIRST :
		      e->pos == 'M' ? SROCE_OPF_MIDDLE :
		      e->pos == 'L' ? SROCE_OPF_LAST :
		      e->pos == 'O' ? SROCE_OPF_ONLY : 0u));
	CHECK(sroce_opcode_in_progress(e->op) ==
	      (e->pos == 'F' || e->pos == 'M'));
	CHECK(!!(f & SROCE_OPF_REQ) == (e->dir == 'Q'));
	CHECK(!!(f & SROCE_OPF_RESP) == (e->dir == 'S'));
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, e->kind))
			CHECKF((f & SROCE_OPF_KIND_MASK) == kinds[i].flags,
			       "kind %s", e->kind);

	CHECK(sroce_opcode_valid_for_qpt(e->op, SROCE_QPT_RC) ==
	      (!strcmp(e->qpt, "RC") || !strcmp(e->qpt, "any")));
	CHECK(sroce_opcode_valid_for_qpt(e->op, SROCE_QPT_UC) ==
	      (!strcmp(e->qpt, "UC") || !strcmp(e->qpt, "any")));
	CHECK(sroce_opcode_valid_for_qpt(e->op, SROCE_QPT_UD) ==
	      (!strcmp(e->qpt, "UD") || !strcmp(e->qpt, "any")));
	CHECK(!sroce_opcode_valid_for_qpt(e->op, (enum sroce_qp_type)7));
	CHECK(e->len <= SROCE_MAX_HDR_BYTES);
}

static void test_invalid(void)
{
	unsigned int op;
	size_t i;
	int valid = 0;

	for (op = 0; op < 256; op++) {
		if (find(op)) {
			valid++;
			continue;
		}
		CHECKF(!sroce_opcode_valid(op), "0x%02x", op);
		CHECKF(!sroce_opcode_info(op), "0x%02x", op);
		CHECKF(sroce_opcode_flags(op) == 0, "0x%02x", op);
		CHECKF(sroce_opcode_hdr_len(op) == 0, "0x%02x", op);
		CHECKF(!strcmp(sroce_opcode_name(op), "UNKNOWN"), "0x%02x",
		       op);
		CHECKF(!sroce_opcode_in_progress(op), "0x%02x", op);
		CHECKF(!sroce_opcode_valid_for_qpt(op, SROCE_QPT_RC) &&
		       !sroce_opcode_valid_for_qpt(op, SROCE_QPT_UC) &&
		       !sroce_opcode_valid_for_qpt(op, SROCE_QPT_UD),
		       "0x%02x", op);
		CHECKF(!sroce_opcode_seq_ok(SROCE_OPCODE_NONE, op), "0x%02x",
		       op);
		for (i = 0; i < ARRAY_SIZE(hdr_names); i++)
			CHECKF(sroce_opcode_hdr_offset(op, hdr_names[i].flag) ==
			       -1, "0x%02x", op);
	}
	CHECK_EQ(valid, ARRAY_SIZE(table));
	/* RD, newer RC (FLUSH 0x1c, ATOMIC WRITE 0x1d), UD 0x60, vendor */
	CHECK(!sroce_opcode_valid(0x40) && !sroce_opcode_valid(0x44));
	CHECK(!sroce_opcode_valid(0x17) && !sroce_opcode_valid(0x1c));
	CHECK(!sroce_opcode_valid(0x1d) && !sroce_opcode_valid(0x2c));
	CHECK(!sroce_opcode_valid(0x60) && !sroce_opcode_valid(0x80));
	CHECK(!sroce_opcode_valid(0xc0) && !sroce_opcode_valid(0xff));
}

static void test_seq_table(void)
{
	static const struct { u8 prev, next; bool ok; } t[] = {
		{ SROCE_OPCODE_NONE, SROCE_RC_SEND_FIRST, true },
		{ SROCE_OPCODE_NONE, SROCE_RC_SEND_ONLY, true },
		{ SROCE_OPCODE_NONE, SROCE_RC_WRITE_FIRST, true },
		{ SROCE_OPCODE_NONE, SROCE_RC_READ_REQUEST, true },
		{ SROCE_OPCODE_NONE, SROCE_RC_COMPARE_SWAP, true },
		{ SROCE_OPCODE_NONE, SROCE_UD_SEND_ONLY_IMM, true },
		{ SROCE_OPCODE_NONE, SROCE_RC_SEND_MIDDLE, false },
		{ SROCE_OPCODE_NONE, SROCE_RC_SEND_LAST, false },
		{ SROCE_OPCODE_NONE, SROCE_RC_WRITE_LAST_IMM, false },
		{ SROCE_OPCODE_NONE, SROCE_CNP, false },
		{ SROCE_OPCODE_NONE, 0x17, false },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_MIDDLE, true },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_LAST, true },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_LAST_IMM, true },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_LAST_INV, true },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_FIRST, false },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_SEND_ONLY, false },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_WRITE_MIDDLE, false },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_WRITE_FIRST, false },
		{ SROCE_RC_SEND_FIRST, SROCE_UC_SEND_MIDDLE, false },
		{ SROCE_RC_SEND_FIRST, SROCE_RC_READ_REQUEST, false },
		{ SROCE_RC_SEND_FIRST, SROCE_CNP, false },
		{ SROCE_RC_SEND_FIRST, SROCE_OPCODE_NONE, false },
		{ SROCE_RC_SEND_MIDDLE, SROCE_RC_SEND_MIDDLE, true },
		{ SROCE_RC_SEND_MIDDLE, SROCE_RC_SEND_LAST_INV, true },
		{ SROCE_RC_SEND_MIDDLE, SROCE_RC_WRITE_LAST, false },
		{ SROCE_RC_SEND_LAST, SROCE_RC_SEND_FIRST, true },
		{ SROCE_RC_SEND_LAST, SROCE_RC_SEND_MIDDLE, false },
		{ SROCE_RC_SEND_LAST, SROCE_RC_WRITE_ONLY, true },
		{ SROCE_RC_SEND_ONLY_IMM, SROCE_RC_WRITE_FIRST, true },
		{ SROCE_RC_SEND_ONLY_IMM, SROCE_RC_WRITE_LAST, false },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_MIDDLE, true },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_LAST, true },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_LAST_IMM, true },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_SEND_LAST, false },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_FIRST, false },
		{ SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_ONLY, false },
		{ SROCE_RC_WRITE_FIRST, SROCE_UC_WRITE_LAST, false },
		{ SROCE_UC_WRITE_FIRST, SROCE_UC_WRITE_MIDDLE, true },
		{ SROCE_UC_WRITE_FIRST, SROCE_UC_WRITE_LAST_IMM, true },
		{ SROCE_UC_WRITE_FIRST, SROCE_RC_WRITE_MIDDLE, false },
		{ SROCE_UC_WRITE_FIRST, SROCE_UC_SEND_LAST, false },
		{ SROCE_UC_SEND_MIDDLE, SROCE_UC_SEND_LAST_IMM, true },
		{ SROCE_UC_SEND_MIDDLE, SROCE_UC_SEND_FIRST, false },
		{ SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_READ_RESPONSE_MIDDLE,
		  true },
		{ SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_READ_RESPONSE_LAST,
		  true },
		{ SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_READ_RESPONSE_ONLY,
		  false },
		{ SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_ACKNOWLEDGE, false },
		{ SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_SEND_MIDDLE, false },
		{ SROCE_RC_READ_RESPONSE_MIDDLE, SROCE_RC_READ_RESPONSE_LAST,
		  true },
		{ SROCE_RC_READ_RESPONSE_MIDDLE, SROCE_RC_READ_RESPONSE_FIRST,
		  false },
		{ SROCE_RC_READ_RESPONSE_LAST, SROCE_RC_READ_RESPONSE_FIRST,
		  true },
		{ SROCE_RC_READ_RESPONSE_LAST, SROCE_RC_ACKNOWLEDGE, true },
		{ SROCE_RC_READ_RESPONSE_LAST, SROCE_RC_READ_RESPONSE_MIDDLE,
		  false },
		{ SROCE_RC_ACKNOWLEDGE, SROCE_RC_ATOMIC_ACKNOWLEDGE, true },
		{ SROCE_RC_ACKNOWLEDGE, SROCE_RC_READ_RESPONSE_ONLY, true },
		{ SROCE_RC_READ_REQUEST, SROCE_RC_READ_REQUEST, true },
		{ SROCE_RC_READ_REQUEST, SROCE_RC_FETCH_ADD, true },
		{ SROCE_RC_READ_REQUEST, SROCE_RC_WRITE_MIDDLE, false },
		{ SROCE_CNP, SROCE_RC_SEND_ONLY, true },
		{ SROCE_CNP, SROCE_RC_SEND_MIDDLE, false },
		{ 0x17, SROCE_RC_SEND_FIRST, true },
		{ 0x17, SROCE_RC_SEND_LAST, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_opcode_seq_ok(t[i].prev, t[i].next) == t[i].ok,
		       "%s -> %s should be %s", sroce_opcode_name(t[i].prev),
		       sroce_opcode_name(t[i].next),
		       t[i].ok ? "legal" : "illegal");
}

/* Whole message streams walk through without a single illegal step */
static void test_seq_streams(void)
{
	static const u8 rc[] = {
		SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_MIDDLE,
		SROCE_RC_WRITE_MIDDLE, SROCE_RC_WRITE_LAST_IMM,
		SROCE_RC_SEND_ONLY, SROCE_RC_SEND_FIRST, SROCE_RC_SEND_LAST_INV,
		SROCE_RC_READ_REQUEST, SROCE_RC_FETCH_ADD, SROCE_RC_WRITE_ONLY,
		SROCE_RC_SEND_FIRST, SROCE_RC_SEND_MIDDLE, SROCE_RC_SEND_LAST,
	};
	static const u8 resp[] = {
		SROCE_RC_ACKNOWLEDGE, SROCE_RC_READ_RESPONSE_FIRST,
		SROCE_RC_READ_RESPONSE_MIDDLE, SROCE_RC_READ_RESPONSE_LAST,
		SROCE_RC_ATOMIC_ACKNOWLEDGE, SROCE_RC_READ_RESPONSE_ONLY,
	};
	u8 prev = SROCE_OPCODE_NONE;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rc); prev = rc[i++])
		CHECKF(sroce_opcode_seq_ok(prev, rc[i]), "step %zu", i);
	CHECK(!sroce_opcode_in_progress(prev));
	prev = SROCE_OPCODE_NONE;
	for (i = 0; i < ARRAY_SIZE(resp); prev = resp[i++])
		CHECKF(sroce_opcode_seq_ok(prev, resp[i]), "step %zu", i);
}

/* Every (prev, next) pair against rules derived from the list above */
static void test_seq_all_pairs(void)
{
	unsigned int p, n;

	for (p = 0; p < 256; p++) {
		const struct expect *ep = find(p);
		bool busy = ep && (ep->pos == 'F' || ep->pos == 'M');

		for (n = 0; n < 256; n++) {
			const struct expect *en = find(n);
			bool want;

			if (!en || en->pos == '-')
				want = false;
			else if (!busy)
				want = en->pos == 'F' || en->pos == 'O';
			else
				want = !strcmp(ep->qpt, en->qpt) &&
				       !strcmp(ep->kind, en->kind) &&
				       ep->dir == en->dir &&
				       (en->pos == 'M' || en->pos == 'L');
			if (!CHECKF(sroce_opcode_seq_ok(p, n) == want,
				    "0x%02x -> 0x%02x", p, n))
				return;
		}
	}
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "opcode_invalid_rejected", test_invalid },
		{ "opcode_seq_table", test_seq_table },
		{ "opcode_seq_streams", test_seq_streams },
		{ "opcode_seq_all_pairs", test_seq_all_pairs },
	};
	size_t i;

	ktap_plan(ARRAY_SIZE(table) + ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		char name[80];

		check_entry(&table[i]);
		snprintf(name, sizeof(name), "opcode_0x%02x_%s", table[i].op,
			 table[i].name);
		ktap_case_end(name);
	}
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
