/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RoCEv2 Invariant CRC (IBTA vol. 1 7.8.1 and annex A17.3.3).
 *
 * The ICRC is the CRC-32 of IEEE 802.3 (reflected polynomial 0xedb88320,
 * register preset to all ones, result inverted; the same as the kernel's
 * ~crc32_le(~0, ...)) computed over, in order:
 *
 *   1. 8 bytes of 0xff standing for the masked InfiniBand LRH;
 *   2. the IP header with its variant fields set to all ones:
 *      IPv4 (20 bytes, no options): TOS/DSCP+ECN (byte 1), TTL (byte 8),
 *      header checksum (bytes 10-11);
 *      IPv6 (40 bytes, no extension headers): traffic class and flow label
 *      (the low nibble of byte 0 and bytes 1-3; the version stays),
 *      hop limit (byte 7);
 *   3. the UDP header (8 bytes) with its checksum (bytes 6-7) all ones;
 *   4. the BTH (12 bytes) with byte 4 (FECN, BECN, resv6) all ones;
 *   5. the remaining transport headers, the payload and the pad bytes,
 *      unmodified, up to but excluding the ICRC itself.
 *
 * The Ethernet header, VLAN tags and the FCS are not covered. The ICRC is
 * sent after the pad as a little-endian u32 (the IBTA spec prints the same
 * bytes as a big-endian number, byte-swapped relative to the value here).
 *
 * Scattered use:
 *   crc = sroce_icrc_begin(l3hdr, ipv6);	   steps 1-4
 *   crc = sroce_icrc_update(crc, seg, seg_len); step 5, once per segment
 *   icrc = sroce_icrc_final(crc);
 */
#ifndef SROCE_CORE_ICRC_H
#define SROCE_CORE_ICRC_H

#include "core_types.h"
#include "hdr.h"

#define SROCE_ICRC_BYTES	4
#define SROCE_ICRC_INIT		0xffffffffU	/* CRC register preset */
#define SROCE_ICRC_LRH_BYTES	8	/* the masked LRH stand-in */
#define SROCE_IPV4_HDR_BYTES	20
#define SROCE_IPV6_HDR_BYTES	40
#define SROCE_UDP_HDR_BYTES	8

u32 sroce_icrc_update(u32 crc, const void *buf, size_t len);
u32 sroce_icrc_copy(u32 crc, void *dst, const void *src, size_t len);
u32 sroce_icrc_begin(const u8 *l3hdr, bool ipv6);
u32 sroce_icrc_linear(const u8 *l3hdr, size_t len, bool ipv6);

/**
 * sroce_icrc_final() - turn a CRC register into the ICRC value
 * @crc: the register after the last sroce_icrc_update()
 *
 * Return: the ICRC, to be stored with sroce_icrc_put().
 */
static inline u32 sroce_icrc_final(u32 crc)
{
	return ~crc;
}

/**
 * sroce_icrc_hdr_bytes() - bytes consumed by sroce_icrc_begin()
 * @ipv6: IPv6 rather than IPv4
 *
 * Return: the length of the IP, UDP and BTH headers (40 or 60).
 */
static inline size_t sroce_icrc_hdr_bytes(bool ipv6)
{
	return (ipv6 ? SROCE_IPV6_HDR_BYTES : SROCE_IPV4_HDR_BYTES) +
	       SROCE_UDP_HDR_BYTES + SROCE_BTH_BYTES;
}

/* The ICRC field is little-endian on the wire */
static inline void sroce_icrc_put(u8 *p, u32 icrc)
{
	p[0] = icrc & 0xff;
	p[1] = (icrc >> 8) & 0xff;
	p[2] = (icrc >> 16) & 0xff;
	p[3] = icrc >> 24;
}

static inline u32 sroce_icrc_get(const u8 *p)
{
	return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0];
}

#endif /* SROCE_CORE_ICRC_H */
