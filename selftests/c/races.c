// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * races: a QP's owner changes its state and attributes while its engines
 * work for it; nothing they do afterwards follows the old state, and
 * nothing reads or writes outside the checked ranges
 * (Documentation/security.rst).
 *
 * Device A (sroce_h1) reads from device B (sroce_h2), two network
 * namespaces joined by veth, driven from this one process; B's READ
 * responses are paced (t-races.sh caps both devices' rates), so a READ
 * of 64 MiB lasts seconds. The cases:
 *
 *   read_reset     B's responder is answering a READ of 64 MiB, a burst
 *                  at a time, when its owner moves the QP to RESET: from
 *                  then on B sends nothing (its tx_packets stays).
 *   read_error     the same with the error state.
 *   read_destroy   the same, but B's QP is destroyed while its pacer
 *                  holds the next response back: destroy returns (the
 *                  timer is cancelled), B sends nothing more.
 *   reset_loop     a READ in flight, and B's QP through RESET, INIT and
 *                  RTR with another path MTU and max_dest_rd_atomic (0
 *                  every other round, when READs must be refused), many
 *                  times over; then a READ at the last settings returns
 *                  every byte. A kernel with KASAN sees any byte read
 *                  past the MR.
 *   dereg_in_flight  an RC WRITE of 64 KiB (one window) whose packets
 *                  carry the source MR's pages (zero copy) waits in a
 *                  qdisc (RACES_HOLD, a shell command, delays A's link by
 *                  500 ms; RACES_RELEASE undoes it; RACES_QUEUED prints
 *                  how many packets the qdisc took, so the test waits for
 *                  the pacer to send them all) while their owner
 *                  deregisters the MR and unmaps the buffer: the packets
 *                  still carry the bytes
 *                  they were posted with (their page references keep the
 *                  pages), B gets every one, nothing is read from freed
 *                  memory (KASAN would say). Skipped without RACES_HOLD.
 *   ah_churn       UD datagrams leave paced, from the pacer's softirq,
 *                  while this process, on the same CPU, creates and
 *                  destroys address handles as fast as it can; every
 *                  datagram is sent, none of them hangs the CPU (the
 *                  senders look AHs up under RCU, not under the table's
 *                  lock).
 *
 * usage: races [-a DEVICE] [-b DEVICE]
 */
#include "kselftest_harness.h"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_util.h"

#define LEN		(64u << 20)
#define ROUNDS		40

static const char *dev_name[2] = { "sroce_h1", "sroce_h2" };

static int end_open(struct vu_end *e, const char *name, uint8_t fill)
{
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	int err = vu_end_open(e, name, 64, LEN, fill,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);

	if (err)
		return err;
	e->qp = vu_create_qp(&e->dev, IBV_QPT_RC, e->cq, e->cq, &cap);
	return e->qp ? 0 : errno;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/*
 * Connect A's QP (the reader) and B's (the responder) afresh, both from
 * RESET, at @mtu, B with @dest_rd responder resources; new PSNs each time
 * (@round), so nothing of an earlier round is taken as new.
 */
static int reconnect(struct vu_end *a, struct vu_end *b, enum ibv_mtu mtu,
		   uint8_t dest_rd, uint32_t round)
{
	struct vu_conn c = vu_conn_default(&b->dev, b->qp->qp_num, 0);
	uint32_t psn = (round * 0x10000u) & 0xffffff;
	int err;

	if (to_state(a->qp, IBV_QPS_RESET) || to_state(b->qp, IBV_QPS_RESET))
		return EINVAL;
	c.mtu = mtu;
	c.sq_psn = psn;
	c.rq_psn = psn ^ 0x800000;
	err = vu_connect(&a->dev, a->qp, &c);
	if (err)
		return err;
	c = vu_conn_default(&a->dev, a->qp->qp_num, 0);
	c.mtu = mtu;
	c.sq_psn = psn ^ 0x800000;
	c.rq_psn = psn;
	c.max_dest_rd_atomic = dest_rd;
	return vu_connect(&b->dev, b->qp, &c);
}

static int post_read(struct vu_end *a, struct vu_end *b, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = len,
			       .lkey = a->mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_READ, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)b->buf,
			     .rkey = b->mr->rkey },
	}, *bad;

	return ibv_post_send(a->qp, &wr, &bad);
}

