// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_pkt: the receive path of one RoCEv2 datagram, as kernel/recv.c runs
 * it on the core: sroce_pkt_parse() on the UDP payload, the ICRC over the
 * masked IP/UDP/BTH headers and the rest, then the extension headers at
 * the offsets the opcode table gives.
 *
 * Input: one mode byte, then the IP and UDP headers (20 + 8 bytes, or
 * 40 + 8 for IPv6; zeros when the input is shorter), then the UDP payload
 * (BTH through ICRC).
 *   mode bit 0    IPv6 rather than IPv4
 *   mode bit 1    put the BTH's P_Key in the default partition (the
 *                 membership bit as it was) and fix the ICRC up, so that
 *                 the fuzzer gets past both
 *   mode bits 2-7 the segment size (1..64) for the scattered ICRC
 *
 * Checked: no read outside the packet (every piece the core reads is an
 * exactly sized heap copy, under ASan); sroce_pkt_parse()'s verdict against
 * an independent model written from IBTA table 38 (which headers each
 * opcode carries); what it reports (lengths add up, flags and header
 * length from the table, pad and tver in range); each extension header
 * inside the headers, in order and without overlap, and decode/encode
 * round trips byte for byte; the slice-by-16 ICRC, linear, scattered and
 * copied as it is fed, against a bitwise CRC-32 of the masked
 * pseudo-header built here; and a fixed-up ICRC verifies. The opcode table's accessors (header offsets,
 * sequence rules, QP types), fed any bytes, answer consistently with it.
 */
#include <string.h>

#include "fuzz.h"
#include "hdr.h"
#include "icrc.h"
#include "opcode.h"
#include "pkt.h"
#include "psn.h"
#include "rc.h"

/* Which headers follow the BTH, by opcode (IBTA vol. 1 table 38) */
enum { R = 1, A = 2, T = 4, K = 8, D = 16, I = 32, V = 64, C = 128 };
struct ref_op {
	u8 valid, hdrs, payload;
};

static struct ref_op ref_table(u8 op)
{
	static const u8 rc[0x17] = {
		0, 0, 0, I, 0, I,		/* SEND F M L L+I O O+I */
		R, 0, 0, I, R, R | I,		/* WRITE F M L L+I O O+I */
		R,				/* READ request */
		A, 0, A, A,			/* READ response F M L O */
		A, A | K,			/* ACK, atomic ACK */
		T, T,				/* CMP_SWAP, FETCH_ADD */
		V, V,				/* SEND L+INV, O+INV */
	};
	struct ref_op r = { 0, 0, 0 };

	if (op < 0x17) {
		r.valid = 1;
		r.hdrs = rc[op];
		r.payload = !(op == 0x0c || (op >= 0x11 && op <= 0x14));
	} else if (op >= 0x20 && op <= 0x2b) {
		r.valid = 1;
		r.hdrs = rc[op - 0x20];
		r.payload = 1;
	} else if (op == 0x64 || op == 0x65) {
		r.valid = 1;
		r.hdrs = D | (op == 0x65 ? I : 0);
		r.payload = 1;
	} else if (op == 0x81) {
		r.valid = 1;
		r.hdrs = C;
	}
	return r;
}

static const struct {
	u8 ref;
	u32 flag, bytes;
} ext[] = {
	{ R, SROCE_OPF_RETH, SROCE_RETH_BYTES },
	{ A, SROCE_OPF_AETH, SROCE_AETH_BYTES },
	{ T, SROCE_OPF_ATMETH, SROCE_ATMETH_BYTES },
	{ K, SROCE_OPF_ATMACK, SROCE_ATMACK_BYTES },
	{ D, SROCE_OPF_DETH, SROCE_DETH_BYTES },
	{ I, SROCE_OPF_IMMDT, SROCE_IMMDT_BYTES },
	{ V, SROCE_OPF_IETH, SROCE_IETH_BYTES },
	{ C, SROCE_OPF_CNP_RESV, SROCE_CNP_RESV_BYTES },
};

static u32 ref_hdr_len(struct ref_op r)
{
	u32 len = SROCE_BTH_BYTES;
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (r.hdrs & ext[i].ref)
			len += ext[i].bytes;
	return len;
}

static enum sroce_pkt_err ref_parse(const u8 *b, size_t len)
{
	struct ref_op r;
	size_t body;

