// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 transport header encoders and decoders: those of the headers
 * fewer packets carry (the per-packet ones are inline in hdr.h), the CNP
 * and the RNR timer table.
 *
 * Pure C: values in, wire bytes out, and back. See hdr.h for the layouts.
 */
#include "hdr.h"

/* Wire offsets inside the extension headers */
#define ATMETH_OFF_VA		0
#define ATMETH_OFF_RKEY		8
#define ATMETH_OFF_SWAP_ADD	12
#define ATMETH_OFF_COMPARE	20
#define DETH_OFF_QKEY		0
#define DETH_OFF_RESV		4
#define DETH_OFF_SQPN		5

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