/* Wait up to 10 s until the first @n bytes of A's buffer hold B's fill. */
static bool read_arrived(struct vu_end *a, uint8_t fill, size_t n)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (vu_ms_since(&t0) < 10000) {
		if (((volatile uint8_t *)a->buf)[n - 1] == fill)
			return true;
		usleep(1000);
	}
	return false;
}

/* B's tx_packets, from its port counters */
static long long tx_packets(const struct vu_end *b)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/tx_packets",
		 b->dev.name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Drain A's CQ: every completion there is, for @ms. */
static void drain(struct vu_end *e, long ms)
{
	struct ibv_wc wc[16];

	vu_poll(e->cq, wc, 16, ms);
}

FIXTURE(race) {
	struct vu_end a, b;
};

FIXTURE_SETUP(race)
{
	ASSERT_EQ(0, end_open(&self->a, dev_name[0], 0x00));
	ASSERT_EQ(0, end_open(&self->b, dev_name[1], 0xab));
}

FIXTURE_TEARDOWN(race)
{
	vu_end_close(&self->a);
	vu_end_close(&self->b);
}

/*
 * B answers a 64 MiB READ; once its first megabyte has arrived, B's QP
 * goes to @state. Then B sends nothing more.
 */
static void read_then(struct __test_metadata *_metadata,
		      FIXTURE_DATA(race) *self, enum ibv_qp_state state)
{
	long long before, after;

	ASSERT_EQ(0, reconnect(&self->a, &self->b, IBV_MTU_1024, 16, 1));
	ASSERT_EQ(0, post_read(&self->a, &self->b, LEN));
	ASSERT_TRUE(read_arrived(&self->a, 0xab, 1 << 20));
	ASSERT_EQ(0, to_state(self->b.qp, state));
	before = tx_packets(&self->b);
	usleep(1000 * 1000);
	after = tx_packets(&self->b);
	ASSERT_GE(before, 0);
	vu_diag("B sent %lld packets in the second after it left RTS",
		after - before);
	EXPECT_EQ(before, after);
	EXPECT_NE(0xab, self->a.buf[LEN - 1]);	/* the READ did stop */
	drain(&self->a, 100);
}

TEST_F_TIMEOUT(race, read_reset, 120)
{
	read_then(_metadata, self, IBV_QPS_RESET);
}

TEST_F_TIMEOUT(race, read_error, 120)
{
	read_then(_metadata, self, IBV_QPS_ERR);
}

TEST_F_TIMEOUT(race, read_destroy, 120)
{
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	long long before, after;

	ASSERT_EQ(0, reconnect(&self->a, &self->b, IBV_MTU_1024, 16, 1));
	ASSERT_EQ(0, post_read(&self->a, &self->b, LEN));
	ASSERT_TRUE(read_arrived(&self->a, 0xab, 1 << 20));
	ASSERT_EQ(0, ibv_destroy_qp(self->b.qp));
	self->b.qp = NULL;
	before = tx_packets(&self->b);
	usleep(1000 * 1000);
	after = tx_packets(&self->b);
	vu_diag("B sent %lld packets in the second after its QP was destroyed",
		after - before);
	EXPECT_EQ(before, after);
	/* a new QP for the teardown */
	self->b.qp = vu_create_qp(&self->b.dev, IBV_QPT_RC, self->b.cq,
				  self->b.cq, &cap);
	ASSERT_NE(NULL, self->b.qp);
	drain(&self->a, 100);
}

