// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcast.c: UD multicast. A group is a multicast GID (an IPv4 or IPv6
 * multicast address); QPs attach to it. The first attachment on a device
 * makes the namespace's RoCEv2 socket join the IP group on the device's
 * netdev, so the IP layer accepts the datagrams; the last detach leaves.
 * A datagram to QPN 0xffffff and a group address goes to every attached QP
 * (each takes its own receive WQE).
 *
 * Groups and attachments are lists under sdev->mcast_lock for writers and
 * RCU for the receive path, which takes a QP reference before using one.
 * A QP being destroyed is detached from everything first.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "core/pkt.h"
#include "counters.h"
#include "device.h"
#include "mcast.h"
#include "net.h"
#include "qp.h"
#include "resp.h"

struct sroce_mca {
	struct list_head list;		/* on mcg->qps */
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

struct sroce_mcg {
	struct list_head list;		/* on sdev->mcgs */
	struct in6_addr addr;
	struct list_head qps;
	unsigned int nqps;
	struct rcu_head rcu;
};

static bool sroce_gid_is_mcast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	return ipv6_addr_v4mapped(a) ? ipv4_is_multicast(a->s6_addr32[3]) :
				       ipv6_addr_is_multicast(a);
}

static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev,
					const struct in6_addr *addr)
{
	struct sroce_mcg *g;

	list_for_each_entry_rcu(g, &sdev->mcgs, list,
				lockdep_is_held(&sdev->mcast_lock))
		if (ipv6_addr_equal(&g->addr, addr))
			return g;
	return NULL;
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	struct sroce_mca *a, *m;
	struct sroce_mcg *g;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD || !sroce_gid_is_mcast(gid))
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	a->qp = qp;

	mutex_lock(&sdev->mcast_lock);
	g = sroce_mcg_find(sdev, addr);
	if (!g) {
		if (sdev->nmcgs >= SROCE_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto out;
		}
		g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		g->addr = *addr;
		INIT_LIST_HEAD(&g->qps);
		err = sroce_net_mc(sdev->sn, sdev->ndev->ifindex, addr, true);
		if (err) {
			kfree(g);
			goto out;
		}
		list_add_tail_rcu(&g->list, &sdev->mcgs);
		sdev->nmcgs++;
	}
	list_for_each_entry(m, &g->qps, list) {
		if (m->qp == qp)
			goto out;	/* attached already: nothing to do */
	}
	if (g->nqps >= SROCE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	list_add_tail_rcu(&a->list, &g->qps);
	g->nqps++;
	a = NULL;
out:
	mutex_unlock(&sdev->mcast_lock);
	kfree(a);
	return err;
}

/* Detach @qp from @g; drop @g when it is empty. mcast_lock held. */
static void sroce_mcg_detach(struct sroce_dev *sdev, struct sroce_mcg *g,
			     struct sroce_mca *a)
{
	list_del_rcu(&a->list);
	kfree_rcu(a, rcu);
	if (--g->nqps)
		return;
	list_del_rcu(&g->list);
	sdev->nmcgs--;
	sroce_net_mc(sdev->sn, sdev->ndev->ifindex, &g->addr, false);
	kfree_rcu(g, rcu);
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	struct sroce_mca *a;
	struct sroce_mcg *g;
	int err = -EINVAL;

	mutex_lock(&sdev->mcast_lock);
	g = sroce_mcg_find(sdev, addr);
	if (g) {
		list_for_each_entry(a, &g->qps, list) {
			if (a->qp == to_sqp(ibqp)) {
				sroce_mcg_detach(sdev, g, a);
				err = 0;
				break;
			}
		}
	}
	mutex_unlock(&sdev->mcast_lock);
	return err;
}

/* Detach a QP being destroyed from every group. */
void sroce_mcast_qp_gone(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mcg *g, *gn;
	struct sroce_mca *a, *an;

	mutex_lock(&sdev->mcast_lock);
	list_for_each_entry_safe(g, gn, &sdev->mcgs, list)
		list_for_each_entry_safe(a, an, &g->qps, list)
			if (a->qp == qp) {
				sroce_mcg_detach(sdev, g, a);
				break;
			}
	mutex_unlock(&sdev->mcast_lock);
}

/**
 * sroce_mcast_rcv() - a UD datagram to the multicast QPN
 * @sdev: the device
 * @skb: checked by sroce_rcv(); not consumed
 * @pkt: its parsed headers
 *
 * Softirq. Every QP attached to the destination group gets a copy.
 */
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb,
		     const struct sroce_pkt *pkt)
{
	struct in6_addr dst;
	struct sroce_mca *a;
	struct sroce_mcg *g;
	bool any = false;

	if (skb->protocol == htons(ETH_P_IPV6))
		dst = ipv6_hdr(skb)->daddr;
	else
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &dst);

	rcu_read_lock();
	g = sroce_mcg_find(sdev, &dst);
	if (g) {
		list_for_each_entry_rcu(a, &g->qps, list) {
			if (!kref_get_unless_zero(&a->qp->ref))
				continue;
			sroce_resp_ud_qp(sdev, a->qp, skb, pkt);
			sroce_qp_put(a->qp);
			any = true;
		}
	}
	rcu_read_unlock();
	if (!any)
		sroce_count(&sdev->counters, SROCE_CNT_RX_NO_QP);
}
