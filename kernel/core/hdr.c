// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 transport header encoders and decoders.
 *
 * Pure C: values in, wire bytes out, and back. See hdr.h for the layouts.
 */
#include "hdr.h"

/* Wire offsets inside the extension headers */
#define RETH_OFF_VA		0
#define RETH_OFF_RKEY		8
#define RETH_OFF_LEN		12
#define AETH_OFF_SYN		0
#define AETH_OFF_MSN		1
#define ATMETH_OFF_VA		0
#define ATMETH_OFF_RKEY		8
#define ATMETH_OFF_SWAP_ADD	12
#define ATMETH_OFF_COMPARE	20
#define DETH_OFF_QKEY		0
#define DETH_OFF_RESV		4
#define DETH_OFF_SQPN		5

static u8 flag(u8 v, u8 bit)
{
	return v ? bit : 0;
}

static u8 bit_set(u8 byte, u8 bit)
{
	return (byte & bit) ? 1 : 0;
}

/**
 * sroce_bth_encode() - write a Base Transport Header
 * @bth: the field values; each is masked to its width
 * @buf: SROCE_BTH_BYTES bytes of wire buffer
 */
void sroce_bth_encode(const struct sroce_bth *bth, u8 *buf)
{
	buf[SROCE_BTH_OFF_OPCODE] = bth->opcode;
	buf[SROCE_BTH_OFF_FLAGS] = flag(bth->se, SROCE_BTH_SE) |
		flag(bth->mig, SROCE_BTH_MIG) |
		((bth->pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
		(bth->tver & SROCE_BTH_TVER_MASK);
	sroce_put_be16(buf + SROCE_BTH_OFF_PKEY, bth->pkey);
	buf[SROCE_BTH_OFF_ECN] = flag(bth->fecn, SROCE_BTH_FECN) |
		flag(bth->becn, SROCE_BTH_BECN) |
		(bth->resv6 & SROCE_BTH_RESV6_MASK);
	sroce_put_be24(buf + SROCE_BTH_OFF_DQPN, bth->dqpn & SROCE_QPN_MASK);
	buf[SROCE_BTH_OFF_ACKREQ] = flag(bth->ackreq, SROCE_BTH_ACKREQ) |
		(bth->resv7 & SROCE_BTH_RESV7_MASK);
	sroce_put_be24(buf + SROCE_BTH_OFF_PSN, bth->psn & 0xffffffU);
}

/**
 * sroce_bth_decode() - read a Base Transport Header
 * @buf: SROCE_BTH_BYTES bytes of wire buffer
 * @bth: receives the field values
 */
void sroce_bth_decode(const u8 *buf, struct sroce_bth *bth)
{
	u8 flags = buf[SROCE_BTH_OFF_FLAGS];
	u8 ecn = buf[SROCE_BTH_OFF_ECN];
	u8 ack = buf[SROCE_BTH_OFF_ACKREQ];

	bth->opcode = buf[SROCE_BTH_OFF_OPCODE];
	bth->se = bit_set(flags, SROCE_BTH_SE);
	bth->mig = bit_set(flags, SROCE_BTH_MIG);
	bth->pad = (flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	bth->tver = flags & SROCE_BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(buf + SROCE_BTH_OFF_PKEY);
	bth->fecn = bit_set(ecn, SROCE_BTH_FECN);
	bth->becn = bit_set(ecn, SROCE_BTH_BECN);
	bth->resv6 = ecn & SROCE_BTH_RESV6_MASK;
	bth->dqpn = sroce_get_be24(buf + SROCE_BTH_OFF_DQPN);
	bth->ackreq = bit_set(ack, SROCE_BTH_ACKREQ);
	bth->resv7 = ack & SROCE_BTH_RESV7_MASK;
	bth->psn = sroce_get_be24(buf + SROCE_BTH_OFF_PSN);
}

/**
 * sroce_reth_encode() - write an RDMA Extended Transport Header
 * @reth: the field values
 * @buf: SROCE_RETH_BYTES bytes of wire buffer
 */
void sroce_reth_encode(const struct sroce_reth *reth, u8 *buf)
{
	sroce_put_be64(buf + RETH_OFF_VA, reth->va);
	sroce_put_be32(buf + RETH_OFF_RKEY, reth->rkey);
	sroce_put_be32(buf + RETH_OFF_LEN, reth->len);
}

/**
 * sroce_reth_decode() - read an RDMA Extended Transport Header
 * @buf: SROCE_RETH_BYTES bytes of wire buffer
 * @reth: receives the field values
 */
void sroce_reth_decode(const u8 *buf, struct sroce_reth *reth)
{
	reth->va = sroce_get_be64(buf + RETH_OFF_VA);
	reth->rkey = sroce_get_be32(buf + RETH_OFF_RKEY);
	reth->len = sroce_get_be32(buf + RETH_OFF_LEN);
}

/**
 * sroce_aeth_encode() - write an ACK Extended Transport Header
 * @aeth: the field values; the MSN is masked to 24 bits
 * @buf: SROCE_AETH_BYTES bytes of wire buffer
 */
void sroce_aeth_encode(const struct sroce_aeth *aeth, u8 *buf)
{
	buf[AETH_OFF_SYN] = aeth->syndrome;
	sroce_put_be24(buf + AETH_OFF_MSN, aeth->msn & SROCE_MSN_MASK);
}

/**
 * sroce_aeth_decode() - read an ACK Extended Transport Header
 * @buf: SROCE_AETH_BYTES bytes of wire buffer
 * @aeth: receives the field values
 */
void sroce_aeth_decode(const u8 *buf, struct sroce_aeth *aeth)
{
	aeth->syndrome = buf[AETH_OFF_SYN];
	aeth->msn = sroce_get_be24(buf + AETH_OFF_MSN);
}

/**
 * sroce_atmeth_encode() - write an Atomic Extended Transport Header
 * @atm: the field values
 * @buf: SROCE_ATMETH_BYTES bytes of wire buffer
 */
void sroce_atmeth_encode(const struct sroce_atmeth *atm, u8 *buf)
{
	sroce_put_be64(buf + ATMETH_OFF_VA, atm->va);
	sroce_put_be32(buf + ATMETH_OFF_RKEY, atm->rkey);
	sroce_put_be64(buf + ATMETH_OFF_SWAP_ADD, atm->swap_add);
	sroce_put_be64(buf + ATMETH_OFF_COMPARE, atm->compare);
}

/**
 * sroce_atmeth_decode() - read an Atomic Extended Transport Header
 * @buf: SROCE_ATMETH_BYTES bytes of wire buffer
 * @atm: receives the field values
 */
void sroce_atmeth_decode(const u8 *buf, struct sroce_atmeth *atm)
{
	atm->va = sroce_get_be64(buf + ATMETH_OFF_VA);
	atm->rkey = sroce_get_be32(buf + ATMETH_OFF_RKEY);
	atm->swap_add = sroce_get_be64(buf + ATMETH_OFF_SWAP_ADD);
	atm->compare = sroce_get_be64(buf + ATMETH_OFF_COMPARE);
}

/**
 * sroce_atmack_encode() - write an Atomic Acknowledge Extended Header
 * @ack: the field values
 * @buf: SROCE_ATMACK_BYTES bytes of wire buffer
 */
void sroce_atmack_encode(const struct sroce_atmack *ack, u8 *buf)
{
	sroce_put_be64(buf, ack->orig);
}

/**
 * sroce_atmack_decode() - read an Atomic Acknowledge Extended Header
 * @buf: SROCE_ATMACK_BYTES bytes of wire buffer
 * @ack: receives the field values
 */
void sroce_atmack_decode(const u8 *buf, struct sroce_atmack *ack)
{
	ack->orig = sroce_get_be64(buf);
}

/**
 * sroce_deth_encode() - write a Datagram Extended Transport Header
 * @deth: the field values; the source QPN is masked to 24 bits
 * @buf: SROCE_DETH_BYTES bytes of wire buffer
 */
void sroce_deth_encode(const struct sroce_deth *deth, u8 *buf)
{
	sroce_put_be32(buf + DETH_OFF_QKEY, deth->qkey);
	buf[DETH_OFF_RESV] = deth->resv;
	sroce_put_be24(buf + DETH_OFF_SQPN, deth->sqpn & SROCE_QPN_MASK);
}

/**
 * sroce_deth_decode() - read a Datagram Extended Transport Header
 * @buf: SROCE_DETH_BYTES bytes of wire buffer
 * @deth: receives the field values
 */
void sroce_deth_decode(const u8 *buf, struct sroce_deth *deth)
{
	deth->qkey = sroce_get_be32(buf + DETH_OFF_QKEY);
	deth->resv = buf[DETH_OFF_RESV];
	deth->sqpn = sroce_get_be24(buf + DETH_OFF_SQPN);
}

/**
 * sroce_immdt_encode() - write an Immediate Data Extended Header
 * @imm: the field values
 * @buf: SROCE_IMMDT_BYTES bytes of wire buffer
 */
void sroce_immdt_encode(const struct sroce_immdt *imm, u8 *buf)
{
	sroce_put_be32(buf, imm->imm);
}

/**
 * sroce_immdt_decode() - read an Immediate Data Extended Header
 * @buf: SROCE_IMMDT_BYTES bytes of wire buffer
 * @imm: receives the field values
 */
void sroce_immdt_decode(const u8 *buf, struct sroce_immdt *imm)
{
	imm->imm = sroce_get_be32(buf);
}

/**
 * sroce_ieth_encode() - write an Invalidate Extended Transport Header
 * @ieth: the field values
 * @buf: SROCE_IETH_BYTES bytes of wire buffer
 */
void sroce_ieth_encode(const struct sroce_ieth *ieth, u8 *buf)
{
	sroce_put_be32(buf, ieth->rkey);
}

/**
 * sroce_ieth_decode() - read an Invalidate Extended Transport Header
 * @buf: SROCE_IETH_BYTES bytes of wire buffer
 * @ieth: receives the field values
 */
void sroce_ieth_decode(const u8 *buf, struct sroce_ieth *ieth)
{
	ieth->rkey = sroce_get_be32(buf);
}

/**
 * sroce_cnp_build() - write the transport part of a RoCEv2 CNP
 * @buf: SROCE_CNP_BYTES bytes of wire buffer
 * @pkey: partition key to put in the BTH
 * @dqpn: the QP whose sender is asked to slow down
 *
 * Writes a BTH with opcode 0x81, BECN set, PSN 0 and every other field 0,
 * followed by 16 reserved zero bytes (RoCEv2 annex A17.9.2). The ICRC that
 * follows is not written.
 *
 * Return: the number of bytes written, SROCE_CNP_BYTES.
 */
size_t sroce_cnp_build(u8 *buf, u16 pkey, u32 dqpn)
{
	const struct sroce_bth bth = {
		.opcode = SROCE_OPCODE_CNP,
		.pkey = pkey,
		.becn = 1,
		.dqpn = dqpn,
	};

	sroce_bth_encode(&bth, buf);
	memset(buf + SROCE_BTH_BYTES, 0, SROCE_CNP_RESV_BYTES);
	return SROCE_CNP_BYTES;
}

/* RNR NAK timer codes (IBTA table 45), in microseconds */
static const u32 rnr_usec[32] = {
	655360,     10,     20,     30,     40,     60,     80,    120,
	   160,    240,    320,    480,    640,    960,   1280,   1920,
	  2560,   3840,   5120,   7680,  10240,  15360,  20480,  30720,
	 40960,  61440,  81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * sroce_rnr_timer_usec() - decode an RNR NAK timer code
 * @code: the 5-bit timer field of an RNR NAK syndrome; higher bits ignored
 *
 * Return: the minimum RNR delay in microseconds.
 */
u32 sroce_rnr_timer_usec(u8 code)
{
	return rnr_usec[code & SROCE_AETH_VALUE_MASK];
}
