// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * negative: RC errors over sroce, each with the exact completion status
 * or errno that ConnectX and rdma_rxe give.
 *
 * A requester QP on device A (sroce_h1) and its responder on device B
 * (sroce_h2), in two network namespaces joined by veth, driven from this
 * one process. The cases: a bad lkey and an SGE past its MR's end
 * (IBV_WC_LOC_PROT_ERR); a bad rkey on WRITE and READ, a WRITE or READ
 * past the MR's end, a WRITE without the MR's or the QP's remote-write
 * right (IBV_WC_REM_ACCESS_ERR); an atomic on an unaligned remote address
 * (IBV_WC_REM_INV_REQ_ERR); posting in RESET, INIT and RTR (EINVAL) and in
 * ERROR (IBV_WC_WR_FLUSH_ERR); a SEND with no receive posted (RNR NAKs,
 * then IBV_WC_RNR_RETRY_EXC_ERR; and a late receive that is still taken);
 * a destroyed peer QP (IBV_WC_RETRY_EXC_ERR); more SGEs, inline data or
 * WRs than the QP's caps (EINVAL/ENOMEM with bad_wr, or create_qp fails).
 *
 * After every case: the WRs after the failed one, and WRs posted later,
 * complete with IBV_WC_WR_FLUSH_ERR; no byte of either side's buffer,
 * inside or outside its MR, changed unless the case says so; and a new
 * pair of QPs between the same devices still moves data.
 *
 * usage: negative [-a DEVICE] [-b DEVICE]   (sroce_h1, sroce_h2)
 */
#include "kselftest_harness.h"

#include <limits.h>
#include <unistd.h>

#include "verbs_util.h"

#define LEN		65536		/* each MR */
#define GUARD		4096		/* bytes outside it, each end */
#define WAIT_MS		10000		/* for a completion that must come */
#define QUIET_MS	200		/* for one that must not */

static const char *dev_name[2] = { "sroce_h1", "sroce_h2" };

/* A buffer with an MR in its middle, and the content it must keep */
struct gbuf {
	uint8_t *mem, *shadow, *base;	/* base: the MR's first byte */
	struct ibv_mr *mr;
};

struct end {
	struct vu_dev dev;
	struct ibv_cq *scq, *rcq;
	struct gbuf buf;
};

static int gbuf_init(struct gbuf *g, struct vu_dev *d, unsigned int access,
		     uint8_t pattern)
{
	size_t i;

	g->mem = aligned_alloc(4096, LEN + 2 * GUARD);
	g->shadow = malloc(LEN + 2 * GUARD);
	if (!g->mem || !g->shadow)
		return ENOMEM;
	for (i = 0; i < LEN + 2 * GUARD; i++)
		g->mem[i] = pattern + i * 7;
	memcpy(g->shadow, g->mem, LEN + 2 * GUARD);
	g->base = g->mem + GUARD;
	g->mr = ibv_reg_mr(d->pd, g->base, LEN, access);
	return g->mr ? 0 : errno;
}

static void gbuf_fini(struct gbuf *g)
{
	if (g->mr)
		ibv_dereg_mr(g->mr);
	free(g->mem);
	free(g->shadow);
}

/* The first changed byte's offset from the MR's start, or LONG_MIN */
static long gbuf_changed(const struct gbuf *g)
{
	long off = vu_first_diff(g->mem, g->shadow, LEN + 2 * GUARD);

	return off < 0 ? LONG_MIN : off - GUARD;
}

static int end_open(struct end *e, const char *name, unsigned int access,
		    uint8_t pattern)
{
	int err = vu_open(&e->dev, name);

	if (err)
		return err;
	e->scq = ibv_create_cq(e->dev.ctx, 256, NULL, NULL, 0);
	e->rcq = ibv_create_cq(e->dev.ctx, 256, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		return ENOMEM;
	return gbuf_init(&e->buf, &e->dev, access, pattern);
}

static void end_close(struct end *e)
{
	gbuf_fini(&e->buf);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	vu_close(&e->dev);
}

static struct ibv_qp *rc_qp(struct end *e)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 64,
	};

	return vu_create_qp(&e->dev, IBV_QPT_RC, e->scq, e->rcq, &cap);
}

