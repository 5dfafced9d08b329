// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrio.c: the bytes of memory regions: copies to and from a checked range,
 * its pages added to a packet by reference, 64-bit atomics, and the walk
 * over a work request's SGE list that checks each piece against its MR
 * (sroce_sgl_copy(), sroce_sgl_copy_skb(), sroce_sgl_attach()). What is
 * registered, under which key, and the checks themselves are mr.c's.
 */
#include <linux/highmem.h>

#include "core/sgl.h"
#include "device.h"
#include "mrio.h"
#include "recv.h"
#include "xmit.h"

/*
 * The byte at @iova of a checked range, mapped, and in *@n how many of the
 * @len bytes from it on follow it in memory: a page of a user MR, a block
 * of a fast-registration MR, or the rest (DMA MR: iova is the kernel
 * address). Unmapped by sroce_mr_unmap().
 */
static u8 *sroce_mr_map(struct sroce_mr *mr, u64 iova, u32 len, u32 *n)
{
	u64 pos = iova - mr->iova + mr->offset;
	u32 bsize;

	switch (mr->kind) {
	case SROCE_MR_DMA:
		*n = len;
		return (u8 *)(uintptr_t)iova;
	case SROCE_MR_FAST:
		bsize = 1u << mr->buf_shift;
		*n = sroce_page_span(pos, len, bsize);
		return (u8 *)(uintptr_t)(mr->bufs[pos >> mr->buf_shift] +
					 (pos & (bsize - 1)));
	default:
		*n = sroce_page_span(pos, len, PAGE_SIZE);
		return (u8 *)kmap_local_page(mr->pages[pos >> PAGE_SHIFT]) +
		       offset_in_page(pos);
	}
}

static void sroce_mr_unmap(struct sroce_mr *mr, u8 *va)
{
	if (mr->kind == SROCE_MR_USER)
		kunmap_local(va);
}

/**
 * sroce_mr_copy() - copy between a checked range of an MR and a buffer
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 *
 * Any context: pages are pinned and mapped one at a time.
 */
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	u8 *p = buf;

	while (len) {
		u32 n;
		u8 *va = sroce_mr_map(mr, iova, len, &n);

		if (dir == SROCE_TO_MR)
			memcpy(va, p, n);
		else
			memcpy(p, va, n);
		sroce_mr_unmap(mr, va);
		p += n;
		iova += n;
		len -= n;
	}
}

/**
 * sroce_mr_copy_skb() - copy bytes of an skb into a checked range of an MR
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @skb: the source
 * @off: offset in @skb, from skb->data
 * @len: bytes
 * @crc: NULL, or a CRC register to feed the bytes into as they are copied
 *	 (sroce_skb_copy())
 *
 * Any context. Return: 0, or -EFAULT when @skb is shorter than that.
 */
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		      unsigned int off, u32 len, u32 *crc)
{
	int err = 0;

	while (len && !err) {
		u32 n;
		u8 *va = sroce_mr_map(mr, iova, len, &n);

		err = sroce_skb_copy(skb, off, va, n, crc);
		sroce_mr_unmap(mr, va);
		off += n;
		iova += n;
		len -= n;
	}
	return err;
}

/*
 * Add a copy of @n bytes (at most a page) of a kernel MR at @iova to @skb
 * as a fragment of its own. Return: 0, -E2BIG or -ENOMEM.
 */
static int sroce_skb_add_copy(struct sroce_mr *mr, u64 iova,
			      struct sk_buff *skb, u32 n)
{
	u8 *buf;

	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS - 1)
		return -E2BIG;
	buf = sroce_skb_frag_append(skb, n);
	if (!buf)
		return -ENOMEM;
	sroce_mr_copy(mr, iova, buf, n, SROCE_FROM_MR);
	return 0;
}

/*
 * Add a checked range, at most a page, of a DMA or fast-registration MR
 * to @skb in two fragments at most: by reference to the pages under its
 * kernel addresses where it lies in one block and every page may be held
 * (sroce_kva_page()), else as one fragment with a copy.
 */
static int sroce_mr_attach_kernel(struct sroce_mr *mr, u64 iova,
				  struct sk_buff *skb, u32 len)
{
	struct page *page, *next = NULL;
	unsigned int off;
	u32 n, first;
	u8 *va;

	va = sroce_mr_map(mr, iova, len, &n);
	off = offset_in_page(va);
	first = min_t(u32, len, PAGE_SIZE - off);
	page = n == len ? sroce_kva_page(va) : NULL;
	if (page && first < len)
		next = sroce_kva_page(va + first);
	if (!page || (first < len && !next))
		return sroce_skb_add_copy(mr, iova, skb, len);
	if (sroce_skb_add_page(skb, page, off, first))
		return -E2BIG;
	return next ? sroce_skb_add_page(skb, next, 0, len - first) : 0;
}

