/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mcast.h: UD multicast groups.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <rdma/ib_verbs.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;

#define SROCE_MCAST_QPN			0xffffff
#define SROCE_MAX_MCAST_GRP		1024
#define SROCE_MAX_MCAST_QP_ATTACH	64

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mcast_qp_gone(struct sroce_qp *qp);
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb,
		     const struct sroce_pkt *pkt);

#endif /* SROCE_MCAST_H */
