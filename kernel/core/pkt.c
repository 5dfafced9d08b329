// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pkt.c: structural checks of a received RoCEv2 transport packet.
 */
#include "icrc.h"
#include "opcode.h"
#include "pkt.h"

/**
 * sroce_pkt_parse() - check a packet's structure and decode its BTH
 * @buf: the packet from the BTH on
 * @len: bytes from the BTH through the ICRC
 * @pkt: filled in when the packet is well formed
 *
 * Checks what needs no queue pair state: lengths, transport version,
 * opcode, and that payload plus pad is a whole number of 4-byte words
 * (that is what the pad is for), with no payload where the opcode carries
 * none and no more pad than payload; and the P_Key: a RoCE port has only
 * the default partition (0xffff, IBTA 10.9.1), whose full and limited
 * (0x7fff) members both match it. The ICRC is the caller's to check.
 *
 * Return: SROCE_PKT_OK or the reason for refusing the packet.
 */
enum sroce_pkt_err sroce_pkt_parse(const u8 *buf, size_t len,
				   struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info;
	size_t body;

	if (len < SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return SROCE_PKT_SHORT;
	sroce_bth_decode(buf, &pkt->bth);
	if (pkt->bth.tver)
		return SROCE_PKT_BAD_TVER;
	if ((pkt->bth.pkey & SROCE_PKEY_PARTITION) !=
	    (SROCE_PKEY_DEFAULT & SROCE_PKEY_PARTITION))
		return SROCE_PKT_BAD_PKEY;
	info = sroce_opcode_info(pkt->bth.opcode);
	if (!info)
		return SROCE_PKT_BAD_OPCODE;
	if (len < (size_t)info->hdr_len + SROCE_ICRC_BYTES)
		return SROCE_PKT_SHORT;

	body = len - info->hdr_len - SROCE_ICRC_BYTES;
	if (body & 3 || pkt->bth.pad > body)
		return SROCE_PKT_BAD_LENGTH;
	if (!(info->flags & SROCE_OPF_PAYLOAD) && body)
		return SROCE_PKT_BAD_LENGTH;

	pkt->flags = info->flags;
	pkt->hdr_len = info->hdr_len;
	pkt->paylen = body - pkt->bth.pad;
	pkt->more = false;
	pkt->crc_due = false;
	pkt->crc = 0;
	return SROCE_PKT_OK;
}