/**
 * sroce_mr_attach() - add a checked range of an MR to an skb by reference
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @skb: the packet: the pages become its fragments, each with a page
 *	 reference; a range that continues the last fragment extends it
 * @len: bytes, at most a page
 *
 * A user MR's pages are pinned by the MR; a kernel MR's are its owner's
 * (sroce_mr_attach_kernel(): some are copied). The references keep them
 * after a deregistration, and after their owner unmaps or frees them,
 * until the packet is gone: the packet then carries what they hold, never
 * another's memory. They may be a read-only or shared file mapping's
 * (page cache): the skb is marked SKBFL_SHARED_FRAG, as sendfile marks its
 * pages, so that no layer writes into them in place (an IPsec receiver, a
 * checksum helper) without copying first. The range adds two fragments
 * at most, and one is left for the caller's trailer
 * (sroce_skb_end_frags()). Any context.
 * Return: 0, -E2BIG when the fragments run out, or -ENOMEM.
 */
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 len)
{
	u64 pos = iova - mr->iova + mr->offset;
	int err;

	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	if (mr->kind != SROCE_MR_USER)
		return sroce_mr_attach_kernel(mr, iova, skb, len);
	while (len) {
		unsigned int n = sroce_page_span(pos, len, PAGE_SIZE);

		err = sroce_skb_add_page(skb, mr->pages[pos >> PAGE_SHIFT],
					 offset_in_page(pos), n);
		if (err)
			return err;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * Walk @len bytes at message offset @off of an SGE list, checking each
 * piece against its MR, and copy it to or from @buf, or from @skb (and
 * into @crc, unless NULL), or add its pages to @to.
 */
static int sroce_sgl_walk(const struct sroce_sgl *l, u64 off, u32 len,
			  u8 *buf, struct sk_buff *skb,
			  unsigned int skb_off, u32 *crc, struct sk_buff *to,
			  enum sroce_copy_dir dir)
{
	int access = dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < l->num && len; i++) {
		const struct sroce_sge *g = &l->sge[i];
		struct sroce_mr *mr;
		u64 at;
		u32 n;
		int err;

		if (!sroce_sge_piece(g->addr, g->length, &off, len, &at, &n))
			return -EFAULT;
		if (!n)
			continue;
		mr = sroce_mr_get(l->sdev, g->lkey);
		if (!mr)
			return -EACCES;
		err = sroce_mr_check(mr, l->pd, at, n, access);
		if (!err && to)
			err = sroce_mr_attach(mr, at, to, n);
		else if (!err && skb)
			err = sroce_mr_copy_skb(mr, at, skb, skb_off, n, crc);
		else if (!err)
			sroce_mr_copy(mr, at, buf, n, dir);
		sroce_mr_put(mr);
		if (err)
			return err;
		if (buf)
			buf += n;
		skb_off += n;
		len -= n;
	}
	return len ? -ENOSPC : 0;
}

/**
 * sroce_sgl_copy() - copy between part of a message and a kernel buffer
 * @l: the message's SGE list
 * @off: offset in the message (the concatenation of the list)
 * @buf: the buffer
 * @len: bytes
 * @dir: SROCE_TO_MR (needs local write access) or SROCE_FROM_MR
 *
 * Any context. Return: 0; -EACCES for a bad key, PD or access right;
 * -EFAULT when an SGE lies outside its MR; -ENOSPC when the list is
 * shorter than @off + @len.
 */
int sroce_sgl_copy(const struct sroce_sgl *l, u64 off, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	return sroce_sgl_walk(l, off, len, buf, NULL, 0, NULL, NULL, dir);
}

/**
 * sroce_sgl_copy_skb() - copy bytes of an skb into part of a message
 * @l: the message's SGE list
 * @off: offset in the message
 * @skb: the source
 * @skb_off: offset in @skb, from skb->data
 * @len: bytes
 * @crc: NULL, or a CRC register fed with the bytes (sroce_mr_copy_skb())
 *
 * Any context. Return: as sroce_sgl_copy().
 */
int sroce_sgl_copy_skb(const struct sroce_sgl *l, u64 off,
		       struct sk_buff *skb, unsigned int skb_off,
		       u32 len, u32 *crc)
{
	return sroce_sgl_walk(l, off, len, NULL, skb, skb_off, crc, NULL,
			      SROCE_TO_MR);
}

/**
 * sroce_sgl_attach() - add part of a message to an skb without copying it
 * @l: the message's SGE list
 * @off: offset in the message
 * @skb: the packet: the pages become its fragments, each with a reference
 * @len: bytes
 *
 * Any context (sroce_mr_attach()).
 * Return: as sroce_sgl_copy(), or -E2BIG when @skb runs out of fragments
 * (one is kept for sroce_skb_end_frags()), or -ENOMEM.
 */
int sroce_sgl_attach(const struct sroce_sgl *l, u64 off, struct sk_buff *skb,
		     u32 len)
{
	return sroce_sgl_walk(l, off, len, NULL, NULL, 0, NULL, skb,
			      SROCE_FROM_MR);
}

/**
 * sroce_mr_atomic() - a 64-bit atomic operation on MR memory
 * @mr: the region
 * @iova: the word, checked by sroce_mr_check() for 8 bytes
 * @cmp_swap: compare and swap; else fetch and add
 * @cmp_add: the compare value, or the addend
 * @swap: the swap value
 * @orig: the word's value before the operation
 *
 * The operation is a real atomic on the page, so it is atomic against
 * other QPs and against the CPUs of the process that owns the memory.
 *
 * Return: 0, or -EINVAL when the word is not 8-byte aligned in memory
 * (an MR registered with an iova of another alignment than its address).
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig)
{
	u64 *p, old;
	u8 *va;
	u32 n;

	va = sroce_mr_map(mr, iova, sizeof(*p), &n);
	if (mr->kind == SROCE_MR_DMA || ((uintptr_t)va & 7)) {
		sroce_mr_unmap(mr, va);
		return -EINVAL;
	}
	p = (u64 *)va;
	/* One instruction each: no retry loop a writer of the word can feed. */
	if (cmp_swap)
		old = cmpxchg64(p, cmp_add, swap);
	else
		old = atomic64_fetch_add(cmp_add, (atomic64_t *)p);
	sroce_mr_unmap(mr, va);
	*orig = old;
	return 0;
}
