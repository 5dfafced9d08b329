// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RoCEv2 ICRC (kernel/core/icrc.[ch]):
 *  - known answers: the IBTA sample packet, a CNP captured from a
 *    ConnectX-4 Lx, and scapy's RoCE example packet;
 *  - every entry of the slice-by-16 tables against a bit-at-a-time CRC;
 *  - the fused copy: the same CRC, the same bytes, nothing else written;
 *  - a differential test against a deliberately naive reference (a
 *    bit-at-a-time CRC over an explicitly masked copy of the packet) over
 *    IPv4 and IPv6 packets built with the header encoders, linear and
 *    scattered at every split point;
 *  - masking: each variant field must not change the ICRC, every other bit
 *    must.
 */
#include "ktap.h"
#include "hdr.h"
#include "icrc.h"
#include "opcode.h"
/* the committed tables themselves, checked entry by entry */
#include "crc32_table.h"

#define MAX_PKT	4200

/* ---- the naive reference ---- */

static u32 ref_crc_bits(u32 crc, const u8 *p, size_t n)
{
	int b;

	while (n--) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

struct pkt {
	u8 b[MAX_PKT];
	size_t len;		/* IP header up to (not including) the ICRC */
	bool ipv6;
	size_t ip_len;		/* 20 or 40 */
};

/* IBTA/RoCEv2 masking, field by field, on a copy; then the CRC */
static u32 ref_icrc(const struct pkt *p)
{
	static u8 m[8 + MAX_PKT];
	u8 *ip = m + 8, *udp, *bth;

	memset(m, 0xff, 8);			/* LRH stand-in */
	memcpy(ip, p->b, p->len);
	if (p->ipv6) {
		/* word 0: version (4 bits) | traffic class (8) | flow (20) */
		u32 w = sroce_get_be32(ip);

		w |= 0xffu << 20;		/* traffic class */
		w |= 0xfffffu;			/* flow label */
		sroce_put_be32(ip, w);
		ip[7] = 0xff;			/* hop limit */
	} else {
		ip[1] = 0xff;			/* type of service */
		ip[8] = 0xff;			/* time to live */
		ip[10] = 0xff;			/* header checksum */
		ip[11] = 0xff;
	}
	udp = ip + p->ip_len;
	udp[6] = 0xff;				/* UDP checksum */
	udp[7] = 0xff;
	bth = udp + 8;
	bth[4] = 0xff;				/* FECN, BECN, resv6 */
	return ~ref_crc_bits(0xffffffffu, m, 8 + p->len);
}

/* Is bit @bit of packet byte @off a masked (variant) bit? */
static bool masked_bit(const struct pkt *p, size_t off, int bit)
{
	size_t udp = p->ip_len, bth = udp + 8;

	if (off == udp + 6 || off == udp + 7 || off == bth + 4)
		return true;
	if (p->ipv6)
		return (off == 0 && bit < 4) || off == 1 || off == 2 ||
		       off == 3 || off == 7;
	return off == 1 || off == 8 || off == 10 || off == 11;
}

/* ---- packets built with the encoders ---- */

static u16 ipv4_csum(const u8 *h)
{
	u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		if (i != 10)
			sum += sroce_get_be16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static void build_pkt(struct pkt *p, bool ipv6, u8 opcode, size_t paylen)
{
	u32 f = sroce_opcode_flags(opcode);
	size_t hl = sroce_opcode_hdr_len(opcode);
	size_t pad = (4 - paylen % 4) % 4;
	size_t ip_len = ipv6 ? 40 : 20;
	size_t l4 = 8 + hl + paylen + pad + 4;
	u8 *ip = p->b, *udp = ip + ip_len, *bth = udp + 8, *h;
	struct sroce_bth b = {
		.opcode = opcode, .se = ktap_rand() & 1,
		.mig = ktap_rand() & 1, .pad = pad,
		.pkey = ktap_rand(), .fecn = ktap_rand() & 1,
		.becn = ktap_rand() & 1, .dqpn = ktap_rand(),
		.ackreq = ktap_rand() & 1, .psn = ktap_rand(),
	};

	p->ipv6 = ipv6;
	p->ip_len = ip_len;
	p->len = ip_len + l4 - 4;
	ktap_rand_bytes(p->b, p->len + 4);	/* addresses, payload, ... */
	if (ipv6) {
		sroce_put_be32(ip, 6u << 28 | (ktap_rand() & 0x0fffffff));
		sroce_put_be16(ip + 4, l4);		/* payload length */
		ip[6] = 17;				/* next header: UDP */
	} else {
		ip[0] = 0x45;
		sroce_put_be16(ip + 2, ip_len + l4);	/* total length */
		sroce_put_be16(ip + 6, 0x4000);		/* DF */
		ip[9] = 17;				/* protocol: UDP */
		sroce_put_be16(ip + 10, ipv4_csum(ip));
	}
	sroce_put_be16(udp, 0xc000 | (ktap_rand() & 0x3fff));
	sroce_put_be16(udp + 2, SROCE_ROCEV2_PORT);
	sroce_put_be16(udp + 4, l4);
	sroce_bth_encode(&b, bth);

	if (f & SROCE_OPF_RETH) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_RETH);
		sroce_reth_encode(&(struct sroce_reth){
			((u64)ktap_rand() << 32) | ktap_rand(), ktap_rand(),
			paylen }, h);
	}
	if (f & SROCE_OPF_AETH) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_AETH);
		sroce_aeth_encode(&(struct sroce_aeth){
			sroce_aeth_syn_ack(ktap_rand()), ktap_rand() }, h);
	}
	if (f & SROCE_OPF_ATMETH) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_ATMETH);
		sroce_atmeth_encode(&(struct sroce_atmeth){
			(u64)ktap_rand() << 3, ktap_rand(), ktap_rand(),
			(u64)ktap_rand() << 32 }, h);
	}
	if (f & SROCE_OPF_ATMACK) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_ATMACK);
		sroce_atmack_encode(&(struct sroce_atmack){
			(u64)ktap_rand() << 16 }, h);
	}
	if (f & SROCE_OPF_DETH) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_DETH);
		sroce_deth_encode(&(struct sroce_deth){
			ktap_rand(), 0, ktap_rand() }, h);
	}
	if (f & SROCE_OPF_IMMDT) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_IMMDT);
		sroce_immdt_encode(&(struct sroce_immdt){ ktap_rand() }, h);
	}
	if (f & SROCE_OPF_IETH) {
		h = bth + sroce_opcode_hdr_offset(opcode, SROCE_OPF_IETH);
		sroce_ieth_encode(&(struct sroce_ieth){ ktap_rand() }, h);
	}
	if (f & SROCE_OPF_CNP_RESV)
		memset(bth + SROCE_BTH_BYTES, 0, SROCE_CNP_RESV_BYTES);
	memset(bth + hl + paylen, 0, pad);
	sroce_icrc_put(p->b + p->len, ref_icrc(p));
}

