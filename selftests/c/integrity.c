// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * integrity: data integrity of RC and UC over sroce, byte for byte.
 *
 * One process opens two sroce devices (sroce_h1 and sroce_h2, in two
 * network namespaces joined by veth: RDMA devices are visible in every
 * namespace) and connects many QP pairs between them, or between two
 * contexts of one device (loopback). In rounds, every pair posts a random
 * mix of work requests, all pairs at once:
 *
 *   SEND, SEND_WITH_IMM, inline SEND, RDMA_WRITE, RDMA_WRITE_WITH_IMM,
 *   inline RDMA_WRITE, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD
 *   (the last three on RC only)
 *
 * with random lengths (0 bytes to 1 MiB, many just around multiples of the
 * path MTU), 1 to 16 SGEs at random places on both sides, MRs at random
 * offsets in their pages, random PSNs, some WRs unsignaled. Every byte of
 * both sides' buffers, the bytes around the MRs included, is then compared
 * with a shadow copy to which the expected effect of each WR was applied;
 * atomics are checked against a model of the remote counters; every
 * completion's status, opcode, wr_id, byte_len, imm_data, wc_flags, qp_num
 * and src_qp is checked, in order. A second test has many QPs add to one
 * counter at once and checks that every addition happened exactly once.
 *
 * This file holds the cases and main(); integrity_work.c plans and posts
 * the rounds, integrity_check.c checks them (integrity.h: what they share).
 *
 * Iteration counts are fixed; the only clock is a guard against hangs.
 * The seed is printed; `integrity -s SEED` repeats a run exactly.
 *
 * usage: integrity [-s SEED] [-a DEVICE] [-b DEVICE] [-o CASE]...
 *                  [-p PAIRS] [-r ROUNDS] [-l MAX_LEN] [-t TIMEOUT]
 *                  [-c RETRY_CNT] [-u FILE] [-w SECONDS] [-x]
 *        (defaults: a random seed, sroce_h1, sroce_h2, every case, each
 *        case's own workload, QP timeout 14 and retry_cnt 7)
 *
 * The other options serve t-faults.sh, which runs it over a faulty link:
 *   -o CASE      run only the cases named CASE (fixture.variant, or
 *                fixture.variant.test; repeatable)
 *   -p, -r, -l   at most PAIRS QP pairs and MAX_LEN bytes per message,
 *                ROUNDS rounds, in each xfer case
 *   -t, -c       the requesters' local ACK timeout and retry_cnt
 *   -u FILE      in xfer cases, keep running rounds (after the -r ones)
 *                until FILE exists
 *   -w SECONDS   a pair that completes nothing for this long is hung
 *                (default 30)
 *   -x           expect the link to fail for longer than the retry budget:
 *                rounds run until one has failures, and then each pair
 *                that failed must have completed its oldest outstanding
 *                WR with IBV_WC_RETRY_EXC_ERR and every later one (and
 *                one more posted afterwards) with IBV_WC_WR_FLUSH_ERR;
 *                pairs that did not fail are checked byte for byte. Fails
 *                if no pair failed.
 */
#include "kselftest_harness.h"

#include <unistd.h>

#include "integrity.h"

static uint64_t seed;
static const char *dev_name[2] = { "sroce_h1", "sroce_h2" };

/* Overrides from the command line; 0 (-1 for the QP's): the case's own */
static int opt_pairs, opt_rounds;
static uint32_t opt_max_len;
static int opt_timeout = -1, opt_retry_cnt = -1;
bool expect_fail;	/* -x */
int wait_ms = WAIT_MS;	/* -w */
static const char *until;	/* -u */

FIXTURE(xfer) {
	struct side side[2];
	struct pair *pair;
	int npairs;
	struct vu_rng rng;
};

FIXTURE_VARIANT(xfer) {
	enum ibv_qp_type type;
	int npairs;
	int rounds;
	int family;		/* 0: IPv4 GIDs, 1: IPv6 */
	bool loopback;		/* both ends on device A */
	uint32_t max_len;
	bool bulk;		/* one WRITE of max_len per pair */
	bool stream;		/* a doorbell per WR, one signaled per round */
};

/* 16 RC pairs with every opcode and sizes up to 1 MiB */
FIXTURE_VARIANT_ADD(xfer, rc_ipv4) {
	.type = IBV_QPT_RC, .npairs = 16, .rounds = 3, .family = 0,
	.max_len = 1u << 20,
};

/*
 * 16 RC pairs, each writing 1 MiB, all at once (16 Ki packets at path MTU
 * 1024, up to 16 x 128 in flight). The receiving veth's backlog (1000
 * packets) drops thousands; this is what the requester's loss-driven
 * window (core/rc.c, sroce_rc_window_*) is for: without it, every QP
 * resent its whole window after the same timeout and some WRITEs ended
 * in IBV_WC_RETRY_EXC_ERR (retry_cnt 7, timeout 14).
 */
FIXTURE_VARIANT_ADD(xfer, rc_ipv4_bulk) {
	.type = IBV_QPT_RC, .npairs = 16, .rounds = 1, .family = 0,
	.max_len = 1u << 20, .bulk = true,
};

FIXTURE_VARIANT_ADD(xfer, rc_ipv6) {
	.type = IBV_QPT_RC, .npairs = 4, .rounds = 4, .family = 1,
	.max_len = 1u << 20,
};

FIXTURE_VARIANT_ADD(xfer, rc_loopback) {
	.type = IBV_QPT_RC, .npairs = 4, .rounds = 4, .family = 0,
	.loopback = true, .max_len = 1u << 20,
};

/*
 * Small messages, each rung alone and unsignaled but the last: the QPs
 * stream, many doorbells each with work still in flight.
 */
FIXTURE_VARIANT_ADD(xfer, rc_loopback_stream) {
	.type = IBV_QPT_RC, .npairs = 8, .rounds = 40, .family = 0,
	.loopback = true, .max_len = 1024, .stream = true,
};

/* UC: see UC_ROUND_PKTS */
FIXTURE_VARIANT_ADD(xfer, uc_ipv4) {
	.type = IBV_QPT_UC, .npairs = 8, .rounds = 4, .family = 0,
	.max_len = 65536,
};

FIXTURE_VARIANT_ADD(xfer, uc_ipv6) {
	.type = IBV_QPT_UC, .npairs = 4, .rounds = 3, .family = 1,
	.max_len = 65536,
};

FIXTURE_VARIANT_ADD(xfer, uc_loopback) {
	.type = IBV_QPT_UC, .npairs = 4, .rounds = 3, .family = 0,
	.loopback = true, .max_len = 65536,
};

static uint64_t variant_seed(const FIXTURE_VARIANT(xfer) *v)
{
	return seed ^ ((uint64_t)v->type << 40 | (uint64_t)v->family << 32 |
		       (uint64_t)v->loopback << 24 | (uint64_t)v->bulk << 16 |
		       (uint64_t)v->stream << 17 |
		       (uint64_t)v->npairs);
}

FIXTURE_SETUP(xfer)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 2 * OPS_MAX, .max_recv_wr = 2 * OPS_MAX,
		.max_send_sge = NSGE, .max_recv_sge = NSGE,
		.max_inline_data = MAX_INLINE,
	};
	enum ibv_mtu mtu_max;
	int i;

	self->rng.s = variant_seed(variant);
	TH_LOG("seed %llu", (unsigned long long)seed);
	ASSERT_EQ(0, side_open(&self->side[0], dev_name[0]));
	ASSERT_EQ(0, side_open(&self->side[1],
			       dev_name[variant->loopback ? 0 : 1]));
	mtu_max = self->side[0].dev.port.active_mtu;
	if (self->side[1].dev.port.active_mtu < mtu_max)
		mtu_max = self->side[1].dev.port.active_mtu;

	self->npairs = variant->npairs;
	if (opt_pairs && opt_pairs < self->npairs)
		self->npairs = opt_pairs;
	self->pair = calloc(self->npairs, sizeof(*self->pair));
	ASSERT_NE(NULL, self->pair);
	for (i = 0; i < self->npairs; i++) {
		struct pair *p = &self->pair[i];
		struct ibv_qp_cap got = cap;
		struct vu_conn c;
		uint32_t psn;
		int s, m;

		/* odd pairs send the other way */
		s = i & 1;
		p->rq = &self->side[s];
		p->rs = &self->side[!s];
		p->req = vu_create_qp(&p->rq->dev, variant->type, p->rq->scq,
				      p->rq->rcq, &got);
		ASSERT_NE(NULL, p->req);
		ASSERT_LE(MAX_INLINE, (int)got.max_inline_data);
		p->max_inline = MAX_INLINE;
		got = cap;
		p->resp = vu_create_qp(&p->rs->dev, variant->type, p->rs->scq,
				       p->rs->rcq, &got);
		ASSERT_NE(NULL, p->resp);
		ASSERT_EQ(0, buf_init(&p->rbuf, &p->rq->dev, &self->rng,
				      IBV_ACCESS_LOCAL_WRITE));
		ASSERT_EQ(0, buf_init(&p->sbuf, &p->rs->dev, &self->rng,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ |
				      IBV_ACCESS_REMOTE_ATOMIC));
		memcpy(p->atom, p->sbuf.base, sizeof(p->atom));

		/* a random path MTU and random PSNs, near the wrap too */
		m = IBV_MTU_256 + vu_below(&self->rng,
					   mtu_max - IBV_MTU_256 + 1);
		p->mtu = 128u << m;
		psn = vu_below(&self->rng, 2) ?
		      vu_below(&self->rng, 1u << 24) :
		      (1u << 24) - 1 - vu_below(&self->rng, 64);
		c = vu_conn_default(&p->rs->dev, p->resp->qp_num,
				    variant->family);
		if (variant->type == IBV_QPT_UC)
			c.access = IBV_ACCESS_REMOTE_WRITE;
		c.mtu = m;
		c.sq_psn = psn;
		c.max_rd_atomic = 1 + vu_below(&self->rng, 16);
		if (opt_timeout >= 0)
			c.timeout = opt_timeout;
		if (opt_retry_cnt >= 0)
			c.retry_cnt = opt_retry_cnt;
		ASSERT_EQ(0, vu_connect(&p->rq->dev, p->req, &c));
		c = vu_conn_default(&p->rq->dev, p->req->qp_num,
				    variant->family);
		if (variant->type == IBV_QPT_UC)
			c.access = IBV_ACCESS_REMOTE_WRITE;
		c.mtu = m;
		c.rq_psn = psn;
		ASSERT_EQ(0, vu_connect(&p->rs->dev, p->resp, &c));
	}
}

