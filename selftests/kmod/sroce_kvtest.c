// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_kvtest.c: a test module for sroce's kernel verbs, as a kernel ULP
 * uses them. Loaded with dev=NAME, it runs its cases against that device
 * at load time, prints KTAP lines to the kernel log, undoes everything,
 * and fails to load (-EINVAL) if a case failed. UD loopback on the device
 * itself: a kernel QP sends to another kernel QP through the IPv4 GID,
 * and through a kernel SRQ, which is resized while it holds receives.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "kvt.h"

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the sroce device to test");

#define QKEY		0x1234567
#define NCASES		14
#define MSG		64
#define GRH		40

struct kvt {
	struct kvt_base base;		/* buf: MSG out, then GRH + MSG in */
	struct ib_cq *dcq;		/* ib_alloc_cq()'s, for ib_drain_qp() */
	struct ib_qp *a, *b, *c, *d;
	struct ib_srq *srq;
	struct ib_ah *ah;
	struct ib_qp_cap cap;		/* granted to a and b */
	u32 srq_max_sge;
	struct completion event;
	struct ib_wc wc[8];		/* polled; off the stack for KASAN */
};

static void kvt_comp(struct ib_cq *cq, void *ctx)
{
	complete(&((struct kvt *)ctx)->event);
}

struct kvt_cqe {
	struct ib_cqe cqe;
	int flushed;
};

static void kvt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_cqe *c = container_of(wc->wr_cqe, struct kvt_cqe, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		c->flushed++;
}

static struct ib_qp *kvt_qp(struct kvt *t, struct ib_cq *cq,
			    struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			.max_send_sge = 2, .max_recv_sge = srq ? 0 : 2,
			.max_inline_data = 64,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_UD,
	};

	struct ib_qp *qp = ib_create_qp(t->base.pd, &init);

	if (!IS_ERR(qp) && !srq)
		t->cap = init.cap;
	return qp;
}

static int kvt_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = QKEY,
	};
	int err;

	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	a.qp_state = IB_QPS_RTR;
	err = err ?: ib_modify_qp(qp, &a, IB_QP_STATE);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	return err ?: ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* An AH to the device's own first IPv4 RoCE v2 GID. */
static struct ib_ah *kvt_ah(struct kvt *t)
{
	struct rdma_ah_attr attr = {};

	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &t->base.gid, 0, t->base.gid_index, 64, 0);
	return rdma_create_ah(t->base.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

/* Poll until @n completions or a second passes; return how many. */
static int kvt_poll(struct kvt *t, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + HZ;
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(t->base.cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(1000, 2000);
	}
	return got;
}

static const struct ib_wc *kvt_find(const struct ib_wc *wc, int n, u64 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].wr_id == id)
			return &wc[i];
	return NULL;
}

