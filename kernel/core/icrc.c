// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 ICRC: a slice-by-16 CRC-32 and the masked pseudo-header.
 * See icrc.h for exactly which bytes are covered.
 */
#include "icrc.h"
#include "crc32_table.h"

/* Offsets of the masked fields */
#define IPV4_OFF_TOS		1
#define IPV4_OFF_TTL		8
#define IPV4_OFF_CSUM		10
#define IPV6_OFF_VTC		0	/* version (high nibble), TC (low) */
#define IPV6_OFF_TC_FLOW	1	/* 3 bytes: rest of TC, flow label */
#define IPV6_OFF_HOP_LIMIT	7
#define UDP_OFF_CSUM		6

#define PSEUDO_MAX_BYTES	(SROCE_ICRC_LRH_BYTES + SROCE_IPV6_HDR_BYTES + \
				 SROCE_UDP_HDR_BYTES + SROCE_BTH_BYTES)

static u32 le32_at(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/*
 * One slice-by-16 step: the register after 16 bytes, given as four
 * little-endian words, @a (bytes 0-3) already XORed with the register.
 * Byte j of the block is followed by 15 - j more, so it takes table
 * 15 - j: one table load per byte, and half the steps of slice-by-8.
 * Under emulation a load costs more than the arithmetic around it
 * (performance.rst).
 */
static inline u32 crc_step16(u32 a, u32 b, u32 c, u32 d)
{
	const u32 (*t)[256] = sroce_crc32_table;

	return t[15][a & 0xff] ^ t[14][(a >> 8) & 0xff] ^
	       t[13][(a >> 16) & 0xff] ^ t[12][a >> 24] ^
	       t[11][b & 0xff] ^ t[10][(b >> 8) & 0xff] ^
	       t[9][(b >> 16) & 0xff] ^ t[8][b >> 24] ^
	       t[7][c & 0xff] ^ t[6][(c >> 8) & 0xff] ^
	       t[5][(c >> 16) & 0xff] ^ t[4][c >> 24] ^
	       t[3][d & 0xff] ^ t[2][(d >> 8) & 0xff] ^
	       t[1][(d >> 16) & 0xff] ^ t[0][d >> 24];
}

/* The bytes one at a time */
static u32 crc_bytes(u32 crc, const u8 *p, size_t len)
{
	while (len--)
		crc = (crc >> 8) ^ sroce_crc32_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/**
 * sroce_icrc_update() - feed bytes into a CRC-32 register
 * @crc: the register: SROCE_ICRC_INIT, or from sroce_icrc_begin() or a
 *       previous call
 * @buf: the bytes
 * @len: how many
 *
 * This is the bare reflected CRC-32 step, like the kernel's crc32_le():
 * no inversion on entry or exit.
 *
 * Return: the new register value.
 */
u32 sroce_icrc_update(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len >= 16) {
		crc = crc_step16(crc ^ le32_at(p), le32_at(p + 4),
				 le32_at(p + 8), le32_at(p + 12));
		p += 16;
		len -= 16;
	}
	return crc_bytes(crc, p, len);
}

/**
 * sroce_icrc_copy() - copy bytes and feed them into a CRC-32 register
 * @crc: the register, as for sroce_icrc_update()
 * @dst: where the bytes go; must not overlap @src
 * @src: the bytes
 * @len: how many
 *
 * One pass over @src instead of a CRC pass and a copy: each word read for
 * the CRC is also stored.
 *
 * Return: the new register value, the same as sroce_icrc_update(@crc,
 * @src, @len) returns.
 */
u32 sroce_icrc_copy(u32 crc, void *dst, const void *src, size_t len)
{
	const u8 *p = src;
	u8 *q = dst;

	while (len >= 16) {
		u8 lo[8], hi[8];

		/* each word loaded once: stored, and the CRC takes it too */
		memcpy(lo, p, sizeof(lo));
		memcpy(hi, p + 8, sizeof(hi));
		memcpy(q, lo, sizeof(lo));
		memcpy(q + 8, hi, sizeof(hi));
		crc = crc_step16(crc ^ le32_at(lo), le32_at(lo + 4),
				 le32_at(hi), le32_at(hi + 4));
		p += 16;
		q += 16;
		len -= 16;
	}
	memcpy(q, p, len);
	return crc_bytes(crc, p, len);
}

/**
 * sroce_icrc_begin() - start an ICRC with the masked headers
 * @l3hdr: the IP header, followed contiguously by the UDP header and BTH
 * @ipv6: the IP header is IPv6 (40 bytes) rather than IPv4 (20 bytes)
 *
 * Feeds the 8-byte LRH stand-in and the IP, UDP and BTH headers with their
 * variant fields masked. @l3hdr is only read. The caller must have checked
 * that an IPv4 header has no options (IHL 5) and that an IPv6 header is
 * directly followed by UDP; sroce_icrc_hdr_bytes() bytes are read.
 *
 * Return: the CRC register, to continue with sroce_icrc_update() from the
 * first byte after the BTH.
 */
u32 sroce_icrc_begin(const u8 *l3hdr, bool ipv6)
{
	u8 buf[PSEUDO_MAX_BYTES];
	size_t ip_len = ipv6 ? SROCE_IPV6_HDR_BYTES : SROCE_IPV4_HDR_BYTES;
	size_t hdr_len = sroce_icrc_hdr_bytes(ipv6);
	u8 *ip = buf + SROCE_ICRC_LRH_BYTES;
	u8 *udp = ip + ip_len;
	u8 *bth = udp + SROCE_UDP_HDR_BYTES;

	memset(buf, 0xff, SROCE_ICRC_LRH_BYTES);
	memcpy(ip, l3hdr, hdr_len);
	if (ipv6) {
		ip[IPV6_OFF_VTC] |= 0x0f;
		memset(ip + IPV6_OFF_TC_FLOW, 0xff, 3);
		ip[IPV6_OFF_HOP_LIMIT] = 0xff;
	} else {
		ip[IPV4_OFF_TOS] = 0xff;
		ip[IPV4_OFF_TTL] = 0xff;
		ip[IPV4_OFF_CSUM] = 0xff;
		ip[IPV4_OFF_CSUM + 1] = 0xff;
	}
	udp[UDP_OFF_CSUM] = 0xff;
	udp[UDP_OFF_CSUM + 1] = 0xff;
	bth[SROCE_BTH_OFF_ECN] = 0xff;

	return sroce_icrc_update(SROCE_ICRC_INIT, buf,
				 SROCE_ICRC_LRH_BYTES + hdr_len);
}

/**
 * sroce_icrc_linear() - the ICRC of a packet in one buffer
 * @l3hdr: the IP header; the packet follows contiguously
 * @len: bytes from @l3hdr up to (not including) the ICRC field; at least
 *       sroce_icrc_hdr_bytes(@ipv6)
 * @ipv6: the IP header is IPv6 rather than IPv4
 *
 * Return: the ICRC value, or 0 if @len is too short to hold the headers
 * (a computed ICRC can be 0 too: compare, don't test for 0).
 */
u32 sroce_icrc_linear(const u8 *l3hdr, size_t len, bool ipv6)
{
	size_t hdr_len = sroce_icrc_hdr_bytes(ipv6);
	u32 crc;

	if (len < hdr_len)
		return 0;
	crc = sroce_icrc_begin(l3hdr, ipv6);
	crc = sroce_icrc_update(crc, l3hdr + hdr_len, len - hdr_len);
	return sroce_icrc_final(crc);
}