/*
 * Connect @req (on @a) and @resp (on @b); @rc and @sc, if not NULL, adjust
 * the requester's and responder's connection parameters.
 */
static int rc_connect(struct end *a, struct ibv_qp *req, struct end *b,
		      struct ibv_qp *resp, void (*rc)(struct vu_conn *),
		      void (*sc)(struct vu_conn *))
{
	struct vu_conn c = vu_conn_default(&b->dev, resp->qp_num, 0);
	int err;

	if (rc)
		rc(&c);
	err = vu_connect(&a->dev, req, &c);
	if (err)
		return err;
	c = vu_conn_default(&a->dev, req->qp_num, 0);
	if (sc)
		sc(&c);
	return vu_connect(&b->dev, resp, &c);
}

static int post(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		struct ibv_sge *sge, int nsge, uint64_t raddr, uint32_t rkey,
		uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = opcode, .sg_list = sge,
		.num_sge = nsge, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, struct ibv_sge *sge, int nsge,
		     uint64_t wr_id)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = nsge }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static struct ibv_sge sge_of(struct gbuf *g, size_t off, uint32_t len)
{
	return (struct ibv_sge){ .addr = (uintptr_t)g->base + off,
				 .length = len, .lkey = g->mr->lkey };
}

/* A key naming no MR: same index, another generation (key = idx << 8 | gen) */
static uint32_t stale(uint32_t key)
{
	return key ^ 0x5a;
}

FIXTURE(neg) {
	struct end a, b;	/* the requester's end, the responder's */
	struct ibv_qp *req, *resp;
	struct ibv_mr *ro;	/* a second MR, without remote write */
};

FIXTURE_SETUP(neg)
{
	const unsigned int all = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC;

	ASSERT_EQ(0, end_open(&self->a, dev_name[0], all, 0x11));
	ASSERT_EQ(0, end_open(&self->b, dev_name[1], all, 0x99));
	self->req = rc_qp(&self->a);
	self->resp = rc_qp(&self->b);
	ASSERT_NE(NULL, self->req);
	ASSERT_NE(NULL, self->resp);
}

/*
 * A new pair of QPs between the same devices moves a SEND, a WRITE and a
 * READ of 4 KiB, correctly: the error broke nothing beyond its QP.
 */
static int still_works(struct end *a, struct end *b)
{
	struct ibv_mr *ma = NULL, *mb = NULL;
	struct ibv_qp *q1 = rc_qp(a), *q2 = rc_qp(b);
	uint8_t *x = malloc(4 * 4096), *y = malloc(4 * 4096);
	struct ibv_sge s;
	struct ibv_wc wc[4];
	int err = EIO, i;

	if (!q1 || !q2 || !x || !y || rc_connect(a, q1, b, q2, NULL, NULL))
		goto out;
	for (i = 0; i < 4 * 4096; i++) {
		x[i] = i * 13 + 1;
		y[i] = 0;
	}
	ma = ibv_reg_mr(a->dev.pd, x, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	mb = ibv_reg_mr(b->dev.pd, y, 4 * 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!ma || !mb)
		goto out;
	s = (struct ibv_sge){ (uintptr_t)y, 4096, mb->lkey };
	if (post_recv(q2, &s, 1, 1))
		goto out;
	s = (struct ibv_sge){ (uintptr_t)x, 4096, ma->lkey };
	if (post(q1, IBV_WR_SEND, &s, 1, 0, 0, 1))
		goto out;
	s = (struct ibv_sge){ (uintptr_t)x + 4096, 4096, ma->lkey };
	if (post(q1, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)y + 4096, mb->rkey,
		 2))
		goto out;
	s = (struct ibv_sge){ (uintptr_t)x + 2 * 4096, 4096, ma->lkey };
	if (post(q1, IBV_WR_RDMA_READ, &s, 1, (uintptr_t)y, mb->rkey, 3))
		goto out;
	if (vu_poll(a->scq, wc, 3, WAIT_MS) != 3 ||
	    vu_poll(b->rcq, wc + 3, 1, WAIT_MS) != 1)
		goto out;
	for (i = 0; i < 4; i++)
		if (wc[i].status != IBV_WC_SUCCESS) {
			vu_diag("new QPs: WR %llu: %s",
				(unsigned long long)wc[i].wr_id,
				vu_wc_status(wc[i].status));
			goto out;
		}
	if (memcmp(x, y, 2 * 4096) || memcmp(x, x + 2 * 4096, 4096)) {
		vu_diag("new QPs: data differ");
		goto out;
	}
	err = 0;
out:
	if (err)
		vu_diag("a new pair of QPs does not work");
	if (q1)
		ibv_destroy_qp(q1);
	if (q2)
		ibv_destroy_qp(q2);
	if (ma)
		ibv_dereg_mr(ma);
	if (mb)
		ibv_dereg_mr(mb);
	free(x);
	free(y);
	return err;
}

