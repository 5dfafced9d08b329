/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 transport headers (IBTA vol. 1 ch. 9 and annex A17).
 *
 * Every header has a plain struct with host-order fields, a size constant
 * and an encode/decode pair working on raw wire bytes. Fields narrower than
 * their C type are masked to their width on encode; one-bit flags are
 * encoded as set when non-zero and decoded as 0 or 1.
 */
#ifndef SROCE_CORE_HDR_H
#define SROCE_CORE_HDR_H

#include "core_types.h"

/* RoCEv2 UDP destination port */
#define SROCE_ROCEV2_PORT	4791

/* Header sizes in bytes */
#define SROCE_BTH_BYTES		12
#define SROCE_RETH_BYTES	16
#define SROCE_AETH_BYTES	4
#define SROCE_ATMETH_BYTES	28
#define SROCE_ATMACK_BYTES	8
#define SROCE_DETH_BYTES	8
#define SROCE_IMMDT_BYTES	4
#define SROCE_IETH_BYTES	4

/* CNP: a BTH with opcode 0x81 followed by 16 reserved (zero) bytes */
#define SROCE_OPCODE_CNP	0x81

/*
 * P_Keys: the low 15 bits name a partition, the top bit says full (1) or
 * limited (0) membership. RoCE ports have only the default partition.
 */
#define SROCE_PKEY_DEFAULT	0xffff	/* default partition, full member */
#define SROCE_PKEY_PARTITION	0x7fff
#define SROCE_CNP_RESV_BYTES	16
#define SROCE_CNP_BYTES		(SROCE_BTH_BYTES + SROCE_CNP_RESV_BYTES)

/* Field limits */
#define SROCE_QPN_MASK		0xffffffU
#define SROCE_MSN_MASK		0xffffffU
#define SROCE_BTH_TVER		0	/* the only transport version */
#define SROCE_DEFAULT_PKEY	0xffff

/* Big-endian accessors for raw wire bytes */
static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 sroce_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return (u64)sroce_get_be32(p) << 32 | sroce_get_be32(p + 4);
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, v >> 32);
	sroce_put_be32(p + 4, v & 0xffffffffU);
}

/**
 * struct sroce_bth - Base Transport Header (12 bytes)
 * @opcode: transport type (bits 7-5) and operation (bits 4-0)
 * @se: solicited event
 * @mig: migration state
 * @pad: number of pad bytes after the payload (0-3)
 * @tver: transport header version (4 bits, 0)
 * @pkey: partition key
 * @fecn: forward explicit congestion notification (RoCEv2)
 * @becn: backward explicit congestion notification (RoCEv2)
 * @resv6: reserved, 6 bits
 * @dqpn: destination QP number (24 bits)
 * @ackreq: acknowledge request
 * @resv7: reserved, 7 bits
 * @psn: packet sequence number (24 bits)
 *
 * Byte 4 (FECN, BECN, resv6) is the byte masked to all ones in the ICRC.
 */
struct sroce_bth {
	u8 opcode;
	u8 se;
	u8 mig;
	u8 pad;
	u8 tver;
	u16 pkey;
	u8 fecn;
	u8 becn;
	u8 resv6;
	u32 dqpn;
	u8 ackreq;
	u8 resv7;
	u32 psn;
};

/* Wire offsets and bits inside the BTH, for in-place access */
#define SROCE_BTH_OFF_OPCODE	0
#define SROCE_BTH_OFF_FLAGS	1	/* SE, M, PadCnt, TVer */
#define SROCE_BTH_OFF_PKEY	2
#define SROCE_BTH_OFF_ECN	4	/* FECN, BECN, resv6 */
#define SROCE_BTH_OFF_DQPN	5
#define SROCE_BTH_OFF_ACKREQ	8	/* AckReq, resv7 */
#define SROCE_BTH_OFF_PSN	9
#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_FECN		0x80
#define SROCE_BTH_BECN		0x40
#define SROCE_BTH_RESV6_MASK	0x3f
#define SROCE_BTH_ACKREQ	0x80
#define SROCE_BTH_RESV7_MASK	0x7f

