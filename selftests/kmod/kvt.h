/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kvt.h: what the kernel-verbs test modules share: KTAP case lines in the
 * kernel log, the device's own IPv4 RoCE v2 GID, and the device, PD, CQ
 * and DMA buffer every test starts from.
 */
#ifndef KVT_H
#define KVT_H

#include <linux/printk.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static int ncase, nfail;

#define CASE(cond, fmt, ...) do {					\
	bool _ok = (cond);						\
	ncase++;							\
	if (!_ok)							\
		nfail++;						\
	pr_info("%sok %d " fmt "\n", _ok ? "" : "not ", ncase,	\
		##__VA_ARGS__);						\
} while (0)

/*
 * The index of @ibdev's first IPv4 RoCE v2 GID on port 1, its GID in
 * @gid; -ENOENT if it has none.
 */
static inline int kvt_gid_v4(struct ib_device *ibdev, union ib_gid *gid)
{
	const struct ib_gid_attr *g;
	int i;

	for (i = 0; i < 128; i++) {
		g = rdma_get_gid_attr(ibdev, 1, i);
		if (IS_ERR(g))
			continue;
		if (g->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)g->gid.raw)) {
			*gid = g->gid;
			rdma_put_gid_attr(g);
			return i;
		}
		rdma_put_gid_attr(g);
	}
	return -ENOENT;
}

/* What every test starts from; kvt_open() fills it, kvt_close() undoes it. */
struct kvt_base {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	union ib_gid gid;		/* the first IPv4 RoCE v2 GID */
	int gid_index;
	u8 *buf;			/* len bytes, zeroed, mapped at dma */
	u64 dma;
	size_t len;
};

/*
 * Open device @name (a kernel verbs provider with an IPv4 RoCE v2 GID), a
 * PD, a CQ of 64 entries calling @comp with @ctx, and a buffer of @len
 * bytes. On an error, what was set up is left for kvt_close().
 */
static inline int kvt_open(struct kvt_base *b, const char *name, size_t len,
			   ib_comp_handler comp, void *ctx)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ib_cq *cq;
	struct ib_pd *pd;

	b->ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!b->ibdev || !b->ibdev->kverbs_provider)
		return -ENODEV;
	b->gid_index = kvt_gid_v4(b->ibdev, &b->gid);
	if (b->gid_index < 0)
		return b->gid_index;
	b->buf = kzalloc(len, GFP_KERNEL);
	if (!b->buf)
		return -ENOMEM;
	b->len = len;
	b->dma = ib_dma_map_single(b->ibdev, b->buf, len, DMA_BIDIRECTIONAL);
	pd = ib_alloc_pd(b->ibdev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	b->pd = pd;
	cq = ib_create_cq(b->ibdev, comp, NULL, ctx, &cq_attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	b->cq = cq;
	return 0;
}

static inline void kvt_close(struct kvt_base *b)
{
	if (b->cq)
		ib_destroy_cq(b->cq);
	if (b->pd)
		ib_dealloc_pd(b->pd);
	if (b->buf) {
		ib_dma_unmap_single(b->ibdev, b->dma, b->len,
				    DMA_BIDIRECTIONAL);
		kfree(b->buf);
	}
	if (b->ibdev)
		ib_device_put(b->ibdev);
}

/*
 * The end of a test module's init: the totals, and -EINVAL (the module
 * does not load) when a case failed or fewer than @ncases ran.
 */
static inline int kvt_finish(int err, int ncases)
{
	if (err)
		pr_info("Bail out! setup failed: %d\n", err);
	else if (nfail || ncase != ncases)
		err = -EINVAL;
	pr_info("# totals: %d pass, %d fail\n", ncase - nfail, nfail);
	return err;
}

#endif /* KVT_H */
