// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * doorbell.c: the send doorbell. The provider rings it (a POST_SEND
 * command with no work requests) after filling the send ring, and the
 * requester (req.c) sends the new WQEs in that system call; kernel QPs
 * ring it from a work item (kverbs.c). While the completer holds the
 * requester's lock, it sends for the doorbells rung meanwhile (the taker).
 * Also the verbs post_send and post_recv, which for a user QP are only
 * doorbells.
 */
#include "device.h"
#include "doorbell.h"
#include "kverbs.h"
#include "loop.h"
#include "qp.h"
#include "req.h"

/**
 * sroce_req_taker_begin() - the completer will send for doorbells
 * @qp: an RC QP; sq_lock held, bottom halves off
 *
 * The completer runs the requester after each response it takes, and a
 * response's work (completions, the window) holds sq_lock a while. A
 * doorbell rung on another CPU meanwhile (a polling CPU's thread takes the
 * ACKs of a streaming QP while its poster posts) would wait for the lock
 * and then find its WQEs sent already; from here to sroce_req_taker_end()
 * it leaves them to the completer instead, and goes back to its caller.
 */
void sroce_req_taker_begin(struct sroce_qp *qp)
{
	set_bit(SROCE_SQ_TAKER, &qp->sq_flags);
}

/**
 * sroce_req_taker_end() - send what doorbells left, and stop taking them
 * @qp: an RC QP; sq_lock held since sroce_req_taker_begin()
 *
 * A doorbell sets SROCE_SQ_RUNG, then looks at SROCE_SQ_TAKER; we clear
 * the one, then look at the other. Either it sees ours clear and waits
 * for the lock, or we see its flag and send again. Whoever clears the flag
 * sends next, with sq_lock held, after a fully ordered test_and_clear_bit().
 * Threads that ring without pause could keep a completer in softirq here:
 * after SROCE_TAKER_PASSES passes, the QP's send work sends for them.
 */
void sroce_req_taker_end(struct sroce_qp *qp)
{
	unsigned int pass;

	for (pass = 1;; pass++) {
		sroce_req_send(qp);
		clear_bit(SROCE_SQ_TAKER, &qp->sq_flags);
		/* Orders the clear before the test; the doorbell's likewise. */
		smp_mb__after_atomic();
		if (!test_and_clear_bit(SROCE_SQ_RUNG, &qp->sq_flags))
			return;
		if (pass == SROCE_TAKER_PASSES) {
			sroce_req_defer(qp);
			return;
		}
		set_bit(SROCE_SQ_TAKER, &qp->sq_flags);
	}
}

/*
 * A doorbell rang: before it waits for sq_lock, the completer that holds
 * the lock may send for it (sroce_req_taker_begin()).
 */
static void sroce_req_rung(struct sroce_qp *qp)
{
	/* The ring's prod before the flag, the flag before the tests. */
	smp_mb__before_atomic();
	set_bit(SROCE_SQ_RUNG, &qp->sq_flags);
	smp_mb__after_atomic();	/* pairs with sroce_req_taker_end()'s */
}

/*
 * A pass of the requester in process context: for a doorbell (@rung: it
 * counts towards the QP's streak), or for the send work.
 */
static void sroce_req_run(struct sroce_qp *qp, bool rung)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	unsigned int streak = 0;
	bool failed = false;

	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		/* In the error state, what was just posted is flushed. */
		sroce_qp_error(qp);
		return;
	}
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		streak = READ_ONCE(qp->streak) + rung;
		WRITE_ONCE(qp->streak, streak);
	}
	local_bh_disable();
	/*
	 * Loopback traffic is received in this call, or by the polling CPU
	 * if the QP streams: rung again and again without waiting (loop.c).
	 */
	sroce_loop_begin(sdev, streak > SROCE_STREAM_DOORBELLS);
	sroce_req_rung(qp);
	while (!spin_trylock(&qp->sq_lock)) {
		if (test_bit(SROCE_SQ_TAKER, &qp->sq_flags))
			goto taken;
		cpu_relax();
	}
	/* We send next: what rang before this is ours to send. */
	test_and_clear_bit(SROCE_SQ_RUNG, &qp->sq_flags);
	failed = sroce_req_resume(qp);
	spin_unlock(&qp->sq_lock);
