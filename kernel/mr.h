/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr.h: memory regions: registration, the key space, access checks, and
 * copies in and out for the engines.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/skbuff.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;

#define SROCE_MAX_MR		0x40000	/* the kernel takes one per kernel PD */
#define SROCE_MAX_MR_SIZE	BIT_ULL(40)

struct sroce_mr {
	struct ib_mr ibmr;
	struct kref ref;		/* lookup references */
	struct completion free;		/* the last one is gone */
	struct ib_umem *umem;		/* NULL: DMA MR over kernel memory */
	struct page **pages;		/* the umem's pages, in order */
	unsigned long npages;
	unsigned int offset;		/* of iova in pages[0] */
	int access;			/* IB_ACCESS_* */
	struct rcu_head rcu;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

enum sroce_copy_dir {
	SROCE_TO_MR,
	SROCE_FROM_MR,
};

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 iova,
		   u64 len, int access);
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		      unsigned int off, u32 len, u32 *crc);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig);

/* The SGE list of a work request, and where its keys are looked up. */
struct sroce_sgl {
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	const struct sroce_sge *sge;
	u32 num;
};

int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 len);

int sroce_sgl_copy(const struct sroce_sgl *l, u64 off, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_sgl_copy_skb(const struct sroce_sgl *l, u64 off,
		       struct sk_buff *skb, unsigned int skb_off,
		       u32 len, u32 *crc);
int sroce_sgl_attach(const struct sroce_sgl *l, u64 off, struct sk_buff *skb,
		     u32 len);

#endif /* SROCE_MR_H */
