/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr.h: memory regions: registration, the key space and access checks
 * (reading and writing their memory: mrio.h).
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;

#define SROCE_MAX_MR		0x40000	/* the kernel takes one per kernel PD */
#define SROCE_MAX_MR_SIZE	BIT_ULL(40)
/* Pages of a fast-registration MR: 2 MiB in 4 KiB pages (rxe's 512) */
#define SROCE_MAX_FAST_REG_PAGES	512
#define SROCE_MAX_MW		0x10000

/*
 * The key index space: MRs below SROCE_MW_INDEX_MIN, memory windows from
 * it on, so that bit 31 of a key says which (as in rxe).
 */
#define SROCE_MW_INDEX_MIN	BIT(23)
#define SROCE_KEY_INDEX_MAX	(BIT(24) - 1)

static inline bool sroce_key_is_mw(u32 key)
{
	return key >> 8 >= SROCE_MW_INDEX_MIN;
}

enum sroce_mr_kind {
	SROCE_MR_DMA,			/* all of kernel memory, local only */
	SROCE_MR_USER,			/* pinned user pages */
	SROCE_MR_FAST,			/* kernel pages, by IB_WR_REG_MR */
	SROCE_MR_WINDOW,		/* a memory window (mw.c) */
};

/*
 * A key opens its MR only while the MR is VALID. DMA and user MRs always
 * are; a fast-registration MR is FREE until an IB_WR_REG_MR makes it VALID,
 * and again after an invalidation, which holds it BUSY while the engines
 * that found it before finish their packet (sroce_mr_invalidate()).
 */
enum sroce_mr_state {
	SROCE_MR_VALID,
	SROCE_MR_FREE,
	SROCE_MR_BUSY,
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct kref ref;		/* lookup references */
	struct completion free;		/* the last one is gone */
	u8 kind;			/* enum sroce_mr_kind */
	u32 state;			/* enum sroce_mr_state */
	u32 key;			/* the live lkey == rkey */
	u64 iova;			/* what the key opens: */
	u64 length;			/* [iova, iova + length) */
	int access;			/* IB_ACCESS_* */
	struct ib_umem *umem;		/* USER: the pinned pages, */
	struct page **pages;		/* in order */
	unsigned long npages;
	unsigned int offset;		/* of iova in pages[0] or bufs[0] */
	/* FAST: kernel addresses of the blocks map_mr_sg() found */
	u64 *bufs;
	unsigned int nbufs;
	unsigned int max_bufs;
	unsigned int buf_shift;		/* log2 of the block size */
	unsigned int map_offset;	/* of the mapped iova in bufs[0] */
	atomic_t windows;		/* windows bound to it */
	/*
	 * WINDOW: of ibmr, only pd is used; iova, length and access are the
	 * window's, over @bound while VALID.
	 */
	struct sroce_mr *bound;
	u8 mw_type;			/* enum ib_mw_type */
	u32 qpn;			/* type 2: the QP it is bound to */
	struct rcu_head rcu;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/* An IB_WR_REG_MR as the requester runs it (kverbs.c encodes it). */
struct sroce_fast_reg {
	u64 iova;
	u64 length;
	u32 key;
	u32 access;
};

int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd,
		      const struct sroce_fast_reg *reg);
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key);

struct sroce_mr *sroce_key_get(struct sroce_dev *sdev, u32 key);
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
struct sroce_mr *sroce_mr_find(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);
struct sroce_mr *sroce_mr_alloc(enum sroce_mr_kind kind, int access,
				u64 iova, u64 length);
int sroce_mr_add_key(struct sroce_dev *sdev, struct sroce_mr *mr);
void sroce_mr_remove(struct sroce_dev *sdev, struct sroce_mr *mr);
bool sroce_mr_close(struct sroce_mr *mr, unsigned int mine);
void sroce_mr_reopen(struct sroce_mr *mr, enum sroce_mr_state state);
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 iova,
		   u64 len, int access);

#endif /* SROCE_MR_H */
