// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The opcode table: for each BTH opcode, the extension headers that follow
 * the BTH, their total length, and the packet's place in a message.
 */
#include "opcode.h"
#include "hdr.h"

/* Shorthands for the table */
#define OPK_SEND	(SROCE_OPF_REQ | SROCE_OPF_SEND | SROCE_OPF_PAYLOAD)
#define OPK_WRITE	(SROCE_OPF_REQ | SROCE_OPF_WRITE | SROCE_OPF_PAYLOAD)
#define OPK_READ_RESP	(SROCE_OPF_RESP | SROCE_OPF_READ | SROCE_OPF_PAYLOAD)
#define OPK_ATOMIC	(SROCE_OPF_REQ | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY | \
			 SROCE_OPF_ATMETH)

#define BTH_LEN		SROCE_BTH_BYTES
#define BTH_IMM_LEN	(SROCE_BTH_BYTES + SROCE_IMMDT_BYTES)
#define BTH_RETH_LEN	(SROCE_BTH_BYTES + SROCE_RETH_BYTES)

/*
 * The UC opcodes 0x20-0x2b carry the same headers as RC 0x00-0x0b; each
 * transport gets its own entries so that the table reads like the spec.
 */
const struct sroce_opcode_info sroce_opcode_table[256] = {
	[SROCE_RC_SEND_FIRST] = {
		.name = "RC_SEND_FIRST",
		.flags = OPK_SEND | SROCE_OPF_FIRST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_SEND_MIDDLE] = {
		.name = "RC_SEND_MIDDLE",
		.flags = OPK_SEND | SROCE_OPF_MIDDLE,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_SEND_LAST] = {
		.name = "RC_SEND_LAST",
		.flags = OPK_SEND | SROCE_OPF_LAST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_SEND_LAST_IMM] = {
		.name = "RC_SEND_LAST_WITH_IMMEDIATE",
		.flags = OPK_SEND | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_RC_SEND_ONLY] = {
		.name = "RC_SEND_ONLY",
		.flags = OPK_SEND | SROCE_OPF_ONLY,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_SEND_ONLY_IMM] = {
		.name = "RC_SEND_ONLY_WITH_IMMEDIATE",
		.flags = OPK_SEND | SROCE_OPF_ONLY | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_RC_WRITE_FIRST] = {
		.name = "RC_RDMA_WRITE_FIRST",
		.flags = OPK_WRITE | SROCE_OPF_FIRST | SROCE_OPF_RETH,
		.hdr_len = BTH_RETH_LEN,
	},
	[SROCE_RC_WRITE_MIDDLE] = {
		.name = "RC_RDMA_WRITE_MIDDLE",
		.flags = OPK_WRITE | SROCE_OPF_MIDDLE,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_WRITE_LAST] = {
		.name = "RC_RDMA_WRITE_LAST",
		.flags = OPK_WRITE | SROCE_OPF_LAST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_WRITE_LAST_IMM] = {
		.name = "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.flags = OPK_WRITE | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_RC_WRITE_ONLY] = {
		.name = "RC_RDMA_WRITE_ONLY",
		.flags = OPK_WRITE | SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = BTH_RETH_LEN,
	},
	[SROCE_RC_WRITE_ONLY_IMM] = {
		.name = "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.flags = OPK_WRITE | SROCE_OPF_ONLY | SROCE_OPF_RETH |
			 SROCE_OPF_IMMDT,
		.hdr_len = BTH_RETH_LEN + SROCE_IMMDT_BYTES,
	},
	[SROCE_RC_READ_REQUEST] = {
		.name = "RC_RDMA_READ_REQUEST",
		.flags = SROCE_OPF_REQ | SROCE_OPF_READ | SROCE_OPF_ONLY |
			 SROCE_OPF_RETH,
		.hdr_len = BTH_RETH_LEN,
	},
	[SROCE_RC_READ_RESPONSE_FIRST] = {
		.name = "RC_RDMA_READ_RESPONSE_FIRST",
		.flags = OPK_READ_RESP | SROCE_OPF_FIRST | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_RC_READ_RESPONSE_MIDDLE] = {
		.name = "RC_RDMA_READ_RESPONSE_MIDDLE",
		.flags = OPK_READ_RESP | SROCE_OPF_MIDDLE,
		.hdr_len = BTH_LEN,
	},
	[SROCE_RC_READ_RESPONSE_LAST] = {
		.name = "RC_RDMA_READ_RESPONSE_LAST",
		.flags = OPK_READ_RESP | SROCE_OPF_LAST | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_RC_READ_RESPONSE_ONLY] = {
		.name = "RC_RDMA_READ_RESPONSE_ONLY",
		.flags = OPK_READ_RESP | SROCE_OPF_ONLY | SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_RC_ACKNOWLEDGE] = {
		.name = "RC_ACKNOWLEDGE",
		.flags = SROCE_OPF_RESP | SROCE_OPF_ACK | SROCE_OPF_ONLY |
			 SROCE_OPF_AETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_RC_ATOMIC_ACKNOWLEDGE] = {
		.name = "RC_ATOMIC_ACKNOWLEDGE",
		.flags = SROCE_OPF_RESP | SROCE_OPF_ACK | SROCE_OPF_ATOMIC |
			 SROCE_OPF_ONLY | SROCE_OPF_AETH | SROCE_OPF_ATMACK,
		.hdr_len = SROCE_BTH_BYTES + SROCE_AETH_BYTES +
			   SROCE_ATMACK_BYTES,
	},
	[SROCE_RC_COMPARE_SWAP] = {
		.name = "RC_CMP_SWAP",
		.flags = OPK_ATOMIC,
		.hdr_len = SROCE_BTH_BYTES + SROCE_ATMETH_BYTES,
	},
	[SROCE_RC_FETCH_ADD] = {
		.name = "RC_FETCH_ADD",
		.flags = OPK_ATOMIC,
		.hdr_len = SROCE_BTH_BYTES + SROCE_ATMETH_BYTES,
	},
	[SROCE_RC_SEND_LAST_INV] = {
		.name = "RC_SEND_LAST_WITH_INVALIDATE",
		.flags = OPK_SEND | SROCE_OPF_LAST | SROCE_OPF_IETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_IETH_BYTES,
	},
	[SROCE_RC_SEND_ONLY_INV] = {
		.name = "RC_SEND_ONLY_WITH_INVALIDATE",
		.flags = OPK_SEND | SROCE_OPF_ONLY | SROCE_OPF_IETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_IETH_BYTES,
	},

	[SROCE_UC_SEND_FIRST] = {
		.name = "UC_SEND_FIRST",
		.flags = OPK_SEND | SROCE_OPF_FIRST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_SEND_MIDDLE] = {
		.name = "UC_SEND_MIDDLE",
		.flags = OPK_SEND | SROCE_OPF_MIDDLE,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_SEND_LAST] = {
		.name = "UC_SEND_LAST",
		.flags = OPK_SEND | SROCE_OPF_LAST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_SEND_LAST_IMM] = {
		.name = "UC_SEND_LAST_WITH_IMMEDIATE",
		.flags = OPK_SEND | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_UC_SEND_ONLY] = {
		.name = "UC_SEND_ONLY",
		.flags = OPK_SEND | SROCE_OPF_ONLY,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_SEND_ONLY_IMM] = {
		.name = "UC_SEND_ONLY_WITH_IMMEDIATE",
		.flags = OPK_SEND | SROCE_OPF_ONLY | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_UC_WRITE_FIRST] = {
		.name = "UC_RDMA_WRITE_FIRST",
		.flags = OPK_WRITE | SROCE_OPF_FIRST | SROCE_OPF_RETH,
		.hdr_len = BTH_RETH_LEN,
	},
	[SROCE_UC_WRITE_MIDDLE] = {
		.name = "UC_RDMA_WRITE_MIDDLE",
		.flags = OPK_WRITE | SROCE_OPF_MIDDLE,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_WRITE_LAST] = {
		.name = "UC_RDMA_WRITE_LAST",
		.flags = OPK_WRITE | SROCE_OPF_LAST,
		.hdr_len = BTH_LEN,
	},
	[SROCE_UC_WRITE_LAST_IMM] = {
		.name = "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.flags = OPK_WRITE | SROCE_OPF_LAST | SROCE_OPF_IMMDT,
		.hdr_len = BTH_IMM_LEN,
	},
	[SROCE_UC_WRITE_ONLY] = {
		.name = "UC_RDMA_WRITE_ONLY",
		.flags = OPK_WRITE | SROCE_OPF_ONLY | SROCE_OPF_RETH,
		.hdr_len = BTH_RETH_LEN,
	},
	[SROCE_UC_WRITE_ONLY_IMM] = {
		.name = "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.flags = OPK_WRITE | SROCE_OPF_ONLY | SROCE_OPF_RETH |
			 SROCE_OPF_IMMDT,
		.hdr_len = BTH_RETH_LEN + SROCE_IMMDT_BYTES,
	},

	[SROCE_UD_SEND_ONLY] = {
		.name = "UD_SEND_ONLY",
		.flags = OPK_SEND | SROCE_OPF_ONLY | SROCE_OPF_DETH,
		.hdr_len = SROCE_BTH_BYTES + SROCE_DETH_BYTES,
	},
	[SROCE_UD_SEND_ONLY_IMM] = {
		.name = "UD_SEND_ONLY_WITH_IMMEDIATE",
		.flags = OPK_SEND | SROCE_OPF_ONLY | SROCE_OPF_DETH |
			 SROCE_OPF_IMMDT,
		.hdr_len = SROCE_BTH_BYTES + SROCE_DETH_BYTES +
			   SROCE_IMMDT_BYTES,
	},

	[SROCE_CNP] = {
		.name = "CNP",
		.flags = SROCE_OPF_CNP | SROCE_OPF_CNP_RESV,
		.hdr_len = SROCE_CNP_BYTES,
	},
};