static inline u8 sroce_bth_get_opcode(const u8 *bth)
{
	return bth[SROCE_BTH_OFF_OPCODE];
}

static inline u8 sroce_bth_get_pad(const u8 *bth)
{
	return (bth[SROCE_BTH_OFF_FLAGS] & SROCE_BTH_PAD_MASK) >>
	       SROCE_BTH_PAD_SHIFT;
}

static inline u32 sroce_bth_get_dqpn(const u8 *bth)
{
	return sroce_get_be24(bth + SROCE_BTH_OFF_DQPN);
}

static inline u32 sroce_bth_get_psn(const u8 *bth)
{
	return sroce_get_be24(bth + SROCE_BTH_OFF_PSN);
}

/**
 * struct sroce_reth - RDMA Extended Transport Header (16 bytes)
 * @va: virtual address
 * @rkey: remote key
 * @len: DMA length of the whole message
 */
struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 len;
};

/**
 * struct sroce_aeth - ACK Extended Transport Header (4 bytes)
 * @syndrome: see the sroce_aeth_syn_*() helpers
 * @msn: message sequence number (24 bits)
 */
struct sroce_aeth {
	u8 syndrome;
	u32 msn;
};

/**
 * struct sroce_atmeth - Atomic Extended Transport Header (28 bytes)
 * @va: virtual address (8-byte aligned)
 * @rkey: remote key
 * @swap_add: swap data (compare & swap) or add data (fetch & add)
 * @compare: compare data (compare & swap only)
 */
struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

/**
 * struct sroce_atmack - Atomic Acknowledge Extended Transport Header
 * @orig: original remote data (8 bytes on the wire)
 */
struct sroce_atmack {
	u64 orig;
};

/**
 * struct sroce_deth - Datagram Extended Transport Header (8 bytes)
 * @qkey: queue key
 * @resv: reserved, 8 bits
 * @sqpn: source QP number (24 bits)
 */
struct sroce_deth {
	u32 qkey;
	u8 resv;
	u32 sqpn;
};

/**
 * struct sroce_immdt - Immediate Data Extended Transport Header (4 bytes)
 * @imm: the immediate data, as read big-endian from the wire
 */
struct sroce_immdt {
	u32 imm;
};

/**
 * struct sroce_ieth - Invalidate Extended Transport Header (4 bytes)
 * @rkey: the remote key to invalidate
 */
struct sroce_ieth {
	u32 rkey;
};

/* Wire offsets inside the RETH and the AETH */
#define SROCE_RETH_OFF_VA	0
#define SROCE_RETH_OFF_RKEY	8
#define SROCE_RETH_OFF_LEN	12
#define SROCE_AETH_OFF_SYN	0
#define SROCE_AETH_OFF_MSN	1

/*
 * The encoders and decoders of the headers every packet has are inline:
 * each runs once or twice per packet.
 */
static inline u8 sroce_hdr_flag(u8 v, u8 bit)
{
	return v ? bit : 0;
}

static inline u8 sroce_hdr_bit(u8 byte, u8 bit)
{
	return (byte & bit) ? 1 : 0;
}

/**
 * sroce_bth_encode() - write a Base Transport Header
 * @bth: the field values; each is masked to its width
 * @buf: SROCE_BTH_BYTES bytes of wire buffer
 */
