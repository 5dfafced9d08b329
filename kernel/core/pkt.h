/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pkt.h: the first check of a received RoCEv2 transport packet, before
 * anything looks at a queue pair: is it well formed at all?
 */
#ifndef SROCE_CORE_PKT_H
#define SROCE_CORE_PKT_H

#include "core_types.h"
#include "hdr.h"

/* Why a packet was refused; each has a counter. */
enum sroce_pkt_err {
	SROCE_PKT_OK = 0,
	SROCE_PKT_SHORT,	/* shorter than its headers and ICRC */
	SROCE_PKT_BAD_TVER,	/* transport header version is not 0 */
	SROCE_PKT_BAD_OPCODE,	/* not an RC, UC, UD or CNP opcode */
	SROCE_PKT_BAD_LENGTH,	/* payload and pad do not add up */
	SROCE_PKT_BAD_PKEY,	/* not the default partition's P_Key */
};

/**
 * struct sroce_pkt - what sroce_pkt_parse() found
 * @bth: the decoded BTH
 * @flags: SROCE_OPF_* of the opcode
 * @hdr_len: BTH and extension headers, in bytes
 * @paylen: payload bytes, pad excluded
 * @more: false from the parser; the receive path sets it when the next
 *	  packet it takes is a request to the same QP (sroce_rc_ack_now())
 * @crc_due: false from the parser; the receive path sets it when it left
 *	     the ICRC check to the engine, to be done as the payload is
 *	     copied (recv.c, sroce_rcv_crc_late())
 * @crc: with @crc_due, the CRC register after the BTH
 */
struct sroce_pkt {
	struct sroce_bth bth;
	u32 flags;
	u32 hdr_len;
	u32 paylen;
	bool more;
	bool crc_due;
	u32 crc;
};

enum sroce_pkt_err sroce_pkt_parse(const u8 *buf, size_t len,
				   struct sroce_pkt *pkt);

#endif /* SROCE_CORE_PKT_H */
