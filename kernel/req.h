/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * req.h: the requester: send WQEs to packets, for all QP types, and the
 * send-side state of RC and UC QPs that the completer (comp.c) shares.
 */
#ifndef SROCE_REQ_H
#define SROCE_REQ_H

#include <linux/timer.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "core/rc.h"
#include "queue.h"

struct sroce_qp;
struct sroce_swqe;

/*
 * A send WQE of an RC or UC QP, copied out of the ring and checked once
 * when the requester first takes it. The ring slot stays allocated (the
 * provider does not reuse it) until the WQE completes; only its data (the
 * SGE list or the inline bytes) is read from the ring again, and checked
 * again, when a packet is built.
 */
struct sroce_sq_wqe {
	struct sroce_send_wqe w;
	u32 len;			/* message length in bytes */
	u32 first_psn;
	u32 npsn;			/* PSNs the message takes */
	u8 op;				/* enum sroce_rc_op */
	u8 status;			/* failed before it was sent */
	u8 local;			/* enum sroce_local_op */
	bool done;			/* the local operation ran */
};

/*
 * The opcode of a kernel QP's IB_WR_REG_MR in its send ring, with a
 * struct sroce_fast_reg in place of wr (kverbs.c); a user QP's WQE with
 * it fails.
 */
#define SROCE_KWR_REG_MR	0xf0

/*
 * Work requests that send nothing and take no PSN: they run when the
 * requester reaches them (a LOCAL_INV once every WQE before it has
 * completed) and complete in order.
 */
enum sroce_local_op {
	SROCE_LOCAL_NONE,
	SROCE_LOCAL_INV,
	SROCE_LOCAL_REG,
	SROCE_LOCAL_BIND,
};

/*
 * Send state, under qp->sq_lock. A UD QP (or the GSI QP) uses only @ud and
 * @dying. For an RC or UC QP, indices are free-running like the ring's:
 * [head, cur) were sent (and not acknowledged), [cur, sq.index) were taken
 * from the ring and not sent (or are being resent); sq.index is the next
 * WQE to take from the ring.
 */
struct sroce_req {
	struct sroce_sq_wqe *wqe;	/* one per ring slot */
	u32 head;			/* oldest not completed */
	u32 cur;			/* the WQE being sent */
	u32 cur_pkt;			/* its next packet */
	u32 psn;			/* the PSN of that packet */
	u32 next_psn;			/* first PSN of the next WQE taken */
	u32 una;			/* oldest PSN not acknowledged */
	u32 nxt;			/* one past the highest PSN sent */
	u32 rd_atomic;			/* READs and atomics in [head, cur) */
	u32 unasked;			/* packets sent without AckReq */
	u32 probe_nxt;			/* nxt when the probe was armed */
	u32 mtu;			/* path MTU in bytes */
	u32 window;			/* PSNs in flight, sroce_rc_window_*() */
	u64 timeout_ns;			/* local ACK timeout, 0: none */
	struct sroce_rc_retry retry;
	struct timer_list timer;	/* ACK timeout or RNR wait */
	unsigned long due;		/* when it is due, in jiffies */
	bool armed;			/* it is due at @due */
	bool rnr_wait;			/* the timer runs for an RNR NAK */
	bool probe;			/* the timer runs as a probe */
	bool failed;			/* send nothing more: the QP fails */
	bool failed_done;		/* it completed: the rest flush */
	bool dying;			/* destroy: never arm the timers */
	struct sroce_swqe *ud;		/* UD, GSI: the WQE being sent */
	/*
	 * A WQE's SGEs, copied from the ring (which its user may rewrite)
	 * to be checked and used; under sq_lock. Not on the stack, where
	 * the kernel zeroes every array on each call (INIT_STACK_ALL_ZERO).
	 */
	struct sroce_sge sge[SROCE_MAX_SGE];
};

int sroce_req_init(struct sroce_qp *qp);
int sroce_req_ud_init(struct sroce_qp *qp);
void sroce_req_cleanup(struct sroce_qp *qp);
void sroce_req_start(struct sroce_qp *qp);
void sroce_req_update(struct sroce_qp *qp);
void sroce_req_send(struct sroce_qp *qp);
bool sroce_req_resume(struct sroce_qp *qp);
void sroce_req_seek(struct sroce_qp *qp, u32 psn);
void sroce_req_arm(struct sroce_qp *qp, u64 ns);
void sroce_req_disarm(struct sroce_qp *qp);
void sroce_req_stop(struct sroce_qp *qp);

#endif /* SROCE_REQ_H */
