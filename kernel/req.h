/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * req.h: the requester: send WQEs into packets.
 */
#ifndef SROCE_REQ_H
#define SROCE_REQ_H

#include <rdma/ib_verbs.h>

struct sroce_qp;

int sroce_req_doorbell(struct sroce_qp *qp);

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

#endif /* SROCE_REQ_H */
