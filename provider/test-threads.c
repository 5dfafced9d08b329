// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-threads.c: the ring unit test's two-thread cases.
 */
#include <pthread.h>
#include <sched.h>

#include "test-rings.h"

/*
 * A producer and a consumer on two threads, each publishing with release
 * and reading the other's index with acquire, the way the kernel does:
 * every entry must arrive whole and in order.
 */
#define THREAD_ITEMS 200000

/*
 * A side with nothing to do yields: on a host with fewer free CPUs than
 * threads, a spinning side would hold a CPU its partner needs for a whole
 * time slice.
 */

/* Set by a side that gives up, so that the other does not wait forever. */
static int thread_stop;

static bool stopped(void)
{
	return __atomic_load_n(&thread_stop, __ATOMIC_RELAXED);
}

static void stop(void)
{
	__atomic_store_n(&thread_stop, 1, __ATOMIC_RELAXED);
}

static void *sq_kernel(void *arg)
{
	struct fake_ring *f = arg;
	uint32_t cons = 0, prod, n = 0;
	uint8_t *s;

	while (n < THREAD_ITEMS) {
		prod = __atomic_load_n((uint32_t *)(f->mem + HDR_PROD),
				       __ATOMIC_ACQUIRE);
		if (cons == prod) {
			sched_yield();
			continue;
		}
		for (; cons != prod; cons++, n++) {
			s = slot_at(f, cons);
			if (get64(s, SWQE_WR_ID) != n ||
			    get32(s, SWQE_NUM_SGE) != 1 ||
			    get64(s, SWQE_SIZE + SGE_ADDR) != ~(uint64_t)n) {
				printf("# WQE %u arrived wrong\n", n);
				stop();
				return (void *)1;
			}
		}
		kernel_consume(f, cons);
	}
	return NULL;
}

void test_sq_threads(void)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sg = {};
	struct fake_ring f;
	pthread_t t;
	uint32_t posted, n = 0;
	void *res;

	thread_stop = 0;
	fake_ring(&f, 3, 128, 0, true);
	CHECK_EQ(pthread_create(&t, NULL, sq_kernel, &f), 0);
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	while (n < THREAD_ITEMS && !stopped()) {
		wr.wr_id = n;
		sg.addr = ~(uint64_t)n;
		if (sroce_sq_post(&f.r, &rc_caps, &wr, &bad, &posted) == 0)
			n++;
		else
			sched_yield();	/* full */
	}
	pthread_join(t, &res);
	CHECK(res == NULL);
	free(f.mem);
}

static void *cq_kernel(void *arg)
{
	struct fake_ring *f = arg;
	uint32_t prod = 0, room;

	while (prod < THREAD_ITEMS && !stopped()) {
		room = 8 - (prod - __atomic_load_n((uint32_t *)(f->mem +
								 HDR_CONS),
						   __ATOMIC_ACQUIRE));
		if (!room) {
			sched_yield();
			continue;
		}
		for (; room && prod < THREAD_ITEMS; room--)
			kernel_write_cqe(f, prod++);
		kernel_produce(f, prod);
	}
	return NULL;
}

void test_cq_threads(void)
{
	struct fake_ring f;
	struct ibv_wc wc[5];
	uint32_t n = 0;
	pthread_t t;
	int i, got;

	thread_stop = 0;
	fake_ring(&f, 3, 64, 0, false);
	CHECK_EQ(pthread_create(&t, NULL, cq_kernel, &f), 0);
	while (n < THREAD_ITEMS && !stopped()) {
		got = sroce_cq_poll(&f.r, 5, wc);
		CHECK(got >= 0);
		if (!got)
			sched_yield();
		for (i = 0; i < got; i++, n++)
			if (wc[i].wr_id != 0x1000000000000000ull + n ||
			    wc[i].byte_len != 0x200 + n)
				break;
		if (got < 0 || i < got) {
			printf("# CQE %u came out wrong\n", n);
			case_failed = true;
			stop();
		}
	}
	pthread_join(t, NULL);
	free(f.mem);
}