/* Extension headers in the order they follow the BTH on the wire */
static const struct {
	u32 flag;
	u8 len;
} ext_order[] = {
	{ SROCE_OPF_DETH, SROCE_DETH_BYTES },
	{ SROCE_OPF_RETH, SROCE_RETH_BYTES },
	{ SROCE_OPF_ATMETH, SROCE_ATMETH_BYTES },
	{ SROCE_OPF_IMMDT, SROCE_IMMDT_BYTES },
	{ SROCE_OPF_IETH, SROCE_IETH_BYTES },
	{ SROCE_OPF_AETH, SROCE_AETH_BYTES },
	{ SROCE_OPF_ATMACK, SROCE_ATMACK_BYTES },
	{ SROCE_OPF_CNP_RESV, SROCE_CNP_RESV_BYTES },
	{ 0, 0 }
};

/**
 * sroce_opcode_hdr_offset() - where an extension header starts
 * @opcode: any byte
 * @hdr: one header flag, such as SROCE_OPF_RETH
 *
 * Return: the offset of the header from the start of the BTH, or -1 if the
 * opcode is invalid, does not carry that header, or @hdr is not exactly one
 * header flag.
 */
int sroce_opcode_hdr_offset(u8 opcode, u32 hdr)
{
	u32 flags = sroce_opcode_table[opcode].flags;
	unsigned int off = SROCE_BTH_BYTES;
	unsigned int i;

	if (!(flags & hdr))
		return -1;
	for (i = 0; ext_order[i].flag; i++) {
		if (ext_order[i].flag == hdr)
			return off;
		if (flags & ext_order[i].flag)
			off += ext_order[i].len;
	}
	return -1;
}