static u32 fast_icrc(const struct pkt *p)
{
	return sroce_icrc_linear(p->b, p->len, p->ipv6);
}

/* ---- known answers ---- */

/*
 * The IBTA spec's sample packet (vol. 1, ICRC example), as quoted on
 * linux-rdma by Jason Gunthorpe and Eric Biggers ("RDMA/rxe: handle ICRC
 * correctly on big endian systems", January 2025). It is an InfiniBand
 * local packet: LRH (VL 15, already all ones) 8 bytes, BTH with resv8a
 * 0xff (byte 12), RETH (RDMA WRITE ONLY), 14 bytes of payload and 2 of pad.
 * The spec prints the ICRC as 0x9625B75A: the same bytes, byte-swapped.
 */
static const u8 ibta_sample[52] = {
	0xf0, 0x12, 0x37, 0x5c, 0x00, 0x0e, 0x17, 0xd2,		/* LRH */
	0x0a, 0x20, 0x24, 0x87, 0xff, 0x87, 0xb1, 0xb3,		/* BTH */
	0x00, 0x0d, 0xec, 0x2a,
	0x01, 0x71, 0x0a, 0x1c, 0x01, 0x5d, 0x40, 0x02,		/* RETH */
	0x38, 0xf2, 0x7a, 0x05, 0x00, 0x00, 0x00, 0x0e,
	0xbb, 0x88, 0x4d, 0x85, 0xfd, 0x5c, 0xfb, 0xa4,		/* data */
	0x72, 0x8b, 0xc0, 0x69, 0x0e, 0xd4, 0x00, 0x00,
};

