/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * queue.h: the rings behind send, receive and completion queues, shared
 * with userspace by mmap (layout in uapi/rdma/sroce-abi.h).
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/gfp.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

/*
 * The large allocations a user's verbs size (rings, a QP's WQE copies, an
 * MR's page array): charged to the caller's memory cgroup, and failed
 * with ENOMEM at its limit rather than ending in its OOM killer. The user
 * asked for the size, so a failure is the user's ENOMEM, not a warning
 * with a stack trace in the kernel log.
 */
#define SROCE_GFP_USER_BIG	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

/* SGEs a send or receive WQE may hold */
#define SROCE_MAX_SGE		32

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;			/* the ring's memory, freed with us */
};

/*
 * One ring. The kernel owns @index (the consumer index of a queue it
 * consumes, or the producer index of one it produces) and never reads it
 * back from shared memory.
 */
struct sroce_queue {
	struct sroce_ring *ring;
	u32 log2_entries;
	u32 stride;
	u32 index;
	size_t size;
	struct sroce_mmap_entry *mmap;	/* NULL for kernel-only queues */
};

int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 entries, u32 stride, struct sroce_mmap_info *mi);
void sroce_queue_destroy(struct sroce_queue *q);

static inline u32 sroce_queue_entries(const struct sroce_queue *q)
{
	return 1u << q->log2_entries;
}

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 idx)
{
	idx &= sroce_queue_entries(q) - 1;
	return (u8 *)q->ring + SROCE_RING_HDR_SIZE + (size_t)idx * q->stride;
}

/*
 * Entries userspace has produced and we have not consumed, or -EOVERFLOW
 * when the producer index it wrote is impossible.
 */
static inline int sroce_queue_pending(const struct sroce_queue *q)
{
	/* Pairs with the producer's release store: entries before prod. */
	u32 n = smp_load_acquire(&q->ring->prod) - q->index;

	return n > sroce_queue_entries(q) ? -EOVERFLOW : (int)n;
}

/* Mark @n consumed entries free again for the producer. */
static inline void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->index += n;
	/* Our reads of the entries happen before the producer reuses them. */
	smp_store_release(&q->ring->cons, q->index);
}

/* Free slots in a queue we produce (a CQ); 0 also when cons is bogus. */
static inline u32 sroce_queue_room(const struct sroce_queue *q)
{
	/* Pairs with the consumer's release: it is done with those slots. */
	u32 used = q->index - smp_load_acquire(&q->ring->cons);

	return used > sroce_queue_entries(q) ? 0 :
		sroce_queue_entries(q) - used;
}

/* Publish @n produced entries. */
static inline void sroce_queue_produce(struct sroce_queue *q, u32 n)
{
	q->index += n;
	/* The entries are written before the consumer can see them. */
	smp_store_release(&q->ring->prod, q->index);
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma);

#endif /* SROCE_QUEUE_H */
