/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * doorbell.h: the send doorbell, its hand-over to the completer, and the
 * post_send and post_recv verbs.
 */
#ifndef SROCE_DOORBELL_H
#define SROCE_DOORBELL_H

#include <rdma/ib_verbs.h>

struct sroce_qp;

/*
 * Doorbells of an RC QP in a row without waiting for its peer, after
 * which it streams: a polling CPU receives for it (loop.c, poll.c), and
 * its unsignaled messages do not ask for ACKs (req.c).
 */
#define SROCE_STREAM_DOORBELLS	4

/*
 * Packets one pass of the requester sends at most; it leaves the rest to
 * the QP's send work (sroce_req_defer()). As large as the RC window, so
 * that an RC QP's window goes in one pass; at most about a quarter of a
 * millisecond of a CPU on real hardware.
 */
#define SROCE_REQ_BUDGET	128

/*
 * Passes the completer makes for doorbells rung while it held sq_lock
 * (sroce_req_taker_end()) before it leaves them to the send work.
 */
#define SROCE_TAKER_PASSES	2

/* Bits of qp->sq_flags (sroce_req_doorbell()) */
enum {
	SROCE_SQ_RUNG,		/* a doorbell left its WQEs to the taker */
	SROCE_SQ_TAKER,		/* the completer holds sq_lock, and sends */
};

int sroce_doorbell_init(void);
void sroce_doorbell_exit(void);
void sroce_req_work_init(struct sroce_qp *qp);
void sroce_req_defer(struct sroce_qp *qp);
void sroce_req_work_stop(struct sroce_qp *qp);
void sroce_req_taker_begin(struct sroce_qp *qp);
void sroce_req_taker_end(struct sroce_qp *qp);
int sroce_req_doorbell(struct sroce_qp *qp);
void sroce_rq_doorbell(struct sroce_qp *qp);

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

#endif /* SROCE_DOORBELL_H */