FIXTURE_TEARDOWN(xfer)
{
	int i;

	for (i = 0; self->pair && i < self->npairs; i++) {
		struct pair *p = &self->pair[i];

		if (p->req)
			EXPECT_EQ(0, ibv_destroy_qp(p->req));
		if (p->resp)
			EXPECT_EQ(0, ibv_destroy_qp(p->resp));
		buf_fini(&p->rbuf);
		buf_fini(&p->sbuf);
	}
	free(self->pair);
	side_close(&self->side[0]);
	side_close(&self->side[1]);
}

/*
 * -x: after a round in which @nfailed pairs failed, each of them takes one
 * more WR and must flush it. Return: the number of mismatches.
 */
static int post_after_failure(struct side *sides, struct pair *pairs,
			      int npairs, int nfailed, int *logged)
{
	struct ibv_send_wr wr = { .wr_id = 4242, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad_wr;
	struct ibv_wc wc[2];
	int bad = 0, i, k, n, seen = 0;
	struct timespec t0;

	for (i = 0; i < npairs; i++) {
		if (!pairs[i].broken)
			continue;
		if (ibv_post_send(pairs[i].req, &wr, &bad_wr)) {
			vu_diag("pair %d: post_send after the failure: %s", i,
				strerror(errno));
			bad++;
			nfailed--;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seen < nfailed && vu_ms_since(&t0) < wait_ms) {
		for (k = 0; k < 2; k++) {
			n = ibv_poll_cq(sides[k].scq, 2, wc);
			for (i = 0; i < n; i++, seen++) {
				struct pair *p = pair_of(pairs, npairs,
							 wc[i].qp_num, true);

				if (p && p->broken && wc[i].wr_id == 4242 &&
				    wc[i].status == IBV_WC_WR_FLUSH_ERR)
					continue;
				if ((*logged)++ < LOG_MAX)
					vu_diag("WR posted after the failure on QP %u: wr_id %llu status %s, expected 4242 flushed",
						wc[i].qp_num,
						(unsigned long long)wc[i].wr_id,
						vu_wc_status(wc[i].status));
				bad++;
			}
		}
	}
	if (seen < nfailed) {
		vu_diag("%d of %d WRs posted after the failure were not flushed in %d s",
			nfailed - seen, nfailed, wait_ms / 1000);
		bad += nfailed - seen;
	}
	return bad;
}

/* Rounds of random WRs on every pair at once, every byte checked */
TEST_F_TIMEOUT(xfer, random_ops, 300)
{
	int round, i, bad, logged = 0, total = 0, ops = 0, failed = 0;
	int rounds = opt_rounds ?: variant->rounds;
	uint32_t max_len = variant->max_len;
	uint64_t bytes = 0;

	if (opt_max_len && opt_max_len < max_len)
		max_len = opt_max_len;
	for (round = 0; round < rounds || (until && access(until, F_OK));
	     round++) {
		for (i = 0; i < self->npairs; i++)
			plan_round(&self->pair[i], &self->rng, variant->type,
				   max_len, variant->bulk, variant->stream);
		for (i = 0; i < self->npairs; i++)
			ASSERT_EQ(0, post_round(&self->pair[i], &self->rng,
						variant->stream));
		bad = reap(self->side, self->pair, self->npairs, &logged);
		for (i = 0; i < self->npairs; i++) {
			struct pair *p = &self->pair[i];
			int k;

			if (p->broken)	/* failed already; memory is moot */
				continue;
			expect_round(p);
			bad += check_buf(p, i, &p->rbuf, "requester", &logged);
			bad += check_buf(p, i, &p->sbuf, "responder", &logged);
			for (k = 0; k < p->nops; k++)
				bytes += p->op[k].len;
			ops += p->nops;
		}
		for (i = 0; expect_fail && i < self->npairs; i++)
			failed += self->pair[i].broken;
		if (failed) {
			TH_LOG("round %d: %d of %d pairs ran out of retries, the rest of their WRs flushed",
			       round, failed, self->npairs);
			bad += post_after_failure(self->side, self->pair,
						  self->npairs, failed,
						  &logged);
			total += bad;
			break;
		}
		total += bad;
		if (bad) {
			/* the QPs may be in error now: stop here */
			TH_LOG("round %d: %d mismatches (seed %llu)", round,
			       bad, (unsigned long long)seed);
			break;
		}
	}
	TH_LOG("%d WRs, %llu bytes moved and checked", ops,
	       (unsigned long long)bytes);
	EXPECT_EQ(0, total);
	if (expect_fail)
		EXPECT_NE(0, failed) {
			TH_LOG("-x: no WR failed in %d rounds", round);
		}
}

/*
 * Many QPs add to one counter at once: every FETCH_AND_ADD must happen
 * exactly once, atomically. The values they return, sorted, must chain
 * from the initial value (each is the previous plus its addend), and the
 * counter must end at the initial value plus all the addends.
 */
#define CNT_PAIRS	8
#define CNT_ADDS	16

FIXTURE(counter) {
	struct side side[2];
	struct ibv_qp *req[CNT_PAIRS], *resp[CNT_PAIRS];
	struct ibv_mr *mr[2];		/* the counter, on side 1 */
	uint64_t *cnt;			/* guard, counter, guard */
	uint64_t *res;			/* on side 0: CNT_PAIRS * CNT_ADDS */
};

FIXTURE_VARIANT(counter) {
	bool loopback;
};

FIXTURE_VARIANT_ADD(counter, two_hosts) { .loopback = false };
FIXTURE_VARIANT_ADD(counter, loopback) { .loopback = true };

FIXTURE_SETUP(counter)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = CNT_ADDS, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct vu_rng rng = { .s = seed ^ 0xc0c0 ^ variant->loopback };
	struct vu_conn c;
	int i;

	ASSERT_EQ(0, side_open(&self->side[0], dev_name[0]));
	ASSERT_EQ(0, side_open(&self->side[1],
			       dev_name[variant->loopback ? 0 : 1]));
	self->cnt = aligned_alloc(64, 3 * 8);
	self->res = calloc(CNT_PAIRS * CNT_ADDS, 8);
	ASSERT_NE(NULL, self->cnt);
	ASSERT_NE(NULL, self->res);
	self->cnt[0] = vu_rand(&rng);
	self->cnt[1] = vu_rand(&rng) >> 2;	/* no wrap */
	self->cnt[2] = vu_rand(&rng);
	self->mr[1] = ibv_reg_mr(self->side[1].dev.pd, &self->cnt[1], 8,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_ATOMIC);
	self->mr[0] = ibv_reg_mr(self->side[0].dev.pd, self->res,
				 CNT_PAIRS * CNT_ADDS * 8,
				 IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr[0]);
	ASSERT_NE(NULL, self->mr[1]);
	for (i = 0; i < CNT_PAIRS; i++) {
		self->req[i] = vu_create_qp(&self->side[0].dev, IBV_QPT_RC,
					    self->side[0].scq,
					    self->side[0].rcq, &cap);
		self->resp[i] = vu_create_qp(&self->side[1].dev, IBV_QPT_RC,
					     self->side[1].scq,
					     self->side[1].rcq, &cap);
		ASSERT_NE(NULL, self->req[i]);
		ASSERT_NE(NULL, self->resp[i]);
		c = vu_conn_default(&self->side[1].dev, self->resp[i]->qp_num,
				    0);
		c.max_rd_atomic = 1 + vu_below(&rng, 16);
		ASSERT_EQ(0, vu_connect(&self->side[0].dev, self->req[i], &c));
		c = vu_conn_default(&self->side[0].dev, self->req[i]->qp_num,
				    0);
		ASSERT_EQ(0, vu_connect(&self->side[1].dev, self->resp[i],
					&c));
	}
}

FIXTURE_TEARDOWN(counter)
{
	int i;

	for (i = 0; i < CNT_PAIRS; i++) {
		if (self->req[i])
			ibv_destroy_qp(self->req[i]);
		if (self->resp[i])
			ibv_destroy_qp(self->resp[i]);
	}
	for (i = 0; i < 2; i++)
		if (self->mr[i])
			ibv_dereg_mr(self->mr[i]);
	free(self->cnt);
	free(self->res);
	side_close(&self->side[0]);
	side_close(&self->side[1]);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

TEST_F_TIMEOUT(counter, fetch_add_from_many_qps, 120)
{
	struct vu_rng rng = { .s = seed ^ 0xadd };
	uint64_t add[CNT_PAIRS * CNT_ADDS], sum = 0, start, cur;
	uint64_t got[CNT_PAIRS * CNT_ADDS][2];
	struct ibv_send_wr wr[CNT_ADDS], *bad;
	struct ibv_sge sge[CNT_ADDS];
	struct ibv_wc wc[CNT_PAIRS * CNT_ADDS];
	uint64_t g0 = self->cnt[0], g2 = self->cnt[2];
	int i, j, n, total = CNT_PAIRS * CNT_ADDS;

	start = self->cnt[1];
	for (i = 0; i < total; i++) {
		add[i] = 1 + vu_below(&rng, 1000);
		sum += add[i];
	}
	for (i = 0; i < CNT_PAIRS; i++) {
		for (j = 0; j < CNT_ADDS; j++) {
			int k = i * CNT_ADDS + j;

			sge[j] = (struct ibv_sge){
				.addr = (uintptr_t)&self->res[k], .length = 8,
				.lkey = self->mr[0]->lkey,
			};
			wr[j] = (struct ibv_send_wr){
				.wr_id = k, .sg_list = &sge[j], .num_sge = 1,
				.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				.send_flags = IBV_SEND_SIGNALED,
				.next = j + 1 < CNT_ADDS ? &wr[j + 1] : NULL,
			};
			wr[j].wr.atomic.remote_addr = (uintptr_t)&self->cnt[1];
			wr[j].wr.atomic.rkey = self->mr[1]->rkey;
			wr[j].wr.atomic.compare_add = add[k];
		}
		ASSERT_EQ(0, ibv_post_send(self->req[i], wr, &bad));
	}
	n = vu_poll(self->side[0].scq, wc, total, wait_ms);
	ASSERT_EQ(total, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status) {
			TH_LOG("wr_id %llu: %s",
			       (unsigned long long)wc[i].wr_id,
			       vu_wc_status(wc[i].status));
		}
		EXPECT_EQ(IBV_WC_FETCH_ADD, (int)wc[i].opcode);
		EXPECT_EQ(8u, wc[i].byte_len);
	}
	for (i = 0; i < total; i++) {
		got[i][0] = self->res[i];
		got[i][1] = add[i];
	}
	qsort(got, total, sizeof(got[0]), cmp_u64);
	for (cur = start, i = 0; i < total; i++) {
		EXPECT_EQ(cur, got[i][0]) {
			TH_LOG("returned value %d of %d (sorted) breaks the chain",
			       i, total);
			break;
		}
		cur += got[i][1];
	}
	EXPECT_EQ(start + sum, self->cnt[1]);
	EXPECT_EQ(g0, self->cnt[0]);	/* the guards */
	EXPECT_EQ(g2, self->cnt[2]);
}

/*
 * A device that executes atomics says so (ConnectX and rdma_rxe report
 * IBV_ATOMIC_HCA); applications such as perftest's ib_atomic_* look at it.
 */
TEST(device_reports_atomic_cap)
{
	struct vu_dev d;

	ASSERT_EQ(0, vu_open(&d, dev_name[0]));
	EXPECT_NE(IBV_ATOMIC_NONE, (int)d.attr.atomic_cap);
	vu_close(&d);
}

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

static const char *only[8];	/* -o */
static int nonly;

/* is fixture @f, variant @v, test @t one of the -o cases? */
static bool selected(const char *f, const char *v, const char *t)
{
	char name[256];
	size_t n;
	int i;

	snprintf(name, sizeof(name), "%s%s%s.%s", f, v[0] ? "." : "", v, t);
	for (i = 0; i < nonly; i++) {
		n = strlen(only[i]);
		if (!strncmp(name, only[i], n) &&
		    (name[n] == '.' || name[n] == 0))
			return true;
	}
	return false;
}

/* Unlink every fixture, variant and test that no -o case names. */
static void select_cases(void)
{
	struct __fixture_variant_metadata no_variant = { .name = "" };
	struct __fixture_metadata *f, **fp;
	struct __fixture_variant_metadata *v, **vp;
	struct __test_metadata *t, **tp;
	bool any;

	for (fp = &__fixture_list; (f = *fp);) {
		any = false;
		for (t = f->tests; !f->variant && t; t = t->next)
			any |= selected(f->name, "", t->name);
		for (vp = &f->variant; (v = *vp);) {
			bool keep = false;

			for (t = f->tests; t; t = t->next)
				keep |= selected(f->name, v->name, t->name);
			any |= keep;
			if (keep)
				vp = &v->next;
			else
				*vp = v->next;
		}
		for (tp = &f->tests; (t = *tp);) {
			bool keep = false;

			for (v = f->variant ?: &no_variant; v; v = v->next)
				keep |= selected(f->name, v->name, t->name);
			if (keep)
				tp = &t->next;
			else
				*tp = t->next;
		}
		if (any)
			fp = &f->next;
		else
			*fp = f->next;
	}
}

int main(int argc, char **argv)
{
	struct timespec t;
	int c;

	clock_gettime(CLOCK_REALTIME, &t);
	seed = (uint64_t)t.tv_sec * 1000003 ^ t.tv_nsec ^ getpid();
	while ((c = getopt(argc, argv, "s:a:b:o:p:r:l:t:c:u:w:x")) != -1) {
		switch (c) {
		case 'o':
			if (nonly < (int)(sizeof(only) / sizeof(only[0])))
				only[nonly++] = optarg;
			break;
		case 'p':
			opt_pairs = atoi(optarg);
			break;
		case 'r':
			opt_rounds = atoi(optarg);
			break;
		case 'l':
			opt_max_len = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt_timeout = atoi(optarg);
			break;
		case 'c':
			opt_retry_cnt = atoi(optarg);
			break;
		case 'u':
			until = optarg;
			break;
		case 'w':
			wait_ms = atoi(optarg) * 1000;
			break;
		case 'x':
			expect_fail = true;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'a':
			dev_name[0] = optarg;
			break;
		case 'b':
			dev_name[1] = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s SEED] [-a DEVICE] [-b DEVICE] [-o CASE]... [-p PAIRS] [-r ROUNDS] [-l MAX_LEN] [-t TIMEOUT] [-c RETRY_CNT] [-u FILE] [-w SECONDS] [-x]\n",
				argv[0]);
			return 2;
		}
	}
	if (nonly)
		select_cases();
	printf("# integrity: seed %llu (repeat with: %s -s %llu)\n",
	       (unsigned long long)seed, argv[0], (unsigned long long)seed);
	return test_harness_run(argc, argv);
}