static void test_kat_ibta(void)
{
	u32 crc;
	size_t s;

	crc = sroce_icrc_final(sroce_icrc_update(SROCE_ICRC_INIT, ibta_sample,
						 sizeof(ibta_sample)));
	CHECK_EQ(crc, 0x5ab72596);
	CHECK_EQ(__builtin_bswap32(crc), 0x9625b75a);
	CHECK_EQ(~ref_crc_bits(~0u, ibta_sample, sizeof(ibta_sample)),
		 0x5ab72596);
	for (s = 0; s <= sizeof(ibta_sample); s++) {
		crc = sroce_icrc_update(SROCE_ICRC_INIT, ibta_sample, s);
		crc = sroce_icrc_update(crc, ibta_sample + s,
					sizeof(ibta_sample) - s);
		CHECKF(sroce_icrc_final(crc) == 0x5ab72596, "split %zu", s);
	}
}

/*
 * A CNP captured on a ConnectX-4 Lx, from the IPv4 header to the end of the
 * ICRC (scapy test/contrib/roce.uts). TOS 0xc2, TTL 0x40 and BECN are set
 * on the wire, so the masking is exercised by real hardware output.
 */
static const u8 cx4_cnp[60] = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00,		/* IPv4 */
	0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
	0x0a, 0x00, 0x12, 0x01,
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,		/* UDP */
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,		/* BTH */
	0x00, 0x00, 0x00, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,		/* resv */
	0x82, 0xfd, 0x00, 0x2a,					/* ICRC */
};

static void test_kat_cx4_cnp(void)
{
	u32 crc = sroce_icrc_linear(cx4_cnp, 56, false);
	u8 out[4];

	CHECK_EQ(crc, 0x2a00fd82);
	CHECK_EQ(crc, sroce_icrc_get(cx4_cnp + 56));
	sroce_icrc_put(out, crc);
	CHECK(!memcmp(out, cx4_cnp + 56, 4));
	crc = sroce_icrc_begin(cx4_cnp, false);
	crc = sroce_icrc_update(crc, cx4_cnp + 40, 16);
	CHECK_EQ(sroce_icrc_final(crc), 0x2a00fd82);
}

/*
 * scapy's RoCE example (test/contrib/roce.uts): a UC SEND ONLY over IPv4,
 * whose ICRC scapy computes independently as 0x78f353f3 read big-endian
 * from the wire (wire bytes 78 f3 53 f3). The BTH is built with the
 * encoder and checked byte for byte first.
 */
static void test_kat_scapy_uc(void)
{
	static const u8 want[64] = {
		0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00,	/* IPv4 */
		0x40, 0x11, 0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07,
		0xc0, 0xa8, 0x00, 0x07,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,	/* UDP */
		0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,	/* BTH */
		0x00, 0xcf, 0x17, 0x10,
		0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9,	/* data */
		0x0e, 0x9a, 0x95, 0x50, 0x54, 0x01, 0xbe, 0x88,
		0x5e, 0x50, 0x00, 0x00,				/* + pad */
		0x78, 0xf3, 0x53, 0xf3,				/* ICRC */
	};
	const struct sroce_bth bth = {
		.opcode = SROCE_UC_SEND_ONLY, .mig = 1, .pad = 2,
		.pkey = 0xffff, .dqpn = 211, .psn = 13571856,
	};
	u8 pkt[64];

	memcpy(pkt, want, sizeof(pkt));
	memset(pkt + 28, 0, 12);
	sroce_bth_encode(&bth, pkt + 28);
	CHECK(!memcmp(pkt, want, sizeof(pkt)));
	CHECK_EQ(sroce_icrc_linear(pkt, 60, false), 0xf353f378);
	CHECK_EQ(sroce_icrc_get(want + 60), 0xf353f378);
}

