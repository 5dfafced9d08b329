// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * limits: what one local user can ask of the kernel through its own QPs
 * is done a bounded piece at a time (Documentation/security.rst).
 *
 * Device A (sroce_h1) sends to device B (sroce_h2), two network
 * namespaces joined by veth, driven from this one process. The cases:
 *
 *   uc_post_list   one ibv_post_send() of 4096 linked UC RDMA WRITEs of
 *                  1 MiB each (16 SGEs) at path MTU 256: 16 million
 *                  packets. The call returns within the limit (the
 *                  requester sends a budget and leaves the rest to the
 *                  QP's send work), the rest goes on while an RC QP pair
 *                  beside it keeps answering, and destroying the QP
 *                  returns within the limit too.
 *   ud_post_list   the same with 4096 linked UD SENDs of the path MTU.
 *   rc_post_list   the same with 256 linked RC RDMA WRITEs of 1 MiB (-r N:
 *                  N of them) at path MTU 4096: the window bounds a
 *                  doorbell; every WRITE completes.
 *
 * The limit (-l MS, default 2000) is a guard against a doorbell that keeps
 * its caller in the kernel for minutes (as one did, 92 s and more), far
 * above what any call takes even on a loaded host, not a speed check;
 * each case prints how long its calls took.
 *
 * -t T sets the RC QPs' ACK timeout (4.096 us * 2^T, default 14: 67 ms); a
 * debug kernel that takes milliseconds a packet needs a longer one, and
 * fewer WRITEs (-r) to finish in the case's time.
 *
 * usage: limits [-a DEVICE] [-b DEVICE] [-l MS] [-r N] [-t T]
 */
#include "kselftest_harness.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "verbs_util.h"

#define NWR		4096
#define WR_BYTES	(1u << 20)	/* one WRITE */
#define NSGE		16
#define PP_BYTES	64		/* the ping-pong's messages */

static const char *dev_name[2] = { "sroce_h1", "sroce_h2" };
static long limit_ms = 2000;
static int rc_writes = 256;
static int ack_timeout = 14;

static long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_nsec - a->tv_nsec) / 1000000;
}

static int end_open(struct vu_end *e, const char *name)
{
	return vu_end_open(e, name, NWR + 64, WR_BYTES, 0x5a,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

static struct ibv_qp *qp_new(struct vu_end *e, enum ibv_qp_type type,
			     uint32_t nwr, uint32_t nsge)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = nwr, .max_recv_wr = 64,
		.max_send_sge = nsge, .max_recv_sge = 1,
	};

	return vu_create_qp(&e->dev, type, e->cq, e->cq, &cap);
}

/* Connect @qa on @a and @qb on @b at path MTU @mtu; 0 or an errno. */
static int pair(struct vu_end *a, struct ibv_qp *qa, struct vu_end *b,
		struct ibv_qp *qb, enum ibv_mtu mtu)
{
	struct vu_conn c = vu_conn_default(&b->dev, qb->qp_num, 0);
	int err;

	c.mtu = mtu;
	c.timeout = ack_timeout;
	err = vu_connect(&a->dev, qa, &c);
	if (err)
		return err;
	c = vu_conn_default(&a->dev, qa->qp_num, 0);
	c.mtu = mtu;
	c.timeout = ack_timeout;
	return vu_connect(&b->dev, qb, &c);
}

/*
 * An RC QP pair that answers pings while a case runs: the poster's CPU
 * and the receiving host must stay responsive.
 */
struct pinger {
	struct vu_end *a, *b;
	struct ibv_qp *qa, *qb;
	struct ibv_cq *ca, *cb;
	volatile bool stop;
	long rounds;
	int err;
	pthread_t thread;
};

static int ping_post_recv(struct ibv_qp *qp, struct vu_end *e, size_t off)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off,
			       .length = PP_BYTES, .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int ping_send(struct ibv_qp *qp, struct vu_end *e, size_t off)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off,
			       .length = PP_BYTES, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Wait for one good completion on @cq (5 s at most): 0 or -1. */
static int ping_wait(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	if (vu_poll(cq, &wc, 1, 5000) != 1)
		return -1;
	if (wc.status != IBV_WC_SUCCESS) {
		vu_diag("ping: %s", vu_wc_status(wc.status));
		return -1;
	}
	return 0;
}

static void *ping_loop(void *arg)
{
	struct pinger *p = arg;
	/* Apart from what the flood uses: the buffers' last 4 KiB. */
	size_t off = WR_BYTES - 4096;

	while (!p->stop) {
		if (ping_post_recv(p->qb, p->b, off) ||
		    ping_send(p->qa, p->a, off) ||
		    ping_wait(p->cb) || ping_wait(p->ca)) {
			p->err = -1;
			break;
		}
		p->rounds++;
	}
	return NULL;
}

