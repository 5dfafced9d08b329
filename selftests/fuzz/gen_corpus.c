// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gen_corpus: write the seed inputs of the fuzz targets, well-formed
 * examples in each target's input format, into corpus/<target>/seed-*.
 * `make -C selftests/fuzz seeds` runs it; the output is committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdr.h"
#include "icrc.h"
#include "opcode.h"
#include "rc.h"

static const char *dir;

static void put(const char *target, const char *name, const u8 *b,
		size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* fuzz_pkt: mode, IP and UDP headers, BTH ... ICRC */
static void pkt_seed(bool ipv6, u8 opcode, u32 paylen)
{
	u8 b[1 + 48 + SROCE_MAX_HDR_BYTES + 300 + 4], *l3 = b + 1, *udp, *t;
	size_t ip = ipv6 ? SROCE_IPV6_HDR_BYTES : SROCE_IPV4_HDR_BYTES;
	u32 hl = sroce_opcode_hdr_len(opcode);
	u32 pad = -paylen & 3, tlen = hl + paylen + pad + SROCE_ICRC_BYTES;
	struct sroce_bth bth = {
		.opcode = opcode, .pad = pad, .pkey = 0xffff, .dqpn = 0x11,
		.psn = 0x123456, .ackreq = 1,
	};
	char name[64];
	u32 i;

	memset(b, 0, sizeof(b));
	b[0] = 2 | ipv6;			/* fix the ICRC up */
	if (ipv6) {
		l3[0] = 0x60;
		sroce_put_be16(l3 + 4, SROCE_UDP_HDR_BYTES + tlen);
		l3[6] = 17;
		l3[7] = 64;
		l3[23] = 1;
		l3[39] = 2;
	} else {
		l3[0] = 0x45;
		sroce_put_be16(l3 + 2, ip + SROCE_UDP_HDR_BYTES + tlen);
		l3[8] = 64;
		l3[9] = 17;
		l3[12] = 10;
		l3[15] = 1;
		l3[16] = 10;
		l3[19] = 2;
	}
	udp = l3 + ip;
	sroce_put_be16(udp, 0xc000);
	sroce_put_be16(udp + 2, SROCE_ROCEV2_PORT);
	sroce_put_be16(udp + 4, SROCE_UDP_HDR_BYTES + tlen);
	t = udp + SROCE_UDP_HDR_BYTES;
	sroce_bth_encode(&bth, t);
	for (i = SROCE_BTH_BYTES; i < hl + paylen; i++)
		t[i] = (u8)(i * 7);
	if (sroce_opcode_flags(opcode) & SROCE_OPF_AETH)
		t[sroce_opcode_hdr_offset(opcode, SROCE_OPF_AETH)] = 0x1f;
	sroce_icrc_put(t + tlen - SROCE_ICRC_BYTES,
		       sroce_icrc_linear(l3, ip + SROCE_UDP_HDR_BYTES + tlen -
					 SROCE_ICRC_BYTES, ipv6));
	snprintf(name, sizeof(name), "%s-%s-%u", ipv6 ? "v6" : "v4",
		 sroce_opcode_name(opcode), paylen);
	put("fuzz_pkt", name, b, 1 + ip + SROCE_UDP_HDR_BYTES + tlen);
}

/* fuzz_resp: uc, pmtu, epsn, msn, then events */
static void resp_seed(const char *name, bool uc, u16 pmtu, const u8 *ev,
		      size_t n)
{
	u8 b[256];

	b[0] = uc;
	sroce_put_be16(b + 1, pmtu);
	sroce_put_be24(b + 3, 0xfffff0);	/* wraps soon */
	sroce_put_be24(b + 6, 0);
	memcpy(b + 9, ev, n);
	put("fuzz_resp", name, b, 9 + n);
}

/* fuzz_comp: pmtu, first PSN, retry_cnt, rnr_retry, WQEs, events */
static void comp_seed(const char *name, const u8 *wqes, size_t nw,
		      const u8 *ev, size_t ne)
{
	u8 b[256];

	sroce_put_be16(b, 256);
	sroce_put_be24(b + 2, 0xfffffe);
	b[5] = 7;
	b[6] = 7;
	memcpy(b + 7, wqes, nw);
	memcpy(b + 7 + nw, ev, ne);
	put("fuzz_comp", name, b, 7 + nw + ne);
}

int main(int argc, char **argv)
{
	unsigned int op;
	char name[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	for (op = 0; op < 256; op++) {
		if (!sroce_opcode_valid(op))
			continue;
		pkt_seed(false, op, 0);
		if (sroce_opcode_flags(op) & SROCE_OPF_PAYLOAD) {
			pkt_seed(false, op, 5);
			pkt_seed(true, op, 256);
		} else {
			pkt_seed(true, op, 0);
		}
	}

	/*
	 * fuzz_resp: event 0xe0 is a message from sroce's requester (op,
	 * length u16, AckReq every N); below 0xe0, one request: opcode
	 * index, PSN selector 0 (= epsn), control (AckReq, outcome), payload
	 * and RETH length selectors (0: pmtu, 3: 0, 5: k * pmtu + r).
	 */
	for (op = 0; op < SROCE_RC_OP_COUNT; op++) {
		u8 ev[] = {
			0xe0, op, 0x03, 0x00, 0x04,	/* 768 bytes */
			0xe0, op, 0x00, 0x01, 0x00,	/* 1 byte */
			0xe0, op, 0x00, 0x00, 0x00,	/* 0 bytes */
		};

		snprintf(name, sizeof(name), "rc-own-op%u", op);
		resp_seed(name, false, 256, ev, sizeof(ev));
		snprintf(name, sizeof(name), "uc-own-op%u", op);
		resp_seed(name, true, 1024, ev, sizeof(ev));
	}
	{
		/*
		 * WRITE FIRST (RETH 3 * 256), MIDDLE, LAST (valid_ops
		 * indexes 6, 7, 8: the opcodes are listed in order)
		 */
		u8 ev[] = {
			0x00, 6, 0, 0, 0, 0, 0x05, 3,
			0x00, 7, 0, 0, 0, 0, 0x03, 0,
			0x00, 8, 0, 0, 0, 0, 0x03, 0,
		};

		resp_seed("rc-write-3", false, 256, ev, sizeof(ev));
	}

	/*
	 * fuzz_comp: WQEs (count - 1, then op and length selector each:
	 * 0: len = sel >> 3; 1: len = pmtu * (sel >> 3)), then events
	 * (0 + 4k: send k + 1 packets; 1: a response, opcode selector, PSN
	 * selector 1 (nxt - 1 - (sel >> 3)), syndrome; 3: a timeout).
	 */
	{
		u8 w[] = {
			4,
			SROCE_RC_OP_SEND, 1 | 3 << 3,
			SROCE_RC_OP_WRITE, 0 | 9 << 3,
			SROCE_RC_OP_READ, 1 | 2 << 3,
			SROCE_RC_OP_FETCH_ADD, 4,
			SROCE_RC_OP_SEND_IMM, 0,
		};
		u8 ack_all[] = { 0x7c, 1, 4 | 0x30, 1, 0x1f };
		u8 read_resp[] = {
			0x7c,
			1, 0 | 0x30, 0 | 4 << 3, 0x1f,	/* READ FIRST, una + 4 */
			1, 2 | 0x30, 0 | 0 << 3, 0x1f,	/* LAST at una */
			1, 5 | 0x30, 0, 0x1f,		/* atomic ACK at una */
			1, 4 | 0x30, 1, 0x1f,		/* ACK nxt - 1 */
		};
		u8 naks[] = {
			0x7c,
			1, 4 | 0x30, 0, 0x60,		/* NAK seq at una */
			1, 4 | 0x30, 0, 0x23,		/* RNR at una */
			3,				/* timeout */
			1, 4 | 0x30, 1 | 8, 0x62,	/* NAK access */
		};

		comp_seed("ack-all", w, sizeof(w), ack_all, sizeof(ack_all));
		comp_seed("read-atomic", w, sizeof(w), read_resp,
			  sizeof(read_resp));
		comp_seed("naks", w, sizeof(w), naks, sizeof(naks));
	}
	return 0;
}