static inline void sroce_bth_encode(const struct sroce_bth *bth, u8 *buf)
{
	buf[SROCE_BTH_OFF_OPCODE] = bth->opcode;
	buf[SROCE_BTH_OFF_FLAGS] = sroce_hdr_flag(bth->se, SROCE_BTH_SE) |
		sroce_hdr_flag(bth->mig, SROCE_BTH_MIG) |
		((bth->pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
		(bth->tver & SROCE_BTH_TVER_MASK);
	sroce_put_be16(buf + SROCE_BTH_OFF_PKEY, bth->pkey);
	buf[SROCE_BTH_OFF_ECN] = sroce_hdr_flag(bth->fecn, SROCE_BTH_FECN) |
		sroce_hdr_flag(bth->becn, SROCE_BTH_BECN) |
		(bth->resv6 & SROCE_BTH_RESV6_MASK);
	sroce_put_be24(buf + SROCE_BTH_OFF_DQPN, bth->dqpn & SROCE_QPN_MASK);
	buf[SROCE_BTH_OFF_ACKREQ] =
		sroce_hdr_flag(bth->ackreq, SROCE_BTH_ACKREQ) |
		(bth->resv7 & SROCE_BTH_RESV7_MASK);
	sroce_put_be24(buf + SROCE_BTH_OFF_PSN, bth->psn & 0xffffffU);
}

/**
 * sroce_bth_decode() - read a Base Transport Header
 * @buf: SROCE_BTH_BYTES bytes of wire buffer
 * @bth: receives the field values
 */
static inline void sroce_bth_decode(const u8 *buf, struct sroce_bth *bth)
{
	u8 flags = buf[SROCE_BTH_OFF_FLAGS];
	u8 ecn = buf[SROCE_BTH_OFF_ECN];
	u8 ack = buf[SROCE_BTH_OFF_ACKREQ];

	bth->opcode = buf[SROCE_BTH_OFF_OPCODE];
	bth->se = sroce_hdr_bit(flags, SROCE_BTH_SE);
	bth->mig = sroce_hdr_bit(flags, SROCE_BTH_MIG);
	bth->pad = (flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	bth->tver = flags & SROCE_BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(buf + SROCE_BTH_OFF_PKEY);
	bth->fecn = sroce_hdr_bit(ecn, SROCE_BTH_FECN);
	bth->becn = sroce_hdr_bit(ecn, SROCE_BTH_BECN);
	bth->resv6 = ecn & SROCE_BTH_RESV6_MASK;
	bth->dqpn = sroce_get_be24(buf + SROCE_BTH_OFF_DQPN);
	bth->ackreq = sroce_hdr_bit(ack, SROCE_BTH_ACKREQ);
	bth->resv7 = ack & SROCE_BTH_RESV7_MASK;
	bth->psn = sroce_get_be24(buf + SROCE_BTH_OFF_PSN);
}

/**
 * sroce_reth_encode() - write an RDMA Extended Transport Header
 * @reth: the field values
 * @buf: SROCE_RETH_BYTES bytes of wire buffer
 */
static inline void sroce_reth_encode(const struct sroce_reth *reth, u8 *buf)
{
	sroce_put_be64(buf + SROCE_RETH_OFF_VA, reth->va);
	sroce_put_be32(buf + SROCE_RETH_OFF_RKEY, reth->rkey);
	sroce_put_be32(buf + SROCE_RETH_OFF_LEN, reth->len);
}

/**
 * sroce_reth_decode() - read an RDMA Extended Transport Header
 * @buf: SROCE_RETH_BYTES bytes of wire buffer
 * @reth: receives the field values
 */
static inline void sroce_reth_decode(const u8 *buf, struct sroce_reth *reth)
{
	reth->va = sroce_get_be64(buf + SROCE_RETH_OFF_VA);
	reth->rkey = sroce_get_be32(buf + SROCE_RETH_OFF_RKEY);
	reth->len = sroce_get_be32(buf + SROCE_RETH_OFF_LEN);
}

/**
 * sroce_aeth_encode() - write an ACK Extended Transport Header
 * @aeth: the field values; the MSN is masked to 24 bits
 * @buf: SROCE_AETH_BYTES bytes of wire buffer
 */
static inline void sroce_aeth_encode(const struct sroce_aeth *aeth, u8 *buf)
{
	buf[SROCE_AETH_OFF_SYN] = aeth->syndrome;
	sroce_put_be24(buf + SROCE_AETH_OFF_MSN, aeth->msn & SROCE_MSN_MASK);
}

/**
 * sroce_aeth_decode() - read an ACK Extended Transport Header
 * @buf: SROCE_AETH_BYTES bytes of wire buffer
 * @aeth: receives the field values
 */
static inline void sroce_aeth_decode(const u8 *buf, struct sroce_aeth *aeth)
{
	aeth->syndrome = buf[SROCE_AETH_OFF_SYN];
	aeth->msn = sroce_get_be24(buf + SROCE_AETH_OFF_MSN);
}

/**
 * sroce_immdt_encode() - write an Immediate Data Extended Header
 * @imm: the field values
 * @buf: SROCE_IMMDT_BYTES bytes of wire buffer
 */
static inline void sroce_immdt_encode(const struct sroce_immdt *imm, u8 *buf)
{
	sroce_put_be32(buf, imm->imm);
}

/**
 * sroce_immdt_decode() - read an Immediate Data Extended Header
 * @buf: SROCE_IMMDT_BYTES bytes of wire buffer
 * @imm: receives the field values
 */
static inline void sroce_immdt_decode(const u8 *buf, struct sroce_immdt *imm)
{
	imm->imm = sroce_get_be32(buf);
}

/**
 * sroce_ieth_encode() - write an Invalidate Extended Transport Header
 * @ieth: the field values
 * @buf: SROCE_IETH_BYTES bytes of wire buffer
 */
static inline void sroce_ieth_encode(const struct sroce_ieth *ieth, u8 *buf)
{
	sroce_put_be32(buf, ieth->rkey);
}

/**
 * sroce_ieth_decode() - read an Invalidate Extended Transport Header
 * @buf: SROCE_IETH_BYTES bytes of wire buffer
 * @ieth: receives the field values
 */
static inline void sroce_ieth_decode(const u8 *buf, struct sroce_ieth *ieth)
{
	ieth->rkey = sroce_get_be32(buf);
}

void sroce_atmeth_encode(const struct sroce_atmeth *atm, u8 *buf);
void sroce_atmeth_decode(const u8 *buf, struct sroce_atmeth *atm);
void sroce_atmack_encode(const struct sroce_atmack *ack, u8 *buf);
void sroce_atmack_decode(const u8 *buf, struct sroce_atmack *ack);
void sroce_deth_encode(const struct sroce_deth *deth, u8 *buf);
void sroce_deth_decode(const u8 *buf, struct sroce_deth *deth);

size_t sroce_cnp_build(u8 *buf, u16 pkey, u32 dqpn);
u32 sroce_rnr_timer_usec(u8 code);

/*
 * AETH syndrome (IBTA 9.7.5.1): bit 7 reserved (0), bits 6-5 the type,
 * bits 4-0 a value whose meaning depends on the type.
 */
enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,	/* value: credit count */
	SROCE_AETH_RNR_NAK	= 1,	/* value: RNR timer code */
	SROCE_AETH_RESERVED	= 2,
	SROCE_AETH_NAK		= 3,	/* value: enum sroce_nak_code */
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR		= 0,
	SROCE_NAK_INVALID_REQ		= 1,
	SROCE_NAK_REM_ACCESS_ERR	= 2,
	SROCE_NAK_REM_OP_ERR		= 3,
	SROCE_NAK_INVALID_RD_REQ	= 4,
};

#define SROCE_AETH_TYPE_SHIFT	5
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f
/* Credit count code meaning "no credit information" (end-to-end flow off) */
#define SROCE_AETH_CREDIT_INVALID	0x1f

static inline u8 sroce_aeth_syn(enum sroce_aeth_type type, u8 value)
{
	return (u8)(((unsigned int)type << SROCE_AETH_TYPE_SHIFT) &
		    SROCE_AETH_TYPE_MASK) | (value & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_ack(u8 credits)
{
	return sroce_aeth_syn(SROCE_AETH_ACK, credits);
}

static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return sroce_aeth_syn(SROCE_AETH_RNR_NAK, timer_code);
}

static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return sroce_aeth_syn(SROCE_AETH_NAK, (u8)code);
}

static inline enum sroce_aeth_type sroce_aeth_syn_type(u8 syndrome)
{
	return (enum sroce_aeth_type)((syndrome & SROCE_AETH_TYPE_MASK) >>
				      SROCE_AETH_TYPE_SHIFT);
}

static inline u8 sroce_aeth_syn_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

#endif /* SROCE_CORE_HDR_H */