FIXTURE_TEARDOWN(neg)
{
	/* Nothing the case did not expect was written, in or around MRs */
	EXPECT_EQ(LONG_MIN, gbuf_changed(&self->a.buf));
	EXPECT_EQ(LONG_MIN, gbuf_changed(&self->b.buf));
	EXPECT_EQ(0, still_works(&self->a, &self->b));
	if (self->req)
		EXPECT_EQ(0, ibv_destroy_qp(self->req));
	if (self->resp)
		EXPECT_EQ(0, ibv_destroy_qp(self->resp));
	if (self->ro)
		EXPECT_EQ(0, ibv_dereg_mr(self->ro));
	end_close(&self->a);
	end_close(&self->b);
}

/* One completion from @cq within WAIT_MS; its status, or -1 if none */
static int wait_status(struct ibv_cq *cq, struct ibv_wc *wc)
{
	if (vu_poll(cq, wc, 1, WAIT_MS) != 1)
		return -1;
	return wc->status;
}

#define ASSERT_STATUS(want, cq, wc) do {				\
	int __st = wait_status(cq, wc);					\
	ASSERT_EQ((int)(want), __st) {					\
		TH_LOG("completion status: %s, expected %s",		\
		       __st < 0 ? "(none)" : vu_wc_status(__st),	\
		       vu_wc_status(want));				\
	}								\
} while (0)

/*
 * The requester's QP failed: a WR posted now completes with
 * IBV_WC_WR_FLUSH_ERR, and nothing else is left on its CQ.
 */
static void expect_flushed(struct __test_metadata *_metadata,
			   struct end *a, struct ibv_qp *qp)
{
	struct ibv_sge s = sge_of(&a->buf, 0, 16);
	struct ibv_wc wc;

	ASSERT_EQ(0, post(qp, IBV_WR_SEND, &s, 1, 0, 0, 99));
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, a->scq, &wc);
	EXPECT_EQ(99u, wc.wr_id);
	EXPECT_EQ(qp->qp_num, wc.qp_num);
	EXPECT_EQ(0, vu_poll(a->scq, &wc, 1, QUIET_MS));
}

/* A SEND and a WRITE posted behind a failing WR: both flushed, in order */
static void post_two_more(struct __test_metadata *_metadata,
			  struct end *a, struct end *b, struct ibv_qp *qp)
{
	struct ibv_sge s = sge_of(&a->buf, 0, 32);

	ASSERT_EQ(0, post(qp, IBV_WR_SEND, &s, 1, 0, 0, 2));
	ASSERT_EQ(0, post(qp, IBV_WR_RDMA_WRITE, &s, 1,
			  (uintptr_t)b->buf.base, b->buf.mr->rkey, 3));
}

static void reap_two_more(struct __test_metadata *_metadata, struct end *a)
{
	struct ibv_wc wc;

	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, a->scq, &wc);
	EXPECT_EQ(2u, wc.wr_id);
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, a->scq, &wc);
	EXPECT_EQ(3u, wc.wr_id);
}

