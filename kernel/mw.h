/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mw.h: memory windows, and the keys a peer names (rkeys), which open an
 * MR or a window bound to one.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "mr.h"

struct sroce_dev;

struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_mr *win;		/* the window itself (mr.h) */
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

int sroce_mw_bind(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
		  const struct sroce_send_wqe *w);

/* What an rkey opened: the MR to copy with, and the window, if any. */
struct sroce_rkey_ref {
	struct sroce_mr *mr;
	struct sroce_mr *win;
};

int sroce_rkey_get(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
		   u32 rkey, u64 va, u64 len, int access,
		   struct sroce_rkey_ref *ref);
void sroce_rkey_put(struct sroce_rkey_ref *ref);
int sroce_key_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
			 u32 key, bool remote);

#endif /* SROCE_MW_H */
