/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * device.h: one sroce RDMA device, bound to one Ethernet netdev.
 */
#ifndef SROCE_DEVICE_H
#define SROCE_DEVICE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "counters.h"
#include "loop.h"

struct sroce_net;

#define SROCE_MAX_PD	0x10000

struct sroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;	/* held until dealloc */
	netdevice_tracker ndev_tracker;
	struct sroce_net *sn;		/* this namespace's UDP sockets */

	/* On sroce_devices; the list holds a reference on ibdev.dev. */
	struct list_head list;
	bool dead;			/* dealloc_driver has run */

	enum ib_port_state port_state;	/* last state reported, under RTNL */

	/* Objects found by number; counts bounded by the device limits. */
	struct xarray qp_xa;		/* by QPN */
	u32 qp_next;
	struct xarray mr_xa;		/* MRs and windows, by key >> 8 */
	u32 mr_next;
	u32 mw_next;
	struct xarray ah_xa;		/* by AH number */
	u32 ah_next;
	struct xarray cq_xa;		/* user CQs, by number (dbfile.c) */
	u32 cq_next;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;
	atomic_t num_mw;

	struct sroce_counters counters;
	struct sroce_cc_dev cc;		/* DCQCN knobs */

	struct sroce_loop loop;		/* packets to a local address */

	struct mutex mcast_lock;	/* writers of mcgs */
	struct list_head mcgs;		/* multicast groups, RCU */
	unsigned int nmcgs;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

int sroce_newlink(const char *ibdev_name, struct net_device *ndev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
enum ib_mtu sroce_active_mtu(struct net_device *ndev);

int sroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int sroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev, u32 port);
void sroce_dealloc_driver(struct ib_device *ibdev);

int sroce_device_init(void);
void sroce_device_exit(void);

#endif /* SROCE_DEVICE_H */
