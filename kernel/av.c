// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * av.c: address vectors and address handles.
 *
 * RoCEv2 addresses are IP addresses: the source GID (with its RDMA core
 * attributes) and the destination GID, IPv4-mapped or IPv6. Only RoCE v2
 * GIDs are accepted. Address handles are numbered in the device's ah_xa,
 * so a UD send WQE in a user ring names one by number, and the kernel
 * checks that it is in the QP's PD. The table's lock is only ever taken
 * by create_ah and destroy_ah, in process context (interrupts may be off:
 * the IB CM creates AHs under a lock that disables them); the requester
 * looks numbers up under RCU, in softirq too.
 */
#include <linux/etherdevice.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/sroce-abi.h>

#include "av.h"
#include "device.h"

/**
 * sroce_av_from_attr() - resolve an ah attribute into a RoCEv2 path
 * @av: the result
 * @attr: from modify_qp or create_ah; must carry a GRH
 * @group_ok: a multicast group may be the destination (an AH, for UD)
 *
 * A path leads to one peer, or (@group_ok) to a multicast group: never to
 * a broadcast address, whose MAC the RDMA core gives it (every host of
 * the link would get the packets).
 *
 * Return: 0, or -EINVAL when it is not a RoCE v2 address or not to one
 * peer.
 */
int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr,
		       bool group_ok)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	bool dst4;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid ||
	    sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)sgid->gid.raw);
	dst4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	if (av->ipv6 == dst4)
		return -EINVAL;	/* an IPv4 source cannot reach IPv6 */
	if (!group_ok && rdma_is_multicast_addr((struct in6_addr *)grh->dgid.raw))
		return -EINVAL;
	if (attr->type == RDMA_AH_ATTR_TYPE_ROCE &&
	    is_broadcast_ether_addr(attr->roce.dmac))
		return -EINVAL;
	memcpy(&av->saddr, sgid->gid.raw, sizeof(av->saddr));
	memcpy(&av->daddr, grh->dgid.raw, sizeof(av->daddr));
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->flow_label = grh->flow_label & 0xfffff;
	if (attr->type == RDMA_AH_ATTR_TYPE_ROCE)
		ether_addr_copy(av->dmac, attr->roce.dmac);
	return 0;
}

/* The destination part of an AV, for query_qp and query_ah. */
void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *attr)
{
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_ah_flags(attr, IB_AH_GRH);
	memcpy(attr->grh.dgid.raw, &av->daddr, sizeof(av->daddr));
	attr->grh.traffic_class = av->traffic_class;
	attr->grh.hop_limit = av->hop_limit;
	attr->grh.flow_label = av->flow_label;
	ether_addr_copy(attr->roce.dmac, av->dmac);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_resp resp = {};
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    GFP_KERNEL_ACCOUNT : GFP_ATOMIC;
	struct sroce_ah_path *path;
	int err;

	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	path = kzalloc(sizeof(*path), gfp);
	if (!path)
		return -ENOMEM;
	path->pd = ibah->pd;
	err = sroce_av_from_attr(&path->av, init->ah_attr, true);
	if (err)
		goto err_free;
	err = xa_alloc_cyclic(&sdev->ah_xa, &ah->num, path,
			      XA_LIMIT(1, SROCE_MAX_AH), &sdev->ah_next, gfp);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_free;
	}
	ah->path = path;

	if (udata) {
		resp.ah = ah->num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			xa_erase(&sdev->ah_xa, ah->num);
			goto err_free;
		}
	}
	return 0;

err_free:
	kfree(path);	/* never found: it was not, or not yet, in the table */
	return err;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_ah *ah = to_sah(ibah);

	xa_erase(&to_sdev(ibah->device)->ah_xa, ah->num);
	kfree_rcu(ah->path, rcu);	/* a sender may be looking at it */
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	sroce_av_to_attr(&to_sah(ibah)->path->av, attr);
	return 0;
}

/**
 * sroce_ah_find() - the path of AH number @num, if it is in @pd
 * @sdev: the device
 * @num: the AH's number, from a UD send WQE
 * @pd: the sending QP's PD
 * @av: the path, copied
 *
 * Any context (RCU). Return: true if found.
 */
bool sroce_ah_find(struct sroce_dev *sdev, u32 num, const struct ib_pd *pd,
		   struct sroce_av *av)
{
	const struct sroce_ah_path *path;
	bool found = false;

	rcu_read_lock();
	path = xa_load(&sdev->ah_xa, num);
	if (path && path->pd == pd) {
		*av = path->av;
		found = true;
	}
	rcu_read_unlock();
	return found;
}