	if (len < SROCE_BTH_BYTES + 4)
		return SROCE_PKT_SHORT;
	if (b[1] & 0x0f)
		return SROCE_PKT_BAD_TVER;
	/* The default partition, 0x7fff, a full or a limited member */
	if (((b[2] << 8 | b[3]) & 0x7fff) != 0x7fff)
		return SROCE_PKT_BAD_PKEY;
	r = ref_table(b[0]);
	if (!r.valid)
		return SROCE_PKT_BAD_OPCODE;
	if (len < ref_hdr_len(r) + 4)
		return SROCE_PKT_SHORT;
	body = len - ref_hdr_len(r) - 4;
	if (body % 4 || ((b[1] >> 4) & 3) > body || (!r.payload && body))
		return SROCE_PKT_BAD_LENGTH;
	return SROCE_PKT_OK;
}

/* A bitwise reflected CRC-32 (poly 0xedb88320), nothing shared with icrc.c */
static u32 ref_crc(u32 crc, const u8 *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}

/* The ICRC of IBTA A17.3.3 from first principles: l3 is the IP header on. */
static u32 ref_icrc(const u8 *l3, size_t len, bool ipv6)
{
	size_t ip = ipv6 ? 40 : 20, i;
	u8 lrh[8], *m = malloc(len);
	u32 crc;

	FZ_ASSERT(m, "out of memory");
	memcpy(m, l3, len);
	if (ipv6) {
		m[0] |= 0x0f;		/* traffic class, low nibble */
		m[1] = m[2] = m[3] = 0xff;	/* traffic class, flow label */
		m[7] = 0xff;		/* hop limit */
	} else {
		m[1] = 0xff;		/* TOS */
		m[8] = 0xff;		/* TTL */
		m[10] = m[11] = 0xff;	/* header checksum */
	}
	m[ip + 6] = m[ip + 7] = 0xff;	/* UDP checksum */
	m[ip + 8 + 4] = 0xff;		/* BTH FECN, BECN, resv6 */
	for (i = 0; i < sizeof(lrh); i++)
		lrh[i] = 0xff;
	crc = ref_crc(0xffffffffU, lrh, sizeof(lrh));
	crc = ref_crc(crc, m, len);
	free(m);
	return ~crc;
}

/* Heap copy of exactly n bytes, so that ASan sees any read past them */
static u8 *exact(const u8 *p, size_t n)
{
	u8 *c = malloc(n ? n : 1);

	FZ_ASSERT(c, "out of memory");
	memcpy(c, p, n);
	return c;
}

/* Decode, re-encode: the bytes must come back unchanged */
static void ext_roundtrip(const u8 *hdr, u32 flag)
{
	u8 out[SROCE_ATMETH_BYTES + SROCE_CNP_RESV_BYTES];
	size_t n = 0;

	switch (flag) {
	case SROCE_OPF_RETH: {
		struct sroce_reth h;

		sroce_reth_decode(hdr, &h);
		sroce_reth_encode(&h, out);
		n = SROCE_RETH_BYTES;
		break;
	}
	case SROCE_OPF_AETH: {
		struct sroce_aeth h;
		struct sroce_rc_aeth_info info;
		enum sroce_rc_aeth_kind k;

		sroce_aeth_decode(hdr, &h);
		FZ_ASSERT(h.msn <= SROCE_MSN_MASK, "msn %#x", h.msn);
		sroce_aeth_encode(&h, out);
		n = SROCE_AETH_BYTES;
		k = sroce_rc_aeth_decode(h.syndrome, &info);
		switch (sroce_aeth_syn_type(h.syndrome)) {
		case SROCE_AETH_ACK:
			FZ_ASSERT(k == SROCE_RC_AETH_ACK &&
				  info.credits ==
				  sroce_rc_credits(h.syndrome & 0x1f),
				  "syndrome %#x", h.syndrome);
			break;
		case SROCE_AETH_RNR_NAK:
			FZ_ASSERT(k == SROCE_RC_AETH_RNR && info.rnr_usec > 0,
				  "syndrome %#x", h.syndrome);
			break;
		default:
			FZ_ASSERT(k == SROCE_RC_AETH_SEQ_ERR ||
				  (k == SROCE_RC_AETH_FATAL &&
				   info.status != SROCE_WC_SUCCESS),
				  "syndrome %#x kind %d", h.syndrome, k);
			FZ_ASSERT(k != SROCE_RC_AETH_SEQ_ERR ||
				  (h.syndrome & 0x7f) == 0x60,
				  "syndrome %#x", h.syndrome);
		}
		break;
	}
	case SROCE_OPF_ATMETH: {
		struct sroce_atmeth h;

		sroce_atmeth_decode(hdr, &h);
		sroce_atmeth_encode(&h, out);
		n = SROCE_ATMETH_BYTES;
		break;
	}
	case SROCE_OPF_ATMACK: {
		struct sroce_atmack h;

		sroce_atmack_decode(hdr, &h);
		sroce_atmack_encode(&h, out);
		n = SROCE_ATMACK_BYTES;
		break;
	}
	case SROCE_OPF_DETH: {
		struct sroce_deth h;

		sroce_deth_decode(hdr, &h);
		FZ_ASSERT(h.sqpn <= SROCE_QPN_MASK, "sqpn %#x", h.sqpn);
		sroce_deth_encode(&h, out);
		n = SROCE_DETH_BYTES;
		break;
	}
	case SROCE_OPF_IMMDT: {
		struct sroce_immdt h;

		sroce_immdt_decode(hdr, &h);
		sroce_immdt_encode(&h, out);
		n = SROCE_IMMDT_BYTES;
		break;
	}
	case SROCE_OPF_IETH: {
		struct sroce_ieth h;

		sroce_ieth_decode(hdr, &h);
		sroce_ieth_encode(&h, out);
		n = SROCE_IETH_BYTES;
		break;
	}
	default:
		return;		/* the CNP's reserved bytes: nothing to decode */
	}
	FZ_ASSERT(!memcmp(out, hdr, n), "header %#x changed in a round trip",
		  flag);
}

