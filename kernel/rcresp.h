/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rcresp.h: the responder of RC and UC QPs.
 */
#ifndef SROCE_RCRESP_H
#define SROCE_RCRESP_H

#include <rdma/sroce-abi.h>

#include "core/rc.h"
#include "queue.h"

#define SROCE_MAX_RD_ATOMIC	128	/* as rxe: perftest asks for the peer's */

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;

/* A receive WQE taken from a ring (RQ or SRQ). */
struct sroce_rwqe {
	struct sroce_recv_wqe w;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

/*
 * A responder resource: an RDMA READ or atomic request executed, kept to
 * answer its duplicates (IBTA 9.7.5.1.3; max_dest_rd_atomic of them).
 */
struct sroce_res {
	u8 op;				/* 0: free; enum sroce_rc_op + 1 */
	u32 psn;			/* first PSN */
	u32 npsn;
	u64 orig;			/* atomic: the value it returned */
};

/* Receive state of an RC or UC QP, under qp->resp_lock. */
struct sroce_resp {
	u32 epsn;
	u32 msn;
	u32 unacked;			/* accepted and not ACKed yet */
	bool nak_sent;
	bool have_wqe;			/* a SEND is placing into wqe */
	struct sroce_rc_resp_msg msg;
	u32 recv_off;			/* SEND bytes placed so far */
	u64 write_va;			/* the RDMA WRITE in progress */
	u32 write_rkey;
	u32 write_len;
	u32 res_next;
	struct sroce_res *res;		/* SROCE_MAX_RD_ATOMIC of them */
	struct sroce_rwqe wqe;
};

int sroce_rcresp_init(struct sroce_qp *qp);
void sroce_rcresp_cleanup(struct sroce_qp *qp);
void sroce_rcresp_start(struct sroce_qp *qp);
void sroce_rcresp_rcv(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb, const struct sroce_pkt *pkt);
void sroce_rcresp_flush(struct sroce_qp *qp);

#endif /* SROCE_RCRESP_H */
