/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * 24-bit packet sequence number arithmetic (IBTA 9.7.1).
 *
 * PSNs live modulo 2^24. Two PSNs are ordered by the shorter way round the
 * circle: b is after a when (b - a) mod 2^24 is in [1, 2^23), before it
 * when in [2^23, 2^24). A distance of exactly 2^23 counts as "before", so
 * sroce_psn_cmp() is antisymmetric everywhere except at that distance.
 */
#ifndef SROCE_CORE_PSN_H
#define SROCE_CORE_PSN_H

#include "core_types.h"

#define SROCE_PSN_MASK		0xffffffU
#define SROCE_PSN_HALF		0x800000U	/* 2^23, the window */

/**
 * sroce_psn_valid() - does @psn fit in 24 bits?
 * @psn: a value that should be a PSN
 *
 * Return: true if no bit above bit 23 is set.
 */
static inline bool sroce_psn_valid(u32 psn)
{
	return (psn & ~SROCE_PSN_MASK) == 0;
}

/**
 * sroce_psn_add() - advance a PSN
 * @psn: the PSN
 * @n: how far; may be any u32, so adding (u32)-1 steps back by one
 *
 * Return: (psn + n) mod 2^24.
 */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/**
 * sroce_psn_next() - the PSN after @psn
 * @psn: the PSN
 *
 * Return: (psn + 1) mod 2^24.
 */
static inline u32 sroce_psn_next(u32 psn)
{
	return sroce_psn_add(psn, 1);
}

/**
 * sroce_psn_sub() - forward distance from @b to @a
 * @a: the later PSN
 * @b: the earlier PSN
 *
 * Return: (a - b) mod 2^24, in [0, 2^24).
 */
static inline u32 sroce_psn_sub(u32 a, u32 b)
{
	return (a - b) & SROCE_PSN_MASK;
}

/**
 * sroce_psn_cmp() - signed distance from @b to @a
 * @a: a PSN
 * @b: a PSN
 *
 * Return: the distance in [-2^23, 2^23): negative if @a is before @b, zero
 * if equal, positive if @a is after @b.
 */
static inline s32 sroce_psn_cmp(u32 a, u32 b)
{
	u32 d = sroce_psn_sub(a, b);

	return d >= SROCE_PSN_HALF ? (s32)d - (s32)(SROCE_PSN_MASK + 1) :
				     (s32)d;
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_cmp(a, b) < 0;
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_cmp(a, b) > 0;
}

static inline bool sroce_psn_before_eq(u32 a, u32 b)
{
	return sroce_psn_cmp(a, b) <= 0;
}

static inline bool sroce_psn_after_eq(u32 a, u32 b)
{
	return sroce_psn_cmp(a, b) >= 0;
}

/**
 * sroce_psn_in_window() - is @psn in [@start, @start + @n) mod 2^24?
 * @psn: the PSN to test
 * @start: first PSN of the window
 * @n: window size, at most 2^24
 *
 * Return: true if @psn is one of the @n PSNs starting at @start.
 */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 n)
{
	return sroce_psn_sub(psn, start) < n;
}

#endif /* SROCE_CORE_PSN_H */