taken:
	sroce_loop_end(sdev);
	local_bh_enable();
	/*
	 * Another context may have moved the QP to error (and flushed) while
	 * we waited for the lock: flush what we were rung for too.
	 */
	if (failed || READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_error(qp);
}

/**
 * sroce_req_doorbell() - send what is posted on a QP's send ring
 * @qp: the QP; process context, no locks held
 *
 * Run in the system call of a user QP's doorbell, and from a work item for
 * kernel QPs (kverbs.c). In the error state, what was posted to either
 * queue is flushed. If the completer holds the requester's lock, it sends
 * what was posted (sroce_req_taker_begin()). One pass: what is left past
 * its budget goes on in the QP's send work.
 *
 * Return: 0.
 */
int sroce_req_doorbell(struct sroce_qp *qp)
{
	sroce_req_run(qp, true);
	return 0;
}

/* The requester's deferred passes, for every QP of every device. */
static struct workqueue_struct *sroce_wq;

/**
 * sroce_doorbell_init() - module init: the requester's workqueue
 *
 * It may carry kernel storage traffic, so it can make progress under
 * memory pressure (WQ_MEM_RECLAIM).
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_doorbell_init(void)
{
	sroce_wq = alloc_workqueue("sroce_req", WQ_MEM_RECLAIM, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

/* Module exit, once no QP is left. */
void sroce_doorbell_exit(void)
{
	destroy_workqueue(sroce_wq);
}

/*
 * The send work: a kernel QP's doorbell (kverbs.c), or the rest of a pass
 * that ran out of budget. It held a QP reference since it was queued.
 */
static void sroce_req_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, send_work);

	sroce_req_run(qp, !sroce_qp_is_user(qp));
	sroce_qp_put(qp);
}

/* Called by sroce_create_qp() for every QP. */
void sroce_req_work_init(struct sroce_qp *qp)
{
	INIT_WORK(&qp->send_work, sroce_req_work);
}

/**
 * sroce_req_defer() - leave the rest of the requester's work to the QP's
 *	send work
 * @qp: the QP; any context. Under sq_lock, or before destroy can start
 *	(a kernel QP's post_send).
 *
 * The work holds a QP reference while it is queued. Nothing is queued
 * once destroy has begun (qp->req.dying).
 */
void sroce_req_defer(struct sroce_qp *qp)
{
	if (READ_ONCE(qp->req.dying))
		return;
	kref_get(&qp->ref);
	if (!queue_work(sroce_wq, &qp->send_work))
		sroce_qp_put(qp);
}

/**
 * sroce_req_work_stop() - destroy: the send work is done for good
 * @qp: the QP; qp->req.dying is set, so nothing queues it again
 */
void sroce_req_work_stop(struct sroce_qp *qp)
{
	if (cancel_work_sync(&qp->send_work))
		sroce_qp_put(qp);
}

/**
 * sroce_rq_doorbell() - the receive doorbell, rung only in the error state
 * @qp: a user QP; process context, no locks held
 *
 * Receives posted to a QP in the error state are flushed at once.
 */
void sroce_rq_doorbell(struct sroce_qp *qp)
{
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_error(qp);
}

/**
 * sroce_post_send() - post_send: the doorbell of a user QP, or work
 *	requests to a kernel QP
 * @ibqp: the QP
 * @wr: NULL for a user QP, which posts through the ring
 * @bad_wr: for kernel QPs, the first work request not posted
 *
 * Return: 0 or a negative errno.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (!sroce_qp_is_user(qp))
		return sroce_kverbs_post_send(qp, wr, bad_wr);
	if (wr)
		return -EOPNOTSUPP;
	return sroce_req_doorbell(qp);
}

/**
 * sroce_post_recv() - post_recv: the receive doorbell of a user QP, rung
 *	only in the error state, or work requests to a kernel QP
 * @ibqp: the QP
 * @wr: NULL for a user QP, which posts through the ring
 * @bad_wr: for kernel QPs, the first work request not posted
 *
 * Return: 0 or a negative errno.
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (!sroce_qp_is_user(qp))
		return sroce_kverbs_post_recv(qp, wr, bad_wr);
	if (wr)
		return -EOPNOTSUPP;
	sroce_rq_doorbell(qp);
	return 0;
}