/* ---- the CRC engine ---- */

static void test_table_entries(void)
{
	int k, v;

	for (k = 0; k < 16; k++) {
		for (v = 0; v < 256; v++) {
			u8 in[16] = { (u8)v };

			CHECKF(sroce_crc32_table[k][v] ==
			       ref_crc_bits(0, in, k + 1),
			       "table[%d][0x%02x]", k, v);
		}
	}
}

/* Each byte value in each of the 16 lanes of the slice-by-16 loop */
static void test_every_lane(void)
{
	u8 buf[32];
	int j, v;

	for (j = 0; j < 16; j++) {
		for (v = 0; v < 256; v++) {
			ktap_rand_bytes(buf, sizeof(buf));
			buf[j] = v;
			buf[16 + j] = v ^ 0x5a;
			if (!CHECKF(sroce_icrc_update(0x12345678, buf, 32) ==
				    ref_crc_bits(0x12345678, buf, 32),
				    "lane %d value 0x%02x", j, v))
				return;
		}
	}
}

static void test_update_alignment(void)
{
	static u8 buf[200];
	size_t off, len;

	ktap_rand_bytes(buf, sizeof(buf));
	for (off = 0; off < 16; off++) {
		for (len = 0; len <= 80; len++) {
			u32 seed = ktap_rand();

			CHECKF(sroce_icrc_update(seed, buf + off, len) ==
			       ref_crc_bits(seed, buf + off, len),
			       "offset %zu length %zu", off, len);
		}
	}
	CHECK_EQ(sroce_icrc_update(0xdeadbeef, buf, 0), 0xdeadbeef);
}

/*
 * sroce_icrc_copy(): the same register as sroce_icrc_update(), the bytes
 * copied exactly, and nothing written outside the destination.
 */
static void test_copy(void)
{
	static u8 src[200], dst[216];
	size_t soff, doff, len, i;

	ktap_rand_bytes(src, sizeof(src));
	for (soff = 0; soff < 8; soff++) {
		for (doff = 0; doff < 8; doff++) {
			for (len = 0; len <= 80; len++) {
				u32 seed = ktap_rand();
				u32 crc;

				memset(dst, 0xa5, sizeof(dst));
				crc = sroce_icrc_copy(seed, dst + 8 + doff,
						      src + soff, len);
				if (!CHECKF(crc == ref_crc_bits(seed, src + soff,
								 len),
					    "crc: src+%zu dst+%zu len %zu",
					    soff, doff, len) ||
				    !CHECKF(!memcmp(dst + 8 + doff, src + soff,
						    len),
					    "bytes: src+%zu dst+%zu len %zu",
					    soff, doff, len))
					return;
				for (i = 0; i < sizeof(dst); i++) {
					if (i >= 8 + doff && i < 8 + doff + len)
						continue;
					if (!CHECKF(dst[i] == 0xa5,
						    "byte %zu outside written", i))
						return;
				}
			}
		}
	}
}

/* ---- differential tests against the reference ---- */

static const u8 pay_ops[] = {
	SROCE_RC_SEND_ONLY, SROCE_RC_SEND_FIRST, SROCE_RC_WRITE_ONLY_IMM,
	SROCE_RC_WRITE_FIRST, SROCE_RC_READ_RESPONSE_FIRST,
	SROCE_RC_READ_RESPONSE_MIDDLE, SROCE_RC_SEND_LAST_INV,
	SROCE_UC_SEND_ONLY_IMM, SROCE_UD_SEND_ONLY, SROCE_UD_SEND_ONLY_IMM,
};

static const u8 nopay_ops[] = {
	SROCE_RC_ACKNOWLEDGE, SROCE_RC_ATOMIC_ACKNOWLEDGE,
	SROCE_RC_COMPARE_SWAP, SROCE_RC_FETCH_ADD, SROCE_RC_READ_REQUEST,
	SROCE_CNP,
};