/* A local protection error: the requester's own SGE is bad. */
static void local_err(struct __test_metadata *_metadata,
		      FIXTURE_DATA(neg) *self, struct ibv_sge *bad_sge)
{
	struct ibv_sge r = sge_of(&self->b.buf, 0, 4096);
	struct ibv_wc wc;

	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, NULL));
	ASSERT_EQ(0, post_recv(self->resp, &r, 1, 7));
	ASSERT_EQ(0, post(self->req, IBV_WR_SEND, bad_sge, 1, 0, 0, 1));
	post_two_more(_metadata, &self->a, &self->b, self->req);
	ASSERT_STATUS(IBV_WC_LOC_PROT_ERR, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	EXPECT_EQ(self->req->qp_num, wc.qp_num);
	reap_two_more(_metadata, &self->a);
	expect_flushed(_metadata, &self->a, self->req);
	/* nothing reached the responder: its receive is still posted */
	EXPECT_EQ(0, vu_poll(self->b.rcq, &wc, 1, QUIET_MS));
}

TEST_F(neg, bad_lkey)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 64);

	s.lkey = stale(s.lkey);
	local_err(_metadata, self, &s);
}

TEST_F(neg, sge_past_mr_end)
{
	struct ibv_sge s = sge_of(&self->a.buf, LEN - 16, 32);

	local_err(_metadata, self, &s);
}

/*
 * A remote error: the responder NAKs, the requester's WR completes with
 * @want and its QP fails; the responder's QP fails too and flushes the
 * receive posted before (a receive posted after: recv_after_remote_error).
 */
static void remote_err(struct __test_metadata *_metadata,
		       FIXTURE_DATA(neg) *self, enum ibv_wr_opcode op,
		       uint64_t raddr, uint32_t rkey, uint32_t len,
		       enum ibv_wc_status want)
{
	struct ibv_sge s = sge_of(&self->a.buf, 256, len);
	struct ibv_sge r = sge_of(&self->b.buf, 0, 4096);
	struct ibv_wc wc;

	ASSERT_EQ(0, post_recv(self->resp, &r, 1, 7));
	ASSERT_EQ(0, post(self->req, op, &s, 1, raddr, rkey, 1)) {
		TH_LOG("ibv_post_send refused the WR: the provider must let the responder judge it");
	}
	post_two_more(_metadata, &self->a, &self->b, self->req);
	ASSERT_STATUS(want, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	EXPECT_EQ(self->req->qp_num, wc.qp_num);
	reap_two_more(_metadata, &self->a);
	expect_flushed(_metadata, &self->a, self->req);

	/* the responder's QP is in error */
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, self->b.rcq, &wc);
	EXPECT_EQ(7u, wc.wr_id);
	EXPECT_EQ(self->resp->qp_num, wc.qp_num);
}

static void connect_all(struct __test_metadata *_metadata,
			FIXTURE_DATA(neg) *self)
{
	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, NULL));
}

TEST_F(neg, write_bad_rkey)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base, stale(self->b.buf.mr->rkey),
		   64, IBV_WC_REM_ACCESS_ERR);
}

TEST_F(neg, read_bad_rkey)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_READ,
		   (uintptr_t)self->b.buf.base, stale(self->b.buf.mr->rkey),
		   64, IBV_WC_REM_ACCESS_ERR);
}

/* 64 bytes from 32 before the MR's end: all refused, nothing written */
TEST_F(neg, write_past_mr_end)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base + LEN - 32,
		   self->b.buf.mr->rkey, 64, IBV_WC_REM_ACCESS_ERR);
}

/* A multi-packet WRITE (8 KiB at path MTU 1024) past the MR's end */
TEST_F(neg, long_write_past_mr_end)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base + LEN - 4096,
		   self->b.buf.mr->rkey, 8192, IBV_WC_REM_ACCESS_ERR);
}

TEST_F(neg, read_past_mr_end)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_READ,
		   (uintptr_t)self->b.buf.base + LEN - 32,
		   self->b.buf.mr->rkey, 64, IBV_WC_REM_ACCESS_ERR);
}

