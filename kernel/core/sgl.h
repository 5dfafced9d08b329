/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sgl.h: the arithmetic of memory regions and scatter/gather lists: is a
 * range inside a region, which part of a message an SGE holds, where a
 * region's byte lies in its pages. No overflow on any input; mr.c does
 * the copies with what these say.
 */
#ifndef SROCE_CORE_SGL_H
#define SROCE_CORE_SGL_H

#include "core_types.h"

/**
 * sroce_range_in() - is [@iova, @iova + @len) inside [@start, @start + @size)?
 * @start: the region's first address
 * @size: its length; @start + @size must not pass 2^64 (registration
 *	  refuses such a region)
 * @iova: the range's first address
 * @len: its length; 0 is inside anywhere from @start to the region's end
 *
 * Return: true if inside.
 */
static inline bool sroce_range_in(u64 start, u64 size, u64 iova, u64 len)
{
	if (iova < start)
		return false;
	iova -= start;
	return iova <= size && len <= size - iova;
}

/**
 * sroce_sge_piece() - the part of one SGE that a walk over a message takes
 * @addr: the SGE's address
 * @length: its length
 * @skip: in: bytes of the message still to skip before the walk's range;
 *	  out: what is left of them after this SGE
 * @want: bytes the walk still wants
 * @at: set to the first address of the piece
 * @n: set to the piece's length (0: none of this SGE)
 *
 * A walk over bytes [off, off + len) of the message an SGE list describes
 * (the SGEs' bytes one after the other) starts with @skip = off and @want
 * = len, and calls this for each SGE in turn, taking @want down by each
 * @n, until @want is 0 (done) or the list ends (too short).
 *
 * Return: false when the piece would run past the end of the address
 * space (the SGE is broken), else true.
 */
static inline bool sroce_sge_piece(u64 addr, u32 length, u64 *skip, u32 want,
				   u64 *at, u32 *n)
{
	*n = 0;
	if (*skip >= length) {
		*skip -= length;
		return true;
	}
	*n = length - (u32)*skip;
	if (*n > want)
		*n = want;
	*at = addr + *skip;
	*skip = 0;
	return *at >= addr && (!*n || *at + (*n - 1) >= *at);
}

/**
 * sroce_page_span() - how many bytes from a region's byte lie in its page
 * @pos: the byte's offset from the start of the region's first page
 * @len: bytes wanted from there
 * @page_size: the page size, a power of two
 *
 * The byte is in page @pos / @page_size, at @pos % @page_size.
 *
 * Return: @len, or what is left of that page if less.
 */
static inline u32 sroce_page_span(u64 pos, u32 len, u32 page_size)
{
	u32 left = page_size - (u32)(pos & (page_size - 1));

	return len < left ? len : left;
}

#endif /* SROCE_CORE_SGL_H */