TEST_F_TIMEOUT(race, reset_loop, 600)
{
	static const enum ibv_mtu mtu[] = { IBV_MTU_1024, IBV_MTU_256,
					    IBV_MTU_512 };
	struct ibv_wc wc;
	uint32_t r;

	for (r = 1; r <= ROUNDS; r++) {
		/* A READ whose responses are under way ... */
		ASSERT_EQ(0, reconnect(&self->a, &self->b, mtu[r % 3], 16,
				     2 * r));
		ASSERT_EQ(0, post_read(&self->a, &self->b, LEN));
		usleep(1000 * (r % 7));
		/* ... and B's QP goes RESET, INIT, RTR under it. */
		ASSERT_EQ(0, reconnect(&self->a, &self->b, mtu[(r + 1) % 3],
				     r % 2 ? 0 : 16, 2 * r + 1));
		/* With max_dest_rd_atomic 0, a READ is an invalid request. */
		while (ibv_poll_cq(self->a.cq, 1, &wc) > 0)
			;	/* the cut READ, if it ended before */
		memset(self->a.buf, 0, 4096);
		ASSERT_EQ(0, post_read(&self->a, &self->b, 4096));
		ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 10000));
		EXPECT_EQ(r % 2 ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_SUCCESS,
			  (int)wc.status);
	}
	ASSERT_EQ(0, reconnect(&self->a, &self->b, IBV_MTU_256, 16, 0xfff));
	memset(self->a.buf, 0, LEN);
	ASSERT_EQ(0, post_read(&self->a, &self->b, 1 << 20));
	ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 60000));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(-1, vu_first_diff(self->a.buf, self->b.buf, 1 << 20));
	EXPECT_EQ(0, self->a.buf[1 << 20]);	/* nothing past the READ */
}