static const size_t big_sizes[] = {
	511, 512, 513, 1023, 1024, 1025, 2048, 4093, 4094, 4095, 4096,
};

static void diff_sizes(bool ipv6)
{
	static struct pkt p;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(pay_ops); i++) {
		for (n = 0; n < 300 + ARRAY_SIZE(big_sizes); n++) {
			size_t len = n < 300 ? n : big_sizes[n - 300];

			build_pkt(&p, ipv6, pay_ops[i], len);
			if (!CHECKF(fast_icrc(&p) == ref_icrc(&p),
				    "%s payload %zu",
				    sroce_opcode_name(pay_ops[i]), len))
				return;
		}
	}
	for (i = 0; i < ARRAY_SIZE(nopay_ops); i++) {
		for (n = 0; n < 50; n++) {
			build_pkt(&p, ipv6, nopay_ops[i], 0);
			CHECKF(fast_icrc(&p) == ref_icrc(&p),
			       "%s", sroce_opcode_name(nopay_ops[i]));
		}
	}
}

static void test_diff_ipv4(void)
{
	diff_sizes(false);
}

static void test_diff_ipv6(void)
{
	diff_sizes(true);
}

/* begin() + two update()s, split at every point after the BTH */
static void split_every_point(bool ipv6, u8 opcode, size_t paylen)
{
	static struct pkt p;
	size_t hdr = sroce_icrc_hdr_bytes(ipv6), s;
	u32 want;

	build_pkt(&p, ipv6, opcode, paylen);
	want = ref_icrc(&p);
	CHECK_EQ(fast_icrc(&p), want);
	for (s = hdr; s <= p.len; s++) {
		u32 crc = sroce_icrc_begin(p.b, ipv6);

		crc = sroce_icrc_update(crc, p.b + hdr, s - hdr);
		crc = sroce_icrc_update(crc, p.b + s, p.len - s);
		if (!CHECKF(sroce_icrc_final(crc) == want, "split at %zu", s))
			return;
	}
}

static void test_scatter_splits(void)
{
	split_every_point(false, SROCE_RC_SEND_ONLY, 0);
	split_every_point(false, SROCE_RC_WRITE_ONLY_IMM, 61);
	split_every_point(true, SROCE_UD_SEND_ONLY_IMM, 200);
	split_every_point(true, SROCE_RC_READ_RESPONSE_FIRST, 1000);
	split_every_point(false, SROCE_RC_COMPARE_SWAP, 0);
}

/* Three segments: every pair of split points of one packet */
static void test_scatter_pairs(void)
{
	static struct pkt p;
	size_t hdr = sroce_icrc_hdr_bytes(true), s1, s2;
	u32 want;

	build_pkt(&p, true, SROCE_RC_WRITE_FIRST, 45);
	want = ref_icrc(&p);
	for (s1 = hdr; s1 <= p.len; s1++) {
		for (s2 = s1; s2 <= p.len; s2++) {
			u32 crc = sroce_icrc_begin(p.b, true);

			crc = sroce_icrc_update(crc, p.b + hdr, s1 - hdr);
			crc = sroce_icrc_update(crc, p.b + s1, s2 - s1);
			crc = sroce_icrc_update(crc, p.b + s2, p.len - s2);
			if (!CHECKF(sroce_icrc_final(crc) == want,
				    "splits %zu %zu", s1, s2))
				return;
		}
	}
}

/* Random packets cut into random segments, empty ones included */
static void test_scatter_random(void)
{
	static struct pkt p;
	int i;

	for (i = 0; i < 300; i++) {
		bool ipv6 = ktap_rand() & 1;
		u8 op = pay_ops[ktap_rand() % ARRAY_SIZE(pay_ops)];
		size_t off = sroce_icrc_hdr_bytes(ipv6);
		u32 crc;

		build_pkt(&p, ipv6, op, ktap_rand() % 1500);
		crc = sroce_icrc_begin(p.b, ipv6);
		while (off < p.len) {
			size_t seg = ktap_rand() % 24;

			if (seg > p.len - off)
				seg = p.len - off;
			crc = sroce_icrc_update(crc, p.b + off, seg);
			off += seg;
		}
		if (!CHECKF(sroce_icrc_final(crc) == ref_icrc(&p),
			    "packet %d", i))
			return;
	}
}