/*
 * A receive posted to a responder whose QP went to the error state on
 * its own (a remote access error, not ibv_modify_qp) completes with
 * IBV_WC_WR_FLUSH_ERR, as on a QP moved to ERROR (post_in_error). The
 * provider cannot learn that from libibverbs' cached qp->state, which an
 * asynchronous error does not change: the kernel flags the ring
 * (SROCE_RING_ERR) and the provider rings the receive doorbell then.
 */
TEST_F(neg, recv_after_remote_error)
{
	struct ibv_sge r = sge_of(&self->b.buf, 0, 4096);
	struct ibv_wc wc;
	int st;

	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base, stale(self->b.buf.mr->rkey),
		   64, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(0, post_recv(self->resp, &r, 1, 8));
	st = wait_status(self->b.rcq, &wc);
	ASSERT_EQ(IBV_WC_WR_FLUSH_ERR, st) {
		TH_LOG("a receive posted to a QP that went to the error state on its own: %s",
		       st < 0 ? "never completes" : vu_wc_status(st));
	}
	EXPECT_EQ(8u, wc.wr_id);
}

/* The target MR was registered without IBV_ACCESS_REMOTE_WRITE. */
TEST_F(neg, write_mr_without_remote_write)
{
	connect_all(_metadata, self);
	self->ro = ibv_reg_mr(self->b.dev.pd, self->b.buf.base, LEN,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, self->ro);
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base, self->ro->rkey, 64,
		   IBV_WC_REM_ACCESS_ERR);
}

static void resp_read_only(struct vu_conn *c)
{
	c->access = IBV_ACCESS_REMOTE_READ;
}

static void resp_write_only(struct vu_conn *c)
{
	c->access = IBV_ACCESS_REMOTE_WRITE;
}

/* The responder's QP lacks IBV_ACCESS_REMOTE_WRITE (the MR has it). */
TEST_F(neg, write_qp_without_remote_write)
{
	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, resp_read_only));
	remote_err(_metadata, self, IBV_WR_RDMA_WRITE,
		   (uintptr_t)self->b.buf.base, self->b.buf.mr->rkey, 64,
		   IBV_WC_REM_ACCESS_ERR);
}

/* The responder's QP lacks IBV_ACCESS_REMOTE_READ. */
TEST_F(neg, read_qp_without_remote_read)
{
	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, resp_write_only));
	remote_err(_metadata, self, IBV_WR_RDMA_READ,
		   (uintptr_t)self->b.buf.base, self->b.buf.mr->rkey, 64,
		   IBV_WC_REM_ACCESS_ERR);
}

/* The responder's QP lacks IBV_ACCESS_REMOTE_ATOMIC. */
TEST_F(neg, atomic_qp_without_remote_atomic)
{
	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, resp_write_only));
	remote_err(_metadata, self, IBV_WR_ATOMIC_FETCH_AND_ADD,
		   (uintptr_t)self->b.buf.base + 64, self->b.buf.mr->rkey, 8,
		   IBV_WC_REM_ACCESS_ERR);
}

/*
 * An atomic on a remote address that is not 8-byte aligned: the
 * responder answers with an invalid-request NAK (rdma_rxe: its
 * RESPST_ERR_MISALIGNED_ATOMIC), so IBV_WC_REM_INV_REQ_ERR; the provider
 * must not refuse it at post time.
 */
TEST_F(neg, atomic_unaligned)
{
	connect_all(_metadata, self);
	remote_err(_metadata, self, IBV_WR_ATOMIC_FETCH_AND_ADD,
		   (uintptr_t)self->b.buf.base + 68, self->b.buf.mr->rkey, 8,
		   IBV_WC_REM_INV_REQ_ERR);
}

/*
 * Posting a send before RTS (RESET, INIT, RTR) fails at once with EINVAL
 * and bad_wr at the WR (IBA C10-29: the QP is not in a state that allows
 * sends); a receive fails in RESET only. Nothing completes.
 */
