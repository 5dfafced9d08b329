/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * BTH opcodes of the RC, UC and UD transports (IBTA 9.2, table 38) and the
 * RoCEv2 CNP, with what follows the BTH and where each packet stands in a
 * message. RD opcodes, manufacturer-specific opcodes and every opcode not
 * listed here are invalid.
 */
#ifndef SROCE_CORE_OPCODE_H
#define SROCE_CORE_OPCODE_H

#include "core_types.h"

/* Transport type: bits 7-5 of the opcode */
#define SROCE_OPCODE_TRANSPORT_MASK	0xe0
#define SROCE_OPCODE_RC			0x00
#define SROCE_OPCODE_UC			0x20
#define SROCE_OPCODE_UD			0x60

enum sroce_opcode {
	SROCE_RC_SEND_FIRST		= 0x00,
	SROCE_RC_SEND_MIDDLE		= 0x01,
	SROCE_RC_SEND_LAST		= 0x02,
	SROCE_RC_SEND_LAST_IMM		= 0x03,
	SROCE_RC_SEND_ONLY		= 0x04,
	SROCE_RC_SEND_ONLY_IMM		= 0x05,
	SROCE_RC_WRITE_FIRST		= 0x06,
	SROCE_RC_WRITE_MIDDLE		= 0x07,
	SROCE_RC_WRITE_LAST		= 0x08,
	SROCE_RC_WRITE_LAST_IMM		= 0x09,
	SROCE_RC_WRITE_ONLY		= 0x0a,
	SROCE_RC_WRITE_ONLY_IMM		= 0x0b,
	SROCE_RC_READ_REQUEST		= 0x0c,
	SROCE_RC_READ_RESPONSE_FIRST	= 0x0d,
	SROCE_RC_READ_RESPONSE_MIDDLE	= 0x0e,
	SROCE_RC_READ_RESPONSE_LAST	= 0x0f,
	SROCE_RC_READ_RESPONSE_ONLY	= 0x10,
	SROCE_RC_ACKNOWLEDGE		= 0x11,
	SROCE_RC_ATOMIC_ACKNOWLEDGE	= 0x12,
	SROCE_RC_COMPARE_SWAP		= 0x13,
	SROCE_RC_FETCH_ADD		= 0x14,
	SROCE_RC_SEND_LAST_INV		= 0x15,
	SROCE_RC_SEND_ONLY_INV		= 0x16,

	SROCE_UC_SEND_FIRST		= 0x20,
	SROCE_UC_SEND_MIDDLE		= 0x21,
	SROCE_UC_SEND_LAST		= 0x22,
	SROCE_UC_SEND_LAST_IMM		= 0x23,
	SROCE_UC_SEND_ONLY		= 0x24,
	SROCE_UC_SEND_ONLY_IMM		= 0x25,
	SROCE_UC_WRITE_FIRST		= 0x26,
	SROCE_UC_WRITE_MIDDLE		= 0x27,
	SROCE_UC_WRITE_LAST		= 0x28,
	SROCE_UC_WRITE_LAST_IMM		= 0x29,
	SROCE_UC_WRITE_ONLY		= 0x2a,
	SROCE_UC_WRITE_ONLY_IMM		= 0x2b,

	SROCE_UD_SEND_ONLY		= 0x64,
	SROCE_UD_SEND_ONLY_IMM		= 0x65,

	SROCE_CNP			= 0x81,

	/* Not an opcode: "no message in progress" for sroce_opcode_seq_ok() */
	SROCE_OPCODE_NONE		= 0xff,
};

/* Properties of an opcode (struct sroce_opcode_info.flags) */
enum sroce_opcode_flags {
	/* extension headers following the BTH */
	SROCE_OPF_RETH		= 0x00000001,
	SROCE_OPF_AETH		= 0x00000002,
	SROCE_OPF_ATMETH	= 0x00000004,
	SROCE_OPF_ATMACK	= 0x00000008,
	SROCE_OPF_DETH		= 0x00000010,
	SROCE_OPF_IMMDT		= 0x00000020,
	SROCE_OPF_IETH		= 0x00000040,
	SROCE_OPF_CNP_RESV	= 0x00000080,	/* the 16 reserved CNP bytes */

