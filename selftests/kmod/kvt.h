/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kvt.h: what the kernel-verbs test modules share: KTAP case lines in the
 * kernel log, and the device's own IPv4 RoCE v2 GID.
 */
#ifndef KVT_H
#define KVT_H

#include <linux/printk.h>
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

#endif /* KVT_H */