/* What sroce_pkt_parse() reports for a packet it accepts */
static void check_parsed(const u8 *t, size_t len, const struct sroce_pkt *p)
{
	u8 op = t[0], bth[SROCE_BTH_BYTES];
	struct ref_op r = ref_table(op);

	FZ_ASSERT(p->bth.opcode == op && p->bth.tver == 0 && p->bth.pad <= 3,
		  "bth opcode %#x tver %u pad %u", p->bth.opcode, p->bth.tver,
		  p->bth.pad);
	FZ_ASSERT(sroce_psn_valid(p->bth.psn) &&
		  p->bth.dqpn <= SROCE_QPN_MASK, "psn %#x dqpn %#x",
		  p->bth.psn, p->bth.dqpn);
	FZ_ASSERT(p->flags == sroce_opcode_flags(op) && p->flags,
		  "flags %#x for opcode %#x", p->flags, op);
	FZ_ASSERT(p->hdr_len == ref_hdr_len(r) &&
		  p->hdr_len == sroce_opcode_hdr_len(op) &&
		  p->hdr_len <= SROCE_MAX_HDR_BYTES,
		  "hdr_len %u for opcode %#x", p->hdr_len, op);
	FZ_ASSERT((size_t)p->hdr_len + p->paylen + p->bth.pad +
		  SROCE_ICRC_BYTES == len, "hdr %u + payload %u + pad %u + 4 != %zu",
		  p->hdr_len, p->paylen, p->bth.pad, len);
	FZ_ASSERT((p->paylen + p->bth.pad) % 4 == 0, "payload %u pad %u",
		  p->paylen, p->bth.pad);
	FZ_ASSERT(!!(p->flags & SROCE_OPF_PAYLOAD) == r.payload &&
		  (r.payload || (p->paylen == 0 && p->bth.pad == 0)),
		  "opcode %#x without payload has %u bytes, pad %u", op,
		  p->paylen, p->bth.pad);
	FZ_ASSERT(!!(p->flags & SROCE_OPF_REQ) + !!(p->flags & SROCE_OPF_RESP) +
		  !!(p->flags & SROCE_OPF_CNP) == 1 || (op & 0xe0) == 0x60,
		  "opcode %#x flags %#x: not exactly one direction", op,
		  p->flags);

	sroce_bth_encode(&p->bth, bth);
	FZ_ASSERT(!memcmp(bth, t, sizeof(bth)), "BTH changed in a round trip");
}

/*
 * A packet with a good ICRC: the engines read its extension headers at the
 * offsets the opcode table gives. They must lie in the headers, in the
 * table's order, back to back.
 */