static void kvt_cases(struct kvt *t)
{
	struct ib_sge in = { .addr = t->base.dma + MSG, .length = GRH + MSG,
			     .lkey = t->base.pd->local_dma_lkey };
	struct ib_sge out[2] = {
		{ .addr = t->base.dma, .length = MSG / 2,
		  .lkey = t->base.pd->local_dma_lkey },
		{ .addr = t->base.dma + MSG / 2, .length = MSG / 2,
		  .lkey = t->base.pd->local_dma_lkey },
	};
	struct ib_sge many[8];
	struct ib_recv_wr rwr[5] = {}, too_many = { .sg_list = many };
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_ud_wr swr = {
		.wr = {
			.wr_id = 0x5e4d, .sg_list = out, .num_sge = 2,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0xfeedbeef),
		},
		.ah = t->ah, .remote_qkey = QKEY,
	};
	const struct ib_wc *s, *r;
	struct ib_wc *wc = t->wc;
	int i, n, err;

	for (i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = in;
	if (t->cap.max_send_sge >= ARRAY_SIZE(many) ||
	    t->cap.max_recv_sge >= ARRAY_SIZE(many) ||
	    t->srq_max_sge >= ARRAY_SIZE(many) || t->cap.max_recv_wr != 4) {
		pr_info("Bail out! caps %u/%u/%u/%u beyond the test's\n",
			t->cap.max_send_sge, t->cap.max_recv_sge,
			t->srq_max_sge, t->cap.max_recv_wr);
		return;
	}
	for (i = 0; i < 5; i++) {
		rwr[i].wr_id = 0x100 + i;
		rwr[i].sg_list = &in;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 4 ? &rwr[i + 1] : NULL;
	}
	too_many.num_sge = t->cap.max_recv_sge + 1;
	err = ib_post_recv(t->b, &too_many, &bad_rwr);
	CASE(err == -EINVAL && bad_rwr == &too_many,
	     "post_recv: one SGE more than granted: -EINVAL, bad_wr at it (%d)",
	     err);
	err = ib_post_recv(t->b, rwr, &bad_rwr);
	CASE(err == -ENOMEM && bad_rwr == &rwr[4],
	     "post_recv: 5 WRs into 4 slots: -ENOMEM, bad_wr at the 5th (%d)",
	     err);

	swr.remote_qpn = t->b->qp_num;
	for (i = 0; i < MSG; i++)
		t->base.buf[i] = i * 7 + 1;
	err = ib_req_notify_cq(t->base.cq, IB_CQ_NEXT_COMP);
	err = err ?: ib_post_send(t->a, &swr.wr, &bad_swr);
	n = err ? err : kvt_poll(t, wc, 2);
	s = n == 2 ? kvt_find(wc, n, 0x5e4d) : NULL;
	r = n == 2 ? kvt_find(wc, n, 0x100) : NULL;
	CASE(s && s->status == IB_WC_SUCCESS && s->opcode == IB_WC_SEND &&
	     s->qp == t->a,
	     "UD SEND WITH IMM of 2 SGEs to another kernel QP: send completion, wc->qp (%d)",
	     n);
	CASE(r && r->status == IB_WC_SUCCESS && r->opcode == IB_WC_RECV &&
	     r->qp == t->b && r->src_qp == t->a->qp_num &&
	     r->byte_len == GRH + MSG && r->pkey_index == 0 &&
	     r->wc_flags == (IB_WC_GRH | IB_WC_WITH_IMM) &&
	     r->ex.imm_data == cpu_to_be32(0xfeedbeef) &&
	     !memcmp(t->base.buf + MSG + GRH, t->base.buf, MSG),
	     "... received: GRH and IMM flags, imm, src_qp, wc->qp, bytes");
	CASE(wait_for_completion_timeout(&t->event, HZ) > 0,
	     "... the armed CQ called the completion handler");

	swr.wr.wr_id = 0x1111;
	swr.wr.opcode = IB_WR_SEND;
	swr.wr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	swr.wr.sg_list = out;
	swr.wr.num_sge = 1;
	memset(t->base.buf + MSG, 0, GRH + MSG);
	err = ib_post_send(t->a, &swr.wr, &bad_swr);
	n = err ? err : kvt_poll(t, wc, 2);
	r = n == 2 ? kvt_find(wc, n, 0x101) : NULL;
	CASE(r && r->status == IB_WC_SUCCESS && r->byte_len == GRH + MSG / 2 &&
	     r->wc_flags == IB_WC_GRH &&
	     !memcmp(t->base.buf + MSG + GRH, t->base.buf, MSG / 2),
	     "inline SEND: received intact, no IMM flag (%d)", n);
	err = ib_req_notify_cq(t->base.cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	CASE(err == 0, "notify with REPORT_MISSED_EVENTS on an empty CQ: 0 (%d)",
	     err);

	swr.wr.send_flags = IB_SEND_SIGNALED;
	swr.wr.sg_list = many;
	swr.wr.num_sge = t->cap.max_send_sge + 1;
	err = ib_post_send(t->a, &swr.wr, &bad_swr);
	CASE(err == -EINVAL && bad_swr == &swr.wr,
	     "post_send: one SGE more than granted: -EINVAL, bad_wr at it (%d)",
	     err);
	swr.wr.sg_list = out;
	swr.wr.num_sge = 1;
	swr.wr.opcode = IB_WR_RDMA_WRITE;
	err = ib_post_send(t->a, &swr.wr, &bad_swr);
	CASE(err == -EINVAL, "post_send: RDMA WRITE on UD: -EINVAL (%d)", err);

	/* Through the SRQ: c takes its receives from there. */
	swr.wr.opcode = IB_WR_SEND;
	swr.wr.wr_id = 0x2222;
	swr.remote_qpn = t->c->qp_num;
	rwr[0].next = NULL;
	rwr[0].wr_id = 0x300;
	too_many.num_sge = t->srq_max_sge + 1;
	err = ib_post_srq_recv(t->srq, &too_many, &bad_rwr);
	CASE(err == -EINVAL, "post_srq_recv: too many SGEs: -EINVAL (%d)", err);
	err = ib_post_srq_recv(t->srq, rwr, &bad_rwr);
	err = err ?: ib_post_send(t->a, &swr.wr, &bad_swr);
	n = err ? err : kvt_poll(t, wc, 2);
	r = n == 2 ? kvt_find(wc, n, 0x300) : NULL;
	CASE(r && r->status == IB_WC_SUCCESS && r->qp == t->c,
	     "a receive through a kernel SRQ (%d)", n);

	/*
	 * ib_modify_srq(IB_SRQ_MAX_WR) grows the full SRQ; its receives and
	 * the ones posted after complete in order.
	 */
	{
		struct ib_srq_attr sa = { .max_wr = 16 };
		int k, got = 0;

		for (i = 0; i < 4; i++) {
			rwr[i].wr_id = 0x400 + i;
			rwr[i].next = i < 3 ? &rwr[i + 1] : NULL;
		}
		err = ib_post_srq_recv(t->srq, rwr, &bad_rwr);
		err = err ?: ib_modify_srq(t->srq, &sa, IB_SRQ_MAX_WR);
		for (i = 0; i < 4; i++)
			rwr[i].wr_id = 0x404 + i;
		err = err ?: ib_post_srq_recv(t->srq, rwr, &bad_rwr);
		for (k = 0; !err && k < 2; k++) {
			for (i = 0; !err && i < 4; i++)
				err = ib_post_send(t->a, &swr.wr, &bad_swr);
			n = err ? err : kvt_poll(t, wc, 8);
			for (i = 0; i < n; i++)
				if (wc[i].qp == t->c &&
				    wc[i].status == IB_WC_SUCCESS &&
				    wc[i].wr_id == 0x400 + got)
					got++;
		}
		CASE(!err && got == 8,
		     "ib_modify_srq grows a full kernel SRQ: 8 receives in order (%d, %d)",
		     err, got);
	}

	/* Moving to error flushes at once; the armed CQ then has events. */
	{
		struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

		err = ib_modify_qp(t->b, &a, IB_QP_STATE);
		n = ib_req_notify_cq(t->base.cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS);
		i = err ? err : kvt_poll(t, wc, 2);
		r = i == 2 ? kvt_find(wc, i, 0x102) : NULL;
		CASE(n > 0 && r && r->status == IB_WC_WR_FLUSH_ERR &&
		     r->opcode == IB_WC_RECV && r->qp == t->b,
		     "to error: receives flushed at once, notify reports them (%d, %d)",
		     n, i);
	}

	/*
	 * ib_drain_qp(): to error, then an RDMA WRITE without an AH (on UD
	 * too) and a receive, each waited for; what was posted is flushed.
	 */
	{
		struct kvt_cqe kc = { .cqe.done = kvt_done };
		struct ib_recv_wr dr[2] = {
			{ .next = &dr[1], .wr_cqe = &kc.cqe, .sg_list = &in,
			  .num_sge = 1 },
			{ .wr_cqe = &kc.cqe, .sg_list = &in, .num_sge = 1 },
		};

		err = ib_post_recv(t->d, dr, &bad_rwr);
		if (!err)
			ib_drain_qp(t->d);
		CASE(!err && kc.flushed == 2,
		     "ib_drain_qp on UD: returns, the 2 receives flushed (%d, %d)",
		     err, kc.flushed);
	}
}

/* The set-up, the cases and the teardown, on @t (zeroed). */
static int __init kvt_run(struct kvt *t)
{
	int err;

	init_completion(&t->event);
	err = kvt_open(&t->base, dev, MSG + GRH + MSG, kvt_comp, t);
	if (err)
		goto out;
	{
		struct ib_srq_init_attr sa = {
			.attr = { .max_wr = 4, .max_sge = 2 },
			.srq_type = IB_SRQT_BASIC,
		};

		t->srq = ib_create_srq(t->base.pd, &sa);
		if (IS_ERR(t->srq)) {
			err = PTR_ERR(t->srq);
			t->srq = NULL;
			goto out;
		}
		t->srq_max_sge = sa.attr.max_sge;
	}
	t->dcq = ib_alloc_cq(t->base.ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->dcq)) {
		err = PTR_ERR(t->dcq);
		t->dcq = NULL;
		goto out;
	}
	t->a = kvt_qp(t, t->base.cq, NULL);
	t->b = IS_ERR(t->a) ? t->a : kvt_qp(t, t->base.cq, NULL);
	t->c = IS_ERR(t->b) ? t->b : kvt_qp(t, t->base.cq, t->srq);
	t->d = IS_ERR(t->c) ? t->c : kvt_qp(t, t->dcq, NULL);
	if (IS_ERR(t->d)) {
		err = PTR_ERR(t->d);
		goto out;
	}
	err = kvt_rts(t->a) ?: kvt_rts(t->b) ?: kvt_rts(t->c) ?: kvt_rts(t->d);
	if (err)
		goto out;
	t->ah = kvt_ah(t);
	if (IS_ERR(t->ah)) {
		err = PTR_ERR(t->ah);
		t->ah = NULL;
		goto out;
	}
	kvt_cases(t);
out:
	if (t->ah)
		rdma_destroy_ah(t->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (!IS_ERR_OR_NULL(t->d))
		ib_destroy_qp(t->d);
	if (!IS_ERR_OR_NULL(t->c))
		ib_destroy_qp(t->c);
	if (!IS_ERR_OR_NULL(t->b))
		ib_destroy_qp(t->b);
	if (!IS_ERR_OR_NULL(t->a))
		ib_destroy_qp(t->a);
	if (t->srq)
		ib_destroy_srq(t->srq);
	if (t->dcq)
		ib_free_cq(t->dcq);
	kvt_close(&t->base);
	return err;
}

static int __init kvt_init(void)
{
	struct kvt *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int err = -ENOMEM;

	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", NCASES);
	if (t)
		err = kvt_run(t);
	kfree(t);
	return kvt_finish(err, NCASES);
}

static void __exit kvt_exit(void)
{
}

module_init(kvt_init);
module_exit(kvt_exit);
MODULE_DESCRIPTION("sroce kernel verbs test");
MODULE_LICENSE("Dual BSD/GPL");