TEST_F(neg, post_before_rts)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 16);
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &s, .num_sge = 1 },
			   *rbad;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = 0 };
	struct vu_conn c;
	struct ibv_wc wc;

	/* RESET */
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(self->req, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(self->req, &rwr, &rbad));
	EXPECT_EQ(&rwr, rbad);

	/* INIT: receives may be posted now */
	ASSERT_EQ(0, ibv_modify_qp(self->req, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS));
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(self->req, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	s = sge_of(&self->a.buf, 0, 16);
	EXPECT_EQ(0, ibv_post_recv(self->req, &rwr, &rbad));

	/* RTR */
	ASSERT_EQ(0, ibv_modify_qp(self->req, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_RESET },
				   IBV_QP_STATE));
	c = vu_conn_default(&self->b.dev, self->resp->qp_num, 0);
	ASSERT_EQ(0, vu_connect(&self->a.dev, self->req, &c));
	ASSERT_EQ(0, ibv_modify_qp(self->req, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_RESET },
				   IBV_QP_STATE));
	EXPECT_EQ(0, vu_poll(self->a.scq, &wc, 1, QUIET_MS));
	EXPECT_EQ(0, vu_poll(self->a.rcq, &wc, 1, QUIET_MS)) {
		TH_LOG("the receive posted in INIT completed (%s) after RESET: RESET must discard it",
		       vu_wc_status(wc.status));
	}
	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, ibv_modify_qp(self->req, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(0, ibv_modify_qp(self->req, &(struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
			.dest_qp_num = self->resp->qp_num,
			.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
			.ah_attr = { .is_global = 1, .port_num = 1,
				     .grh = { .dgid = self->b.dev.gid[0],
					      .sgid_index =
						self->a.dev.gid_index[0],
					      .hop_limit = 64 } } },
			IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(self->req, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	EXPECT_EQ(0, vu_poll(self->a.scq, &wc, 1, QUIET_MS));
}

/*
 * A QP moved to ERROR: sends and receives posted to it are accepted and
 * complete with IBV_WC_WR_FLUSH_ERR, unsignaled sends too.
 */
TEST_F(neg, post_in_error)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 16);
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .sg_list = &s, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .next = &wr[1] },
		{ .wr_id = 2, .sg_list = &s, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE,
		  .send_flags = IBV_SEND_SIGNALED },
	}, *bad;
	struct ibv_wc wc;

	connect_all(_metadata, self);
	ASSERT_EQ(0, ibv_modify_qp(self->req, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_ERR },
				   IBV_QP_STATE));
	ASSERT_EQ(0, ibv_post_send(self->req, wr, &bad));
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, self->a.scq, &wc);
	EXPECT_EQ(2u, wc.wr_id);
	ASSERT_EQ(0, post_recv(self->req, &s, 1, 3));
	ASSERT_STATUS(IBV_WC_WR_FLUSH_ERR, self->a.rcq, &wc);
	EXPECT_EQ(3u, wc.wr_id);
	EXPECT_EQ(self->req->qp_num, wc.qp_num);
}

static void req_rnr_once(struct vu_conn *c)
{
	c->rnr_retry = 1;
}

static void resp_short_rnr(struct vu_conn *c)
{
	c->min_rnr_timer = 1;		/* 0.01 ms */
}

/*
 * A SEND to a responder with no receive posted: RNR NAKs; with rnr_retry
 * 1 the SEND completes with IBV_WC_RNR_RETRY_EXC_ERR. The responder's QP
 * is not hurt by it.
 */
TEST_F(neg, rnr_retry_exceeded)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 100);
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_wc wc;

	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				req_rnr_once, resp_short_rnr));
	ASSERT_EQ(0, post(self->req, IBV_WR_SEND, &s, 1, 0, 0, 1));
	post_two_more(_metadata, &self->a, &self->b, self->req);
	ASSERT_STATUS(IBV_WC_RNR_RETRY_EXC_ERR, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	reap_two_more(_metadata, &self->a);
	expect_flushed(_metadata, &self->a, self->req);
	ASSERT_EQ(0, ibv_query_qp(self->resp, &attr, IBV_QP_STATE, &init));
	EXPECT_EQ(IBV_QPS_RTS, (int)attr.qp_state);
}

