// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * postlat: how long ibv_post_send takes on a software RDMA device, next to
 * what a message takes, for `make bench` (selftests/bench/guest), on sroce
 * or rdma_rxe alike.
 *
 *   postlat DEV N
 *
 * On a device without a doorbell page, ibv_post_send is the system call in
 * which the driver does the work: builds the request, loops it back,
 * writes the peer's memory, then builds, receives and completes the ACK.
 * Two RC QPs of DEV, connected to each other through its IPv4 GID, and
 * one memory region:
 *
 *   - ping-pong: two threads, on CPUs 0 and 1, take turns N times, each
 *     turn an 8-byte inline RDMA WRITE to a word the other thread spins
 *     on (as perftest's ib_write_lat); every 32nd is signaled and its
 *     completion polled. Prints half the round trip (perftest's unit) and
 *     how long each side's ibv_post_send lasted, medians in microseconds:
 *
 *       postlat <TAB> pingpong <TAB> N <TAB> half round trip <TAB>
 *               post, side 0 <TAB> post, side 1
 *
 *   - stream: one thread posts N 2-byte RDMA WRITEs, one per
 *     ibv_post_send, every 32nd signaled, at most 96 outstanding:
 *
 *       postlat <TAB> stream <TAB> N <TAB> post <TAB> usec per message
 *
 * Times are TSC cycles scaled by CLOCK_MONOTONIC over 20 ms. Exits 1 if
 * anything fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "tsc_util.h"
#include "verbs_util.h"

#define PL_SIGNAL_EVERY	32
#define PL_OUTSTANDING	96

struct pl {
	struct vu_dev d;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	uint64_t *buf;			/* [0], [8]: the flags; [16..]: sources */
	unsigned int inline_ok;
	long n;
	uint64_t *post[2], *rtt;
	atomic_int failed;
};

static struct pl pl;

static uint64_t median(uint64_t *v, long n)
{
	qsort(v, n, sizeof(*v), tu_cmp_u64);
	return v[n / 2];
}

/* One RDMA WRITE of @len bytes from @src to @dst; 0 or -1. */
static int pl_write(int side, void *src, uint32_t len, void *dst,
		    bool signaled, bool inl)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = len, .lkey = pl.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
			      (inl ? IBV_SEND_INLINE : 0),
	}, *bad;
	int err;

	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = pl.mr->rkey;
	err = ibv_post_send(pl.qp[side], &wr, &bad);
	if (err) {
		vu_diag("ibv_post_send: %s", strerror(err));
		return -1;
	}
	return 0;
}

/* Take one completion of @side's CQ; 0 or -1. */
static int pl_complete(int side)
{
	struct ibv_wc wc;

	if (vu_poll(pl.cq[side], &wc, 1, 5000) != 1) {
		vu_diag("no completion in 5 s");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		vu_diag("completion: %s", vu_wc_status(wc.status));
		return -1;
	}
	return 0;
}

/*
 * Side 0 writes 2i + 1 into side 1's flag, side 1 answers with 2i + 2
 * into side 0's; each waits for the other's value before it writes.
 */
static void *pl_side(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t *mine = &pl.buf[8 * me];
	uint64_t *theirs = &pl.buf[8 * (1 - me)];
	uint64_t *src = &pl.buf[16 + 8 * me];
	uint64_t want, t, c0;
	cpu_set_t cpus;
	long i;

	CPU_ZERO(&cpus);
	CPU_SET(me, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);	/* best effort */
	for (i = 0; i < pl.n && !atomic_load(&pl.failed); i++) {
		want = me ? 2 * (uint64_t)i + 1 : 2 * (uint64_t)i;
		t = __rdtsc();
		while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != want) {
			if (atomic_load(&pl.failed))
				return NULL;
			if (__rdtsc() - t > (uint64_t)1 << 36) {
				vu_diag("side %d: no answer to turn %ld", me, i);
				atomic_store(&pl.failed, 1);
				return NULL;
			}
			_mm_pause();
		}
		c0 = __rdtsc();
		if (!me && i)
			pl.rtt[i - 1] = c0 - pl.rtt[i - 1];
		if (!me)
			pl.rtt[i] = c0;
		*src = want + 1;
		if (pl_write(me, src, sizeof(*src), theirs,
			     i % PL_SIGNAL_EVERY == PL_SIGNAL_EVERY - 1,
			     pl.inline_ok)) {
			atomic_store(&pl.failed, 1);
			return NULL;
		}
		pl.post[me][i] = __rdtsc() - c0;
		if (i % PL_SIGNAL_EVERY == PL_SIGNAL_EVERY - 1 &&
		    pl_complete(me)) {
			atomic_store(&pl.failed, 1);
			return NULL;
		}
	}
	return NULL;
}