static void test_linear_edges(void)
{
	static struct pkt p;
	u8 copy[MAX_PKT];

	build_pkt(&p, false, SROCE_RC_SEND_ONLY, 0);
	CHECK_EQ(sroce_icrc_hdr_bytes(false), 40);
	CHECK_EQ(sroce_icrc_hdr_bytes(true), 60);
	CHECK_EQ(p.len, 40);
	CHECK_EQ(sroce_icrc_linear(p.b, 39, false), 0);	/* too short */
	CHECK_EQ(sroce_icrc_linear(p.b, 40, false), ref_icrc(&p));
	CHECK_EQ(sroce_icrc_final(sroce_icrc_begin(p.b, false)),
		 ref_icrc(&p));
	memcpy(copy, p.b, p.len);
	sroce_icrc_begin(p.b, false);			/* input untouched */
	CHECK(!memcmp(copy, p.b, p.len));
	build_pkt(&p, true, SROCE_RC_SEND_ONLY, 0);
	CHECK_EQ(sroce_icrc_linear(p.b, 59, true), 0);
	CHECK_EQ(sroce_icrc_linear(p.b, 60, true), ref_icrc(&p));
}

/* ---- masking ---- */

/*
 * Give the bits of the big-endian @n-byte field at @off that are not in
 * @keep_mask many values (all zeros, all ones, random) and require an
 * unchanged ICRC, from both the implementation and the reference.
 */
static void field_masked(bool ipv6, size_t off, size_t n, u32 keep_mask)
{
	static struct pkt p;
	u32 want, v;
	int i;

	build_pkt(&p, ipv6, SROCE_RC_WRITE_ONLY_IMM, 33);
	want = fast_icrc(&p);
	CHECK_EQ(want, ref_icrc(&p));
	for (i = 0; i < 600; i++) {
		u8 save[4];
		u32 old, nv;

		memcpy(save, p.b + off, n);
		v = i < 2 ? (i ? ~0u : 0) : ktap_rand();
		old = n == 1 ? p.b[off] : n == 2 ? sroce_get_be16(p.b + off) :
		      sroce_get_be32(p.b + off);
		nv = (old & keep_mask) | (v & ~keep_mask);
		if (n == 1)
			p.b[off] = nv;
		else if (n == 2)
			sroce_put_be16(p.b + off, nv);
		else
			sroce_put_be32(p.b + off, nv);
		if (!CHECKF(fast_icrc(&p) == want, "value 0x%x", nv) ||
		    !CHECKF(ref_icrc(&p) == want, "reference, value 0x%x",
			    nv))
			return;
		memcpy(p.b + off, save, n);
	}
}

static void test_mask_ipv4_tos(void)
{
	field_masked(false, 1, 1, 0);
}

static void test_mask_ipv4_ttl(void)
{
	field_masked(false, 8, 1, 0);
}

static void test_mask_ipv4_csum(void)
{
	field_masked(false, 10, 2, 0);
}

static void test_mask_ipv4_udp(void)
{
	field_masked(false, 26, 2, 0);
}

static void test_mask_ipv4_bth(void)
{
	field_masked(false, 32, 1, 0);
}

static void test_mask_ipv6_tc(void)
{
	field_masked(true, 0, 4, 0xf00fffffu);
}

static void test_mask_ipv6_flow(void)
{
	field_masked(true, 0, 4, 0xfff00000u);
}

static void test_mask_ipv6_hlim(void)
{
	field_masked(true, 7, 1, 0);
}

static void test_mask_ipv6_udp(void)
{
	field_masked(true, 46, 2, 0);
}

static void test_mask_ipv6_bth(void)
{
	field_masked(true, 52, 1, 0);
}