/* What the shell command @cmd prints, a number; -1 when it prints none. */
static long command_number(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

TEST_F_TIMEOUT(race, dereg_in_flight, 300)
{
	const char *hold = getenv("RACES_HOLD"), *release = getenv("RACES_RELEASE");
	const char *queued = getenv("RACES_QUEUED");
	const size_t len = 64 << 10;	/* one window: all sent at once */
	struct vu_conn c = vu_conn_default(&self->b.dev, self->b.qp->qp_num, 0);
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_mr *src_mr, *dst_mr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint8_t *src, *junk;
	struct timespec t0;
	long base, n;
	size_t i;

	if (!hold || !release || !queued)
		SKIP(return, "no RACES_HOLD, RACES_RELEASE and RACES_QUEUED commands");
	src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	for (i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	src_mr = ibv_reg_mr(self->a.dev.pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(self->b.dev.pd, self->b.buf, len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, src_mr);
	ASSERT_NE(NULL, dst_mr);
	memset(self->b.buf, 0, len);
	/*
	 * A's ACK timer (8.6 s) outlasts the delay by far, even on a slow
	 * machine: nothing is sent again, which would read the MR after its
	 * deregistration and rightly fail the WQE (IBV_WC_LOC_PROT_ERR).
	 */
	ASSERT_EQ(0, to_state(self->a.qp, IBV_QPS_RESET));
	ASSERT_EQ(0, to_state(self->b.qp, IBV_QPS_RESET));
	c.timeout = 21;
	ASSERT_EQ(0, vu_connect(&self->a.dev, self->a.qp, &c));
	c = vu_conn_default(&self->a.dev, self->a.qp->qp_num, 0);
	ASSERT_EQ(0, vu_connect(&self->b.dev, self->b.qp, &c));

	ASSERT_EQ(0, system(hold));
	base = command_number(queued);
	ASSERT_LE(0, base);
	sge = (struct ibv_sge){ .addr = (uintptr_t)src, .length = len,
				.lkey = src_mr->lkey };
	wr.sg_list = &sge;
	wr.wr.rdma.remote_addr = (uintptr_t)self->b.buf;
	wr.wr.rdma.rkey = dst_mr->rkey;
	ASSERT_EQ(0, ibv_post_send(self->a.qp, &wr, &bad));
	/*
	 * The device's rate limit paces them out over a few milliseconds:
	 * once the last is in the qdisc, take the memory back at once.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = command_number(queued) - base) < (long)(len / 1024) &&
	       vu_ms_since(&t0) < 5000)
		usleep(1000);
	ASSERT_LE((long)(len / 1024), n);
	TH_LOG("the qdisc took %ld packets %ld ms after the post", n,
	       vu_ms_since(&t0));
	EXPECT_EQ(0, ibv_dereg_mr(src_mr));
	EXPECT_EQ(0, munmap(src, len));
	/* And give the allocator a chance to hand those pages out again. */
	junk = malloc(64 << 20);
	ASSERT_NE(NULL, junk);
	memset(junk, 0xee, 64 << 20);
	ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 30000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(0, system(release));
	free(junk);
	for (i = 0; i < len && self->b.buf[i] == (uint8_t)(i * 131 + 7); i++)
		;
	EXPECT_EQ(len, i);		/* the first byte that differs */
	EXPECT_EQ(0, ibv_dereg_mr(dst_mr));
}

TEST_F_TIMEOUT(race, ah_churn, 300)
{
	struct ibv_qp_cap cap = { .max_send_wr = 1024, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_ah_attr attr = {
		.is_global = 1, .port_num = VU_PORT,
		.grh = { .hop_limit = 64 },
	};
	struct ibv_sge sge = { .addr = (uintptr_t)self->a.buf, .length = 1024,
			       .lkey = self->a.mr->lkey };
	struct ibv_send_wr wr[1024], *bad;
	struct ibv_qp *qa, *qb;
	struct timespec t0;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	long churned = 0;
	cpu_set_t one;
	int i;

	/* The pacer's timer fires on the CPU that armed it: this one. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	qa = vu_create_qp(&self->a.dev, IBV_QPT_UD, self->a.cq, self->a.cq,
			  &cap);
	qb = vu_create_qp(&self->b.dev, IBV_QPT_UD, self->b.cq, self->b.cq,
			  &cap);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vu_ud_rts(qa, 0x11111111));
	ASSERT_EQ(0, vu_ud_rts(qb, 0x11111111));
	attr.grh.dgid = self->b.dev.gid[0];
	attr.grh.sgid_index = self->a.dev.gid_index[0];
	ah = ibv_create_ah(self->a.dev.pd, &attr);
	ASSERT_NE(NULL, ah);
	for (i = 0; i < 1024; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .opcode = IBV_WR_SEND, .sg_list = &sge,
			.num_sge = 1, .next = i < 1023 ? &wr[i + 1] : NULL,
			.send_flags = i < 1023 ? 0 : IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num,
				   .remote_qkey = 0x11111111 },
		};
	ASSERT_EQ(0, ibv_post_send(qa, wr, &bad));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (vu_ms_since(&t0) < 3000) {
		struct ibv_ah *other = ibv_create_ah(self->a.dev.pd, &attr);

		ASSERT_NE(NULL, other);
		ASSERT_EQ(0, ibv_destroy_ah(other));
		churned++;
	}
	vu_diag("ah_churn: %ld AHs created and destroyed beside the pacer",
		churned);
	ASSERT_EQ(1, vu_poll(self->a.cq, &wc, 1, 120000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(1023, (int)wc.wr_id);
	ASSERT_EQ(0, ibv_destroy_qp(qa));
	ASSERT_EQ(0, ibv_destroy_qp(qb));
	ASSERT_EQ(0, ibv_destroy_ah(ah));
}

int main(int argc, char **argv)
{
	return vu_devs_from_args(argc, argv, dev_name) ?:
	       test_harness_run(argc, argv);
}
