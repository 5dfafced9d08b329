/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rcresp.h: the responder of RC and UC QPs.
 */
#ifndef SROCE_RCRESP_H
#define SROCE_RCRESP_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/interrupt.h>
#include <rdma/sroce-abi.h>

#include "core/rc.h"
#include "queue.h"

#define SROCE_MAX_RD_ATOMIC	128	/* as rxe: perftest asks for the peer's */

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

/*
 * An RDMA READ being answered: its responses from packet @k on. Fixed when
 * it starts (the path MTU too), so that nothing modify_qp changes later
 * moves its checked range.
 */
struct sroce_rd {
	u32 psn;			/* of the first response */
	u64 va;
	u32 rkey;
	u32 len;
	u32 mtu;			/* path MTU in bytes */
	u32 k;				/* next response to send */
	u32 n;				/* responses in all; k == n: none */
};

/* Receive state of an RC or UC QP, under qp->resp_lock. */
struct sroce_resp {
	u32 epsn;
	u32 msn;
	u32 unacked;			/* accepted and not ACKed yet */
	bool owed;			/* one of them asked (AckReq) */
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
	/*
	 * A READ longer than one burst is answered by @task, a burst at a
	 * time, so that the receiving host can take them in between. While
	 * the tasklet owns the responder (@busy), later requests wait in
	 * @backlog, in order, and the tasklet takes them after the READ.
	 * While the QP's rate holds the READ back, @pacer schedules the
	 * tasklet. It is armed while busy (the tasklet's reference covers
	 * it); should it fire after the READ ended (the rate was lifted and
	 * the rest sent at once), the tasklet finds the responder idle and
	 * does nothing. Destroy cancels it (sroce_rcresp_stop()).
	 */
	struct sroce_rd rd;
	bool busy;
	struct sk_buff_head backlog;
	struct tasklet_struct task;	/* holds a QP reference while busy */
	struct hrtimer pacer;
};

int sroce_rcresp_init(struct sroce_qp *qp);
void sroce_rcresp_cleanup(struct sroce_qp *qp);
void sroce_rcresp_reset(struct sroce_qp *qp);
void sroce_rcresp_start(struct sroce_qp *qp);
void sroce_rcresp_stop(struct sroce_qp *qp);
void sroce_rcresp_rcv(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb, const struct sroce_pkt *pkt);
void sroce_rcresp_flush(struct sroce_qp *qp);
void sroce_rcresp_task(struct tasklet_struct *t);

#endif /* SROCE_RCRESP_H */
