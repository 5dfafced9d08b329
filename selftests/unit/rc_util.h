/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rc_util.h: what test_rc.c and test_rc_comp.c share: short names for
 * PSNs and AETH syndromes, and a parsed packet made to order.
 */
#ifndef SROCE_TEST_RC_UTIL_H
#define SROCE_TEST_RC_UTIL_H

#include "opcode.h"
#include "psn.h"
#include "rc.h"

#define M 0xffffffu		/* largest PSN */
#define H 0x800000u		/* 2^23 */
#define NONE SROCE_OPCODE_NONE
#define ACK31 0x1f		/* ACK, no credit information */
#define NAK(code) (0x60 | (code))
#define RNR(code) (0x20 | (code))

static inline struct sroce_pkt mkpkt(u8 opcode, u32 psn, u32 paylen,
				     bool ackreq)
{
	struct sroce_pkt p = { 0 };

	p.bth.opcode = opcode;
	p.bth.psn = psn;
	p.bth.ackreq = ackreq;
	p.flags = sroce_opcode_flags(opcode);
	p.hdr_len = sroce_opcode_hdr_len(opcode);
	p.paylen = paylen;
	return p;
}

#endif /* SROCE_TEST_RC_UTIL_H */