static void check_headers(const u8 *t, const struct sroce_pkt *p)
{
	u8 op = t[0];
	struct ref_op r = ref_table(op);
	u32 end = SROCE_BTH_BYTES;
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		int off = sroce_opcode_hdr_offset(op, ext[i].flag);
		u8 *h;

		if (!(r.hdrs & ext[i].ref)) {
			FZ_ASSERT(off == -1 && !(p->flags & ext[i].flag),
				  "opcode %#x: header %#x at %d", op,
				  ext[i].flag, off);
			continue;
		}
		FZ_ASSERT(p->flags & ext[i].flag, "opcode %#x lacks %#x", op,
			  ext[i].flag);
		FZ_ASSERT(off == (int)end, "opcode %#x: header %#x at %d, not %u",
			  op, ext[i].flag, off, end);
		end += ext[i].bytes;
		FZ_ASSERT(end <= p->hdr_len, "header %#x ends at %u > %u",
			  ext[i].flag, end, p->hdr_len);
		h = exact(t + off, ext[i].bytes);
		ext_roundtrip(h, ext[i].flag);
		free(h);
	}
	FZ_ASSERT(end == p->hdr_len, "headers end at %u, hdr_len %u", end,
		  p->hdr_len);
	/* Not exactly one header flag: no offset. */
	FZ_ASSERT(sroce_opcode_hdr_offset(op, 0) == -1 &&
		  sroce_opcode_hdr_offset(op, SROCE_OPF_PAYLOAD) == -1 &&
		  sroce_opcode_hdr_offset(op, SROCE_OPF_RETH |
					  SROCE_OPF_IMMDT) == -1,
		  "opcode %#x: an offset for a non-header flag", op);
}

/*
 * The opcode table's accessors on any bytes: the engines call them with
 * opcodes from the wire and with the last opcode of a message in progress.
 */
static void check_opcode_api(u8 op, u8 prev, u32 hdr, u8 qpt)
{
	u32 f = sroce_opcode_flags(op), pf = sroce_opcode_flags(prev);
	int off = sroce_opcode_hdr_offset(op, hdr);
	struct ref_op r = ref_table(op);
	size_t i;

	FZ_ASSERT(sroce_opcode_valid(op) == r.valid && !!f == r.valid &&
		  (sroce_opcode_info(op) != NULL) == r.valid &&
		  sroce_opcode_hdr_len(op) == (r.valid ? ref_hdr_len(r) : 0),
		  "opcode %#x: valid %d flags %#x", op,
		  sroce_opcode_valid(op), f);
	FZ_ASSERT(sroce_opcode_name(op) && sroce_opcode_name(op)[0],
		  "opcode %#x has no name", op);
	if (off >= 0) {
		for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
			if (ext[i].flag == hdr)
				break;
		FZ_ASSERT(i < sizeof(ext) / sizeof(ext[0]) && (f & hdr) &&
			  off >= SROCE_BTH_BYTES &&
			  off + ext[i].bytes <= sroce_opcode_hdr_len(op),
			  "opcode %#x: header %#x at %d", op, hdr, off);
	}
	if (sroce_opcode_seq_ok(prev, op)) {
		FZ_ASSERT(r.valid && !(f & SROCE_OPF_CNP),
			  "%#x may follow %#x", op, prev);
		if (sroce_opcode_in_progress(prev))
			FZ_ASSERT((prev & 0xe0) == (op & 0xe0) &&
				  !(f & SROCE_OPF_FIRST) &&
				  (pf & (SROCE_OPF_KIND_MASK | SROCE_OPF_REQ |
					 SROCE_OPF_RESP)) ==
				  (f & (SROCE_OPF_KIND_MASK | SROCE_OPF_REQ |
					SROCE_OPF_RESP)),
				  "%#x may follow %#x", op, prev);
		else
			FZ_ASSERT(f & SROCE_OPF_FIRST, "%#x may follow %#x",
				  op, prev);
	}
	FZ_ASSERT(sroce_opcode_in_progress(op) ==
		  (r.valid && ((f & SROCE_OPF_POS_MASK) == SROCE_OPF_FIRST ||
			       (f & SROCE_OPF_POS_MASK) == SROCE_OPF_MIDDLE)),
		  "opcode %#x in progress", op);
	if (sroce_opcode_valid_for_qpt(op, (enum sroce_qp_type)qpt))
		FZ_ASSERT(r.valid && qpt <= SROCE_QPT_UD &&
			  (op == SROCE_CNP ||
			   (op & 0xe0) == (qpt == SROCE_QPT_RC ? 0x00 :
					   qpt == SROCE_QPT_UC ? 0x20 : 0x60)),
			  "opcode %#x valid for QP type %u", op, qpt);
}

