// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * queue.c: ring memory and its mmap.
 *
 * A ring is zeroed vmalloc memory charged to the memory cgroup of the
 * process that creates the queue (SROCE_GFP_USER_BIG: vmalloc_user() would
 * charge nobody): a struct sroce_ring header and the slots. A user queue's
 * memory belongs to its rdma_user_mmap_entry and is vfree()d in
 * mmap_free, after the queue is destroyed and no mmap() of it is in
 * flight; pages a process still has mapped keep the references the
 * mapping took, so a stale mapping never sees reused memory. Kernel queues
 * (no udata) free it at destroy.
 */
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "queue.h"

/*
 * Bounds on any ring: 1..512K entries (a CQ's most; the QP and SRQ limits
 * are lower) of at most 64 KiB each.
 */
#define SROCE_QUEUE_MAX_ENTRIES	BIT(19)
#define SROCE_QUEUE_MAX_STRIDE	BIT(16)
#define SROCE_QUEUE_MAX_BYTES	SZ_256M

/**
 * sroce_queue_init() - allocate a ring, and its mmap entry for userspace
 * @q: the queue
 * @udata: the creating call's udata, NULL for a kernel queue
 * @entries: wanted capacity, rounded up to a power of two
 * @stride: bytes per entry, rounded up to a power of two (at least 16)
 * @mi: filled with the mmap offset and size for userspace
 *
 * Return: 0 or a negative errno.
 */
int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 entries, u32 stride, struct sroce_mmap_info *mi)
{
	struct ib_ucontext *uctx;
	struct sroce_mmap_entry *me;
	int err;

	if (!entries || entries > SROCE_QUEUE_MAX_ENTRIES ||
	    !stride || stride > SROCE_QUEUE_MAX_STRIDE)
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	q->log2_entries = order_base_2(entries);
	q->stride = roundup_pow_of_two(max_t(u32, stride, 16));
	q->size = PAGE_ALIGN(SROCE_RING_HDR_SIZE +
			     ((size_t)q->stride << q->log2_entries));
	if (q->size > SROCE_QUEUE_MAX_BYTES)	/* sroce_mmap_info.size */
		return -EINVAL;
	q->ring = __vmalloc(q->size, SROCE_GFP_USER_BIG | __GFP_ZERO);
	if (!q->ring)
		return -ENOMEM;
	q->ring->log2_entries = q->log2_entries;
	q->ring->stride = q->stride;

	if (!udata)
		return 0;

	me = kzalloc(sizeof(*me), GFP_KERNEL_ACCOUNT);
	if (!me) {
		err = -ENOMEM;
		goto err_ring;
	}
	me->vaddr = q->ring;
	uctx = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	err = rdma_user_mmap_entry_insert(uctx, &me->rdma, q->size);
	if (err) {
		kfree(me);
		goto err_ring;
	}
	q->mmap = me;
	mi->offset = rdma_user_mmap_get_offset(&me->rdma);
	mi->size = q->size;
	mi->reserved = 0;
	return 0;

err_ring:
	vfree(q->ring);
	q->ring = NULL;
	return err;
}

/* The queue is gone; its memory may live on in userspace mappings. */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->ring);
	q->ring = NULL;
	q->mmap = NULL;
}

/*
 * Map @len bytes of the ring at @ring into @vma, page by page, each page
 * referenced by the mapping (as remap_vmalloc_range() does, which wants
 * vmalloc_user() memory).
 */
static int sroce_mmap_ring(struct vm_area_struct *vma, void *ring,
			   unsigned long len)
{
	unsigned long off;
	int err;

	for (off = 0; off < len; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(ring + off));
		if (err)
			return err;
	}
	sroce_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct sroce_mmap_entry *me;
	int err;

	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;
	me = container_of(rdma, struct sroce_mmap_entry, rdma);
	if (vma->vm_end - vma->vm_start > rdma->npages * PAGE_SIZE)
		err = -EINVAL;
	else
		err = sroce_mmap_ring(vma, me->vaddr,
				      vma->vm_end - vma->vm_start);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void sroce_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct sroce_mmap_entry *me =
		container_of(rdma, struct sroce_mmap_entry, rdma);

	vfree(me->vaddr);
	kfree(me);
}
