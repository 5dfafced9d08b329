/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mrio.h: reading and writing the memory of checked MR ranges and of
 * SGE lists, for the engines.
 */
#ifndef SROCE_MRIO_H
#define SROCE_MRIO_H

#include <linux/skbuff.h>

#include "mr.h"

enum sroce_copy_dir {
	SROCE_TO_MR,
	SROCE_FROM_MR,
};

void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		      unsigned int off, u32 len, u32 *crc);
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 len);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig);

/* The SGE list of a work request, and where its keys are looked up. */
struct sroce_sgl {
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	const struct sroce_sge *sge;
	u32 num;
};

int sroce_sgl_copy(const struct sroce_sgl *l, u64 off, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_sgl_copy_skb(const struct sroce_sgl *l, u64 off,
		       struct sk_buff *skb, unsigned int skb_off,
		       u32 len, u32 *crc);
int sroce_sgl_attach(const struct sroce_sgl *l, u64 off, struct sk_buff *skb,
		     u32 len);

#endif /* SROCE_MRIO_H */