/*
 * With rnr_retry 7 (for ever), a SEND waits through RNR NAKs until a
 * receive is posted, then arrives intact.
 */
TEST_F(neg, rnr_then_receive)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 3000);
	struct ibv_sge r = sge_of(&self->b.buf, 100, 4000);
	struct ibv_wc wc;

	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				NULL, resp_short_rnr));
	ASSERT_EQ(0, post(self->req, IBV_WR_SEND, &s, 1, 0, 0, 1));
	EXPECT_EQ(0, vu_poll(self->a.scq, &wc, 1, QUIET_MS));
	ASSERT_EQ(0, post_recv(self->resp, &r, 1, 5));
	ASSERT_STATUS(IBV_WC_SUCCESS, self->b.rcq, &wc);
	EXPECT_EQ(5u, wc.wr_id);
	EXPECT_EQ(3000u, wc.byte_len);
	ASSERT_STATUS(IBV_WC_SUCCESS, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	EXPECT_EQ(0, memcmp(self->b.buf.base + 100, self->a.buf.base, 3000));
	/* expected: the shadow gets the message */
	memcpy(self->b.buf.shadow + GUARD + 100, self->a.buf.base, 3000);
}

/*
 * The peer's QP is destroyed: nothing answers, and after retry_cnt 1
 * resends with timeout 10 (about 4 ms) the WR completes with
 * IBV_WC_RETRY_EXC_ERR.
 */
static void req_fast_retry(struct vu_conn *c)
{
	c->timeout = 10;
	c->retry_cnt = 1;
}

TEST_F(neg, peer_destroyed)
{
	struct ibv_sge s = sge_of(&self->a.buf, 0, 2000);
	struct ibv_wc wc;

	ASSERT_EQ(0, rc_connect(&self->a, self->req, &self->b, self->resp,
				req_fast_retry, NULL));
	ASSERT_EQ(0, ibv_destroy_qp(self->resp));
	self->resp = NULL;
	ASSERT_EQ(0, post(self->req, IBV_WR_RDMA_WRITE, &s, 1,
			  (uintptr_t)self->b.buf.base, self->b.buf.mr->rkey,
			  1));
	post_two_more(_metadata, &self->a, &self->b, self->req);
	ASSERT_STATUS(IBV_WC_RETRY_EXC_ERR, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	reap_two_more(_metadata, &self->a);
	expect_flushed(_metadata, &self->a, self->req);
}

/*
 * More SGEs or inline data than the QP's caps: ibv_post_send fails with
 * EINVAL and bad_wr at that WR; the WRs before it in the chain are posted
 * (and complete), the ones after are not. Likewise for receives.
 */
TEST_F(neg, over_caps)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_sge s[40], r = sge_of(&self->b.buf, 0, 4096);
	struct ibv_send_wr wr[3], *bad;
	struct ibv_recv_wr rwr = { .wr_id = 9, .sg_list = s }, *rbad;
	struct ibv_wc wc;
	uint32_t max_sge, max_inline;
	int i;

	connect_all(_metadata, self);
	ASSERT_EQ(0, ibv_query_qp(self->req, &attr, IBV_QP_CAP, &init));
	max_sge = init.cap.max_send_sge;
	max_inline = init.cap.max_inline_data;
	ASSERT_LT(max_sge, 40u);
	ASSERT_LT(max_inline, 4096u);
	for (i = 0; i < 40; i++)
		s[i] = sge_of(&self->a.buf, 8 * i, 8);
	ASSERT_EQ(0, post_recv(self->resp, &r, 1, 7));

	/* [good WRITE, too many SGEs, good WRITE] */
	for (i = 0; i < 3; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = i + 1, .sg_list = s, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)self->b.buf.base + 4096,
				     self->b.buf.mr->rkey },
			.next = i < 2 ? &wr[i + 1] : NULL,
		};
	wr[1].num_sge = max_sge + 1;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(self->req, wr, &bad));
	EXPECT_EQ(&wr[1], bad);
	ASSERT_STATUS(IBV_WC_SUCCESS, self->a.scq, &wc);
	EXPECT_EQ(1u, wc.wr_id);
	EXPECT_EQ(0, vu_poll(self->a.scq, &wc, 1, QUIET_MS));
	/* WR 1 wrote s[0]'s 8 bytes there */
	memcpy(self->b.buf.shadow + GUARD + 4096, self->a.buf.base, 8);

	/* inline data one byte over the cap */
	s[0] = sge_of(&self->a.buf, 0, max_inline + 1);
	wr[0].next = NULL;
	wr[0].send_flags |= IBV_SEND_INLINE;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(self->req, wr, &bad));
	EXPECT_EQ(&wr[0], bad);

	/* a receive with too many SGEs */
	rwr.num_sge = init.cap.max_recv_sge + 1;
	rbad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(self->req, &rwr, &rbad));
	EXPECT_EQ(&rwr, rbad);

	/* the QP is fine: a SEND still goes through */
	s[0] = sge_of(&self->a.buf, 0, 100);
	ASSERT_EQ(0, post(self->req, IBV_WR_SEND, s, 1, 0, 0, 4));
	ASSERT_STATUS(IBV_WC_SUCCESS, self->a.scq, &wc);
	ASSERT_STATUS(IBV_WC_SUCCESS, self->b.rcq, &wc);
	EXPECT_EQ(100u, wc.byte_len);
	memcpy(self->b.buf.shadow + GUARD, self->a.buf.base, 100);
}