static int pl_pingpong(double per_us)
{
	pthread_t t[2];
	long k;

	for (k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, pl_side, (void *)(intptr_t)k)) {
			vu_diag("pthread_create failed");
			return -1;
		}
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	if (atomic_load(&pl.failed))
		return -1;
	/* The last round trip is not closed: side 0 ends with a post. */
	printf("postlat\tpingpong\t%ld\t%.2f\t%.2f\t%.2f\n", pl.n,
	       median(pl.rtt, pl.n - 1) / per_us / 2,
	       median(pl.post[0], pl.n) / per_us,
	       median(pl.post[1], pl.n) / per_us);
	return 0;
}

static int pl_stream(double per_us)
{
	uint8_t *src = (uint8_t *)&pl.buf[64], *dst = (uint8_t *)&pl.buf[128];
	long i, out = 0;
	uint64_t start, c0;
	bool sig;

	start = __rdtsc();
	for (i = 0; i < pl.n; i++) {
		while (out >= PL_OUTSTANDING) {
			if (pl_complete(0))
				return -1;
			out -= PL_SIGNAL_EVERY;
		}
		sig = i % PL_SIGNAL_EVERY == PL_SIGNAL_EVERY - 1;
		c0 = __rdtsc();
		if (pl_write(0, src, 2, dst, sig, false))
			return -1;
		pl.post[0][i] = __rdtsc() - c0;
		out++;
	}
	for (; out >= PL_SIGNAL_EVERY; out -= PL_SIGNAL_EVERY)
		if (pl_complete(0))
			return -1;
	printf("postlat\tstream\t%ld\t%.2f\t%.2f\n", pl.n,
	       median(pl.post[0], pl.n) / per_us,
	       (__rdtsc() - start) / per_us / pl.n);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 128, .max_recv_wr = 1, .max_send_sge = 1,
		.max_recv_sge = 1, .max_inline_data = 64,
	};
	struct vu_conn c;
	double per_us;
	int k;

	pl.n = argc == 3 ? atol(argv[2]) : 0;
	if (pl.n < 1000) {
		fprintf(stderr, "usage: postlat DEV N (N >= 1000)\n");
		return 1;
	}
	if (vu_open(&pl.d, argv[1]))
		return 1;
	pl.buf = aligned_alloc(4096, 4096);
	pl.post[0] = calloc(pl.n, sizeof(uint64_t));
	pl.post[1] = calloc(pl.n, sizeof(uint64_t));
	pl.rtt = calloc(pl.n, sizeof(uint64_t));
	if (!pl.buf || !pl.post[0] || !pl.post[1] || !pl.rtt) {
		vu_diag("out of memory");
		return 1;
	}
	memset(pl.buf, 0, 4096);
	pl.mr = ibv_reg_mr(pl.d.pd, pl.buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!pl.mr) {
		vu_diag("ibv_reg_mr: %s", strerror(errno));
		return 1;
	}
	for (k = 0; k < 2; k++) {
		pl.cq[k] = ibv_create_cq(pl.d.ctx, 256, NULL, NULL, 0);
		if (!pl.cq[k]) {
			vu_diag("ibv_create_cq: %s", strerror(errno));
			return 1;
		}
		pl.qp[k] = vu_create_qp(&pl.d, IBV_QPT_RC, pl.cq[k], pl.cq[k],
					&cap);
		if (!pl.qp[k])
			return 1;
	}
	pl.inline_ok = cap.max_inline_data >= sizeof(uint64_t);
	for (k = 0; k < 2; k++) {
		c = vu_conn_default(&pl.d, pl.qp[1 - k]->qp_num, 0);
		if (vu_connect(&pl.d, pl.qp[k], &c))
			return 1;
	}
	per_us = tu_tsc_per_us();
	if (pl_pingpong(per_us) || pl_stream(per_us))
		return 1;
	for (k = 0; k < 2; k++)
		if (ibv_destroy_qp(pl.qp[k]) || ibv_destroy_cq(pl.cq[k]))
			vu_diag("destroy failed");
	ibv_dereg_mr(pl.mr);
	vu_close(&pl.d);
	return 0;
}