/* The ICRC four ways; returns the value (valid when len >= 16). */
static u32 check_icrc(const u8 *l3, size_t hdr, size_t tlen, bool ipv6,
		      size_t seg)
{
	size_t covered = hdr + tlen - SROCE_ICRC_BYTES, off;
	u32 lin, ref, crc, cpy;
	u8 *h = exact(l3, sroce_icrc_hdr_bytes(ipv6));

	lin = sroce_icrc_linear(l3, covered, ipv6);
	ref = ref_icrc(l3, covered, ipv6);
	FZ_ASSERT(lin == ref, "linear ICRC %#x, bitwise %#x", lin, ref);

	/*
	 * As recv.c does it: the headers, then the skb's pieces; and again
	 * with the pieces copied as they are fed (the late check), which
	 * must give the same CRC and the same bytes.
	 */
	crc = sroce_icrc_begin(h, ipv6);
	cpy = sroce_icrc_begin(h, ipv6);
	free(h);
	for (off = sroce_icrc_hdr_bytes(ipv6); off < covered; off += seg) {
		size_t n = covered - off < seg ? covered - off : seg;
		u8 *s = exact(l3 + off, n), *d = malloc(n ? n : 1);

		FZ_ASSERT(d, "out of memory");
		crc = sroce_icrc_update(crc, s, n);
		cpy = sroce_icrc_copy(cpy, d, s, n);
		FZ_ASSERT(!memcmp(d, s, n), "copied bytes differ at offset %zu", off);
		free(d);
		free(s);
	}
	FZ_ASSERT(sroce_icrc_final(crc) == ref, "scattered ICRC %#x (segments of %zu), bitwise %#x",
		  sroce_icrc_final(crc), seg, ref);
	FZ_ASSERT(cpy == crc, "copying ICRC %#x, plain %#x", cpy, crc);
	return lin;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	u8 mode = fz_u8(&f);
	bool ipv6 = mode & 1, fix = mode & 2;
	size_t seg = (mode >> 2) + 1;
	size_t hdr = (ipv6 ? SROCE_IPV6_HDR_BYTES : SROCE_IPV4_HDR_BYTES) +
		     SROCE_UDP_HDR_BYTES;
	size_t take = f.n < hdr ? f.n : hdr, tlen = f.n - take;
	enum sroce_pkt_err err, want;
	struct sroce_pkt pkt;
	u8 *l3, *t;

	l3 = calloc(1, hdr + tlen);
	FZ_ASSERT(l3, "out of memory");
	memcpy(l3, f.p, f.n);
	if (fix && tlen >= 4) {
		l3[hdr + 2] |= 0x7f;
		l3[hdr + 3] = 0xff;
	}
	if (fix && tlen >= SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		sroce_icrc_put(l3 + hdr + tlen - SROCE_ICRC_BYTES,
			       sroce_icrc_linear(l3, hdr + tlen -
						 SROCE_ICRC_BYTES, ipv6));

	check_opcode_api(tlen ? l3[hdr] : mode, l3[0], sroce_get_be32(l3 + 4),
			 l3[1] & 3);
	t = exact(l3 + hdr, tlen);
	memset(&pkt, 0xa5, sizeof(pkt));
	err = sroce_pkt_parse(t, tlen, &pkt);
	want = ref_parse(t, tlen);
	FZ_ASSERT(err == want, "sroce_pkt_parse says %d, the model %d (opcode %#x, len %zu)",
		  err, want, tlen ? t[0] : 0, tlen);
	if (err == SROCE_PKT_OK)
		check_parsed(t, tlen, &pkt);

	/* recv.c checks the ICRC of every packet that parses. */
	if (tlen >= SROCE_BTH_BYTES + SROCE_ICRC_BYTES) {
		u32 icrc = check_icrc(l3, hdr, tlen, ipv6, seg);
		bool good = icrc == sroce_icrc_get(t + tlen - SROCE_ICRC_BYTES);

		FZ_ASSERT(!fix || good, "fixed-up ICRC does not verify");
		if (err == SROCE_PKT_OK && good)
			check_headers(t, &pkt);
	}
	free(t);
	free(l3);
	return 0;
}