/* More WRs than the send queue holds: ENOMEM at the first that does not fit. */
TEST_F(neg, send_queue_full)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_sge s = sge_of(&self->a.buf, 0, 8);
	struct ibv_send_wr *wr, *bad;
	struct ibv_wc wc[64];
	uint32_t n, i;

	connect_all(_metadata, self);
	ASSERT_EQ(0, ibv_query_qp(self->req, &attr, IBV_QP_CAP, &init));
	n = init.cap.max_send_wr;
	ASSERT_LE(16u, n);
	ASSERT_GE(64u, n);
	wr = calloc(n + 1, sizeof(*wr));
	ASSERT_NE(NULL, wr);
	for (i = 0; i <= n; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)self->b.buf.base + 8192,
				     self->b.buf.mr->rkey },
			.next = i < n ? &wr[i + 1] : NULL,
		};
	bad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_send(self->req, wr, &bad));
	EXPECT_EQ(&wr[n], bad);
	EXPECT_EQ((int)n, vu_poll(self->a.scq, wc, n, WAIT_MS));
	for (i = 0; i < n; i++)
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);
	free(wr);
	memcpy(self->b.buf.shadow + GUARD + 8192, self->a.buf.base, 8);
}

/* create_qp refuses caps beyond what the device reports. */
TEST_F(neg, create_qp_over_caps)
{
	struct ibv_qp_cap caps[3] = {
		{ .max_send_wr = 1, .max_recv_wr = 1, .max_recv_sge = 1,
		  .max_send_sge = self->a.dev.attr.max_sge + 1 },
		{ .max_send_wr = 1, .max_recv_wr = 1, .max_recv_sge = 1,
		  .max_send_sge = 1, .max_inline_data = 1u << 20 },
		{ .max_send_wr = self->a.dev.attr.max_qp_wr + 1,
		  .max_recv_wr = 1, .max_recv_sge = 1, .max_send_sge = 1 },
	};
	int i;

	for (i = 0; i < 3; i++) {
		struct ibv_qp_init_attr init = {
			.send_cq = self->a.scq, .recv_cq = self->a.rcq,
			.cap = caps[i], .qp_type = IBV_QPT_RC,
		};
		struct ibv_qp *qp = ibv_create_qp(self->a.dev.pd, &init);

		EXPECT_EQ(NULL, qp) {
			TH_LOG("caps #%d accepted", i);
			ibv_destroy_qp(qp);
		}
		EXPECT_EQ(EINVAL, errno);
	}
}

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	return vu_devs_from_args(argc, argv, dev_name) ?:
	       test_harness_run(argc, argv);
}