static int ping_start(struct pinger *p, struct vu_end *a, struct vu_end *b)
{
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };

	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	p->ca = ibv_create_cq(a->dev.ctx, 16, NULL, NULL, 0);
	p->cb = ibv_create_cq(b->dev.ctx, 16, NULL, NULL, 0);
	if (!p->ca || !p->cb)
		return ENOMEM;
	p->qa = vu_create_qp(&a->dev, IBV_QPT_RC, p->ca, p->ca, &cap);
	p->qb = vu_create_qp(&b->dev, IBV_QPT_RC, p->cb, p->cb, &cap);
	if (!p->qa || !p->qb)
		return ENOMEM;
	if (pair(a, p->qa, b, p->qb, IBV_MTU_1024))
		return EINVAL;
	return pthread_create(&p->thread, NULL, ping_loop, p);
}

/* Stop the pinger; its round trips, or -1 if one failed. */
static long ping_stop(struct pinger *p)
{
	p->stop = true;
	pthread_join(p->thread, NULL);
	ibv_destroy_qp(p->qa);
	ibv_destroy_qp(p->qb);
	ibv_destroy_cq(p->ca);
	ibv_destroy_cq(p->cb);
	return p->err ? -1 : p->rounds;
}

FIXTURE(lim) {
	struct vu_end a, b;
	struct ibv_sge sge[NWR][NSGE];
	struct ibv_send_wr wr[NWR];
};

FIXTURE_SETUP(lim)
{
	ASSERT_EQ(0, end_open(&self->a, dev_name[0]));
	ASSERT_EQ(0, end_open(&self->b, dev_name[1]));
}

FIXTURE_TEARDOWN(lim)
{
	vu_end_close(&self->a);
	vu_end_close(&self->b);
}

/*
 * @n linked WRs of @opcode, each @nsge SGEs that cover @bytes of A's
 * buffer (the last WR signaled), to B's buffer.
 */
static struct ibv_send_wr *chain(FIXTURE_DATA(lim) *self,
				 enum ibv_wr_opcode opcode, int n, int nsge,
				 uint32_t bytes, struct ibv_ah *ah,
				 uint32_t remote_qpn)
{
	uint32_t per = bytes / nsge;
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nsge; j++)
			self->sge[i][j] = (struct ibv_sge){
				.addr = (uintptr_t)self->a.buf + j * per,
				.length = per, .lkey = self->a.mr->lkey };
		self->wr[i] = (struct ibv_send_wr){
			.wr_id = i, .opcode = opcode, .sg_list = self->sge[i],
			.num_sge = nsge,
			.next = i + 1 < n ? &self->wr[i + 1] : NULL,
			.send_flags = i + 1 < n ? 0 : IBV_SEND_SIGNALED,
		};
		if (ah) {
			self->wr[i].wr.ud.ah = ah;
			self->wr[i].wr.ud.remote_qpn = remote_qpn;
			self->wr[i].wr.ud.remote_qkey = 0x11111111;
		} else {
			self->wr[i].wr.rdma.remote_addr =
				(uintptr_t)self->b.buf;
			self->wr[i].wr.rdma.rkey = self->b.mr->rkey;
		}
	}
	return self->wr;
}

static long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

/*
 * ibv_post_send() of @wr on @qp, timed: 0 or an errno; *@ms how long, and
 * (printed) the calling thread's CPU time in it, in userspace (the
 * provider writing the WQEs) and in the kernel (the doorbell), in us.
 */
static int timed_post(struct ibv_qp *qp, struct ibv_send_wr *wr, long *ms)
{
	struct ibv_send_wr *bad = NULL;
	struct timespec t0, t1;
	struct rusage r0, r1;
	int err;

	getrusage(RUSAGE_THREAD, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = ibv_post_send(qp, wr, &bad);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_THREAD, &r1);
	*ms = ms_between(&t0, &t1);
	vu_diag("the call took %ld ms; its thread's CPU time: %ld us user, %ld us kernel",
		*ms, tv_us(&r1.ru_utime) - tv_us(&r0.ru_utime),
		tv_us(&r1.ru_stime) - tv_us(&r0.ru_stime));
	return err;
}