/* Flip every single bit: masked bits keep the ICRC, all others change it */
static void every_bit(bool ipv6, u8 opcode, size_t paylen)
{
	static struct pkt p;
	size_t off;
	u32 want;
	int bit, changed = 0, kept = 0;

	build_pkt(&p, ipv6, opcode, paylen);
	want = fast_icrc(&p);
	CHECK_EQ(want, ref_icrc(&p));
	for (off = 0; off < p.len; off++) {
		for (bit = 0; bit < 8; bit++) {
			bool masked = masked_bit(&p, off, bit);
			u32 got;

			p.b[off] ^= 1u << bit;
			got = fast_icrc(&p);
			p.b[off] ^= 1u << bit;
			CHECKF((got == want) == masked,
			       "byte %zu bit %d (%s) %s the ICRC", off, bit,
			       masked ? "masked" : "covered",
			       got == want ? "kept" : "changed");
			if (masked)
				kept++;
			else
				changed++;
		}
	}
	/* IPv4: 4 + 2 + 1 masked bytes; IPv6: 3.5 + 1 + 2 + 1 */
	CHECK_EQ(kept, ipv6 ? 60 : 56);
	CHECK_EQ(kept + changed, 8 * p.len);
}

static void test_bits_ipv4_write(void)
{
	every_bit(false, SROCE_RC_WRITE_ONLY_IMM, 37);
}

static void test_bits_ipv4_cnp(void)
{
	every_bit(false, SROCE_CNP, 0);
}

static void test_bits_ipv6_ud(void)
{
	every_bit(true, SROCE_UD_SEND_ONLY_IMM, 22);
}

static void test_bits_ipv6_atomic(void)
{
	every_bit(true, SROCE_RC_COMPARE_SWAP, 0);
}

static const struct ktap_case cases[] = {
	{ "icrc_kat_ibta_sample_0x5ab72596", test_kat_ibta },
	{ "icrc_kat_cx4lx_captured_cnp", test_kat_cx4_cnp },
	{ "icrc_kat_scapy_uc_send_only", test_kat_scapy_uc },
	{ "crc32_table_entries", test_table_entries },
	{ "crc32_every_lane_every_byte", test_every_lane },
	{ "crc32_update_any_alignment_and_length", test_update_alignment },
	{ "crc32_copy_same_crc_same_bytes", test_copy },
	{ "icrc_diff_ipv4_sizes_and_opcodes", test_diff_ipv4 },
	{ "icrc_diff_ipv6_sizes_and_opcodes", test_diff_ipv6 },
	{ "icrc_scatter_every_split_point", test_scatter_splits },
	{ "icrc_scatter_every_pair_of_splits", test_scatter_pairs },
	{ "icrc_scatter_random_segments", test_scatter_random },
	{ "icrc_linear_edges", test_linear_edges },
	{ "icrc_ipv4_tos_masked", test_mask_ipv4_tos },
	{ "icrc_ipv4_ttl_masked", test_mask_ipv4_ttl },
	{ "icrc_ipv4_checksum_masked", test_mask_ipv4_csum },
	{ "icrc_ipv4_udp_checksum_masked", test_mask_ipv4_udp },
	{ "icrc_ipv4_bth_fecn_becn_resv6_masked", test_mask_ipv4_bth },
	{ "icrc_ipv6_traffic_class_masked", test_mask_ipv6_tc },
	{ "icrc_ipv6_flow_label_masked", test_mask_ipv6_flow },
	{ "icrc_ipv6_hop_limit_masked", test_mask_ipv6_hlim },
	{ "icrc_ipv6_udp_checksum_masked", test_mask_ipv6_udp },
	{ "icrc_ipv6_bth_fecn_becn_resv6_masked", test_mask_ipv6_bth },
	{ "icrc_ipv4_every_bit_write_only_imm", test_bits_ipv4_write },
	{ "icrc_ipv4_every_bit_cnp", test_bits_ipv4_cnp },
	{ "icrc_ipv6_every_bit_ud_send_imm", test_bits_ipv6_ud },
	{ "icrc_ipv6_every_bit_cmp_swap", test_bits_ipv6_atomic },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