/**
 * sroce_opcode_name() - printable name of an opcode
 * @opcode: any byte
 *
 * Return: the IBTA name, or "UNKNOWN" for an invalid opcode.
 */
const char *sroce_opcode_name(u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);

	return info ? info->name : "UNKNOWN";
}

/**
 * sroce_opcode_valid_for_qpt() - may a QP of this type carry the opcode?
 * @opcode: any byte
 * @qpt: the QP's transport type
 *
 * The CNP is addressed to a QP of any type.
 *
 * Return: true if the opcode is valid and belongs to @qpt's transport,
 * false for an unknown @qpt.
 */
bool sroce_opcode_valid_for_qpt(u8 opcode, enum sroce_qp_type qpt)
{
	u8 transport;

	switch (qpt) {
	case SROCE_QPT_RC:
		transport = SROCE_OPCODE_RC;
		break;
	case SROCE_QPT_UC:
		transport = SROCE_OPCODE_UC;
		break;
	case SROCE_QPT_UD:
		transport = SROCE_OPCODE_UD;
		break;
	default:
		return false;
	}
	if (!sroce_opcode_valid(opcode))
		return false;
	return opcode == SROCE_CNP ||
	       (opcode & SROCE_OPCODE_TRANSPORT_MASK) == transport;
}

/**
 * sroce_opcode_seq_ok() - may @next follow @prev within one packet stream?
 * @prev: opcode of the previous packet of the stream (requests arriving at
 *        a responder, or read responses arriving at a requester), or
 *        SROCE_OPCODE_NONE (any invalid opcode) when no message is underway
 * @next: opcode of the packet that arrived
 *
 * When @prev opened or continued a multi-packet message, @next must be a
 * MIDDLE or LAST packet of the same transport, direction and operation (a
 * send may end with immediate data or invalidate, a write with immediate
 * data). Otherwise @next must start a message: FIRST or ONLY. The CNP and
 * invalid opcodes never belong to a stream.
 *
 * Return: true if the sequence is legal.
 */
bool sroce_opcode_seq_ok(u8 prev, u8 next)
{
	u32 nf = sroce_opcode_flags(next);
	u32 pf = sroce_opcode_flags(prev);
	u32 same = SROCE_OPF_KIND_MASK | SROCE_OPF_REQ | SROCE_OPF_RESP;

	if (!nf || (nf & SROCE_OPF_CNP))
		return false;
	if (!sroce_opcode_in_progress(prev))
		return (nf & SROCE_OPF_FIRST) != 0;
	if ((prev & SROCE_OPCODE_TRANSPORT_MASK) !=
	    (next & SROCE_OPCODE_TRANSPORT_MASK))
		return false;
	if ((pf & same) != (nf & same))
		return false;
	return (nf & SROCE_OPF_FIRST) == 0;
}