	SROCE_OPF_PAYLOAD	= 0x00000100,	/* carries a payload */

	/* position in a message; ONLY is FIRST | LAST */
	SROCE_OPF_FIRST		= 0x00001000,
	SROCE_OPF_MIDDLE	= 0x00002000,
	SROCE_OPF_LAST		= 0x00004000,
	SROCE_OPF_ONLY		= 0x00005000,

	/* direction */
	SROCE_OPF_REQ		= 0x00010000,
	SROCE_OPF_RESP		= 0x00020000,

	/* kind of operation */
	SROCE_OPF_SEND		= 0x00100000,
	SROCE_OPF_WRITE		= 0x00200000,
	SROCE_OPF_READ		= 0x00400000,
	SROCE_OPF_ATOMIC	= 0x00800000,
	SROCE_OPF_ACK		= 0x01000000,	/* ACK or atomic ACK */
	SROCE_OPF_CNP		= 0x02000000,
};

#define SROCE_OPF_HDR_MASK	0x000000ffU
#define SROCE_OPF_POS_MASK	0x00007000U
#define SROCE_OPF_KIND_MASK	0x03f00000U

/* Largest BTH + extension headers of any opcode (atomic requests) */
#define SROCE_MAX_HDR_BYTES	40

enum sroce_qp_type {
	SROCE_QPT_RC,
	SROCE_QPT_UC,
	SROCE_QPT_UD,
};

/**
 * struct sroce_opcode_info - what an opcode means on the wire
 * @name: the IBTA name, for debug output
 * @flags: SROCE_OPF_* bits; 0 for an invalid opcode
 * @hdr_len: BTH plus extension headers, in bytes; 0 for an invalid opcode
 */
struct sroce_opcode_info {
	const char *name;
	u32 flags;
	u8 hdr_len;
};

/* Indexed by opcode; read through the helpers below. */
extern const struct sroce_opcode_info sroce_opcode_table[256];

/**
 * sroce_opcode_info() - look up an opcode
 * @opcode: any byte
 *
 * Return: the table entry, or NULL for an invalid opcode.
 */
static inline const struct sroce_opcode_info *sroce_opcode_info(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcode_table[opcode];

	return info->flags ? info : NULL;
}

/**
 * sroce_opcode_valid() - is this a known RC, UC, UD or CNP opcode?
 * @opcode: any byte
 *
 * Return: true if the opcode is in the table.
 */
static inline bool sroce_opcode_valid(u8 opcode)
{
	return sroce_opcode_table[opcode].flags != 0;
}

/**
 * sroce_opcode_flags() - the properties of an opcode
 * @opcode: any byte
 *
 * Return: the SROCE_OPF_* bits, 0 for an invalid opcode.
 */
static inline u32 sroce_opcode_flags(u8 opcode)
{
	return sroce_opcode_table[opcode].flags;
}

/**
 * sroce_opcode_hdr_len() - length of the BTH and its extension headers
 * @opcode: any byte
 *
 * Return: the length in bytes (the offset of the payload from the start of
 * the BTH), 0 for an invalid opcode.
 */
static inline unsigned int sroce_opcode_hdr_len(u8 opcode)
{
	return sroce_opcode_table[opcode].hdr_len;
}

int sroce_opcode_hdr_offset(u8 opcode, u32 hdr);
const char *sroce_opcode_name(u8 opcode);
bool sroce_opcode_valid_for_qpt(u8 opcode, enum sroce_qp_type qpt);
bool sroce_opcode_seq_ok(u8 prev, u8 next);

/**
 * sroce_opcode_in_progress() - does a message continue after this packet?
 * @opcode: any byte
 *
 * Return: true for FIRST and MIDDLE packets, false for LAST, ONLY, CNP and
 * invalid opcodes.
 */
static inline bool sroce_opcode_in_progress(u8 opcode)
{
	u32 pos = sroce_opcode_flags(opcode) & SROCE_OPF_POS_MASK;

	return pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE;
}

#endif /* SROCE_CORE_OPCODE_H */