static int timed_destroy(struct ibv_qp *qp, long *ms)
{
	struct timespec t0, t1;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = ibv_destroy_qp(qp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = ms_between(&t0, &t1);
	return err;
}

TEST_F_TIMEOUT(lim, uc_post_list, 300)
{
	struct ibv_qp *qa = qp_new(&self->a, IBV_QPT_UC, NWR, NSGE);
	struct ibv_qp *qb = qp_new(&self->b, IBV_QPT_UC, 1, 1);
	struct pinger p;
	long ms, rounds;

	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, pair(&self->a, qa, &self->b, qb, IBV_MTU_256));
	ASSERT_EQ(0, ping_start(&p, &self->a, &self->b));

	ASSERT_EQ(0, timed_post(qa, chain(self, IBV_WR_RDMA_WRITE, NWR, NSGE,
					  WR_BYTES, NULL, 0), &ms));
	vu_diag("uc_post_list: ibv_post_send() of %d x 1 MiB returned after %ld ms",
		NWR, ms);
	EXPECT_LE(ms, limit_ms);
	/* The rest goes on meanwhile; the pings beside it still answer. */
	usleep(2000 * 1000);
	rounds = ping_stop(&p);
	vu_diag("uc_post_list: %ld ping-pong round trips beside it in 2 s",
		rounds);
	EXPECT_GT(rounds, 0);
	ASSERT_EQ(0, timed_destroy(qa, &ms));
	vu_diag("uc_post_list: ibv_destroy_qp() returned after %ld ms", ms);
	EXPECT_LE(ms, limit_ms);
	ASSERT_EQ(0, ibv_destroy_qp(qb));
}

TEST_F_TIMEOUT(lim, ud_post_list, 300)
{
	struct ibv_qp *qa = qp_new(&self->a, IBV_QPT_UD, NWR, 1);
	struct ibv_qp *qb = qp_new(&self->b, IBV_QPT_UD, 1, 1);
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = VU_PORT,
		.grh = { .hop_limit = 64 },
	};
	struct ibv_ah *ah;
	struct ibv_wc wc;
	long ms;

	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vu_ud_rts(qa, 0x11111111));
	ASSERT_EQ(0, vu_ud_rts(qb, 0x11111111));
	ah_attr.grh.dgid = self->b.dev.gid[0];
	ah_attr.grh.sgid_index = self->a.dev.gid_index[0];
	ah = ibv_create_ah(self->a.dev.pd, &ah_attr);
	ASSERT_NE(NULL, ah);

	ASSERT_EQ(0, timed_post(qa, chain(self, IBV_WR_SEND, NWR, 1, 1024, ah,
					  qb->qp_num), &ms));
	vu_diag("ud_post_list: ibv_post_send() of %d datagrams returned after %ld ms",
		NWR, ms);
	EXPECT_LE(ms, limit_ms);
	/* Every datagram is sent: the last one completes. */
	ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 60000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ((uint64_t)NWR - 1, wc.wr_id);
	ASSERT_EQ(0, ibv_destroy_qp(qa));
	ASSERT_EQ(0, ibv_destroy_qp(qb));
	ASSERT_EQ(0, ibv_destroy_ah(ah));
}

TEST_F_TIMEOUT(lim, rc_post_list, 300)
{
	struct ibv_qp *qa = qp_new(&self->a, IBV_QPT_RC, NWR, NSGE);
	struct ibv_qp *qb = qp_new(&self->b, IBV_QPT_RC, 1, 1);
	/* 256 MiB (by default) at MTU 4096: 64K packets, a window a doorbell. */
	const int n = rc_writes;
	struct ibv_wc wc;
	long ms;

	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, pair(&self->a, qa, &self->b, qb, IBV_MTU_4096));
	ASSERT_EQ(0, timed_post(qa, chain(self, IBV_WR_RDMA_WRITE, n, NSGE,
					  WR_BYTES, NULL, 0), &ms));
	vu_diag("rc_post_list: ibv_post_send() of %d x 1 MiB returned after %ld ms",
		n, ms);
	EXPECT_LE(ms, limit_ms);
	ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 120000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ((uint64_t)n - 1, wc.wr_id);
	ASSERT_EQ(0, ibv_destroy_qp(qa));
	ASSERT_EQ(0, ibv_destroy_qp(qb));
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "a:b:l:r:t:")) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			dev_name[c - 'a'] = optarg;
			break;
		case 'l':
			limit_ms = atol(optarg);
			break;
		case 'r':
			rc_writes = atoi(optarg);
			break;
		case 't':
			ack_timeout = atoi(optarg);
			break;
		default:
			rc_writes = 0;
			break;
		}
	}
	if (rc_writes < 1 || rc_writes > NWR || ack_timeout > 31) {
		fprintf(stderr,
			"usage: %s [-a DEV] [-b DEV] [-l MS] [-r 1..%d] [-t 0..31]\n",
			argv[0], NWR);
		return 2;
	}
	return test_harness_run(argc, argv);
}
