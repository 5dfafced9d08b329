// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rings.h: what the parts of fuzz_rings share: the parameters, the
 * counts in memory shared with the parent, the worker's view of its
 * devices and QPs, the little helpers every thread uses, and the
 * functions one part calls in another. fuzz_rings.c holds main(), the
 * parent and the worker process; fuzz_rings_ring.c the threads that write
 * the rings (poster, ringer, poller); fuzz_rings_obj.c the objects the
 * control thread makes, connects, heals and drops; fuzz_rings_chaos.c the
 * control thread's step, what it does to objects under traffic, and the
 * chaos actor.
 */
#ifndef SROCE_FUZZ_RINGS_H
#define SROCE_FUZZ_RINGS_H

#include <pthread.h>

#include "verbs_util.h"
#include "raw_verbs.h"

#define MAX_PROCS	16
#define MAX_SIDES	2
#define NPAIRS		4		/* RC/UC QP pairs per worker */
#define NUD		2		/* UD QPs per worker */
#define NQP		(2 * NPAIRS + NUD)
#define NCQ		2		/* per device */
#define NMR		3
#define NAH		4
#define NSTALE		8		/* dead keys and AH numbers kept */
#define MR_BYTES	(1u << 20)
#define QKEY		0x11110000u
#define GRACE_S		240		/* for the children to stop */
#define NERRNO		134
#define NSTATUS		24
#define KERNEL_MAX_SGE	32		/* kernel/queue.h: SROCE_MAX_SGE */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define WQE_HDR		((uint32_t)sizeof(struct sroce_send_wqe))
#define RWQE_HDR	((uint32_t)sizeof(struct sroce_recv_wqe))
#define SGE_BYTES	((uint32_t)sizeof(struct sroce_sge))

/* What is counted; op_name in fuzz_rings.c names each */
enum op {
	OP_OPEN, OP_CREATE_CQ, OP_RESIZE_CQ, OP_DESTROY_CQ, OP_CREATE_QP,
	OP_BAD_QP, OP_MODIFY_QP, OP_RANDOM_MODIFY, OP_PLAUSIBLE_MODIFY,
	OP_QUERY_QP,
	OP_DESTROY_QP, OP_CREATE_SRQ, OP_MODIFY_SRQ, OP_CREATE_AH,
	OP_DESTROY_AH, OP_REG_MR, OP_DEREG_MR, OP_MMAP, OP_ZAP,
	OP_POST_SEND, OP_POST_GARBAGE, OP_UC_FLOOD, OP_REWRITE, OP_PROD,
	OP_POST_RECV, OP_DOORBELL, OP_DOORBELL_RQ, OP_LEGACY_DB, OP_ARM_CQ,
	OP_BAD_IOCTL, OP_CQ_CONS, OP_CQE, OP_ASYNC, OP_FAULT, OP_ODD_FAULT,
	OP_LINK_DEL, OP_LINK_ADD, OP_N
};

/* Counts of one process, in memory shared with the parent */
struct wstats {
	uint64_t ok[OP_N], fail[OP_N];
	uint64_t err[NERRNO + 1];	/* the last: any other */
	uint64_t cqe[NSTATUS + 1];	/* by status; the last: any other */
};

struct shared {
	int stop;
	struct wstats w[MAX_PROCS + 1];	/* the workers', the chaos actor's */
};

extern struct shared *sh;

/* One MR of a device, its buffer our own mapping */
struct fmr {
	struct ibv_mr *mr;		/* NULL: none */
	uint8_t *buf;
	uint32_t len, lkey, rkey;
};

struct fcq {
	int live;
	uint32_t handle, cqn;
	uint32_t idx;			/* our consumer index (the poller's) */
	struct rv_ring r;
};

struct fah {
	int live;
	uint32_t handle, num;
	int target;			/* the device it leads to */
};

/*
 * One device as a worker sees it. The control thread changes it; the
 * others use it only while holding W.lock for reading and seeing @up.
 */
struct side {
	const char *name;
	int up;				/* atomic */
	int dead;			/* atomic: EIO seen or a ring faulted */
	int zapped;			/* atomic: a ring of it was zapped */
	long next_try;			/* ms: when to open it again */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int fd;				/* ctx->cmd_fd */
	int dbfd;			/* -1: only the legacy doorbell */
	int gid_index;
	union ibv_gid gid;
	struct fcq cq[NCQ];
	struct fmr mr[NMR];
	struct fah ah[NAH];
	int srq_live;
	uint32_t srq_handle, srq_max_sge;
	struct rv_ring srq;
	uint32_t stale_lkey[NSTALE], stale_rkey[NSTALE], stale_ah[NSTALE];
	unsigned int nstale;
};

/* One QP; slots 2k and 2k+1 are pair k, the last NUD are UD QPs. */
struct fqp {
	int live;			/* atomic */
	int side;
	uint8_t type;			/* IBV_QPT_* */
	int on_srq;
	int clean;			/* gets only valid WQEs (real traffic) */
	uint32_t handle, qpn;
	uint32_t max_sge, max_inline, max_rsge;
	struct rv_ring sq, rq;		/* rq.map NULL on an SRQ */
};

struct thr {
	struct vu_rng r;
	pthread_t tid;
};

/* The worker (one per process). */
struct worker {
	int id;
	int nsides;
	struct side side[MAX_SIDES];
	struct fqp qp[NQP];
	pthread_rwlock_t lock;		/* writers unmap; users read */
	struct wstats *st;
	uint64_t wr_id;
};

extern struct worker W;
extern const char *dev_names[MAX_SIDES];

/* -- little helpers ----------------------------------------------------- */

static inline long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static inline int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

static inline void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	if (us > 0)
		nanosleep(&t, NULL);
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	struct vu_rng r = { a ^ (b * 0xd1342543de82ef95ULL) };

	return vu_rand(&r);
}

static inline uint32_t rnd(struct vu_rng *r, uint32_t n)
{
	return n ? vu_below(r, n) : 0;
}

static inline int pct(struct vu_rng *r, uint32_t p)
{
	return vu_below(r, 100) < p;
}

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* A 32-bit value from the edges: 0, powers of two and their neighbours, ~0 */
static inline uint32_t odd_u32(struct vu_rng *r)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256,
		511, 512, 513, 1024, 4095, 4096, 4097, 65535, 65536,
		0x7fffffff, 0x80000000, 0x80000001, 0xfffffff0, 0xfffffffe,
		0xffffffff,
	};

	switch (rnd(r, 4)) {
	case 0:
		return (uint32_t)vu_rand(r);
	case 1:
		return (1u << rnd(r, 32)) - 1 + rnd(r, 3);
	default:
		return v[rnd(r, ARRAY_SIZE(v))];
	}
}

static inline uint64_t odd_u64(struct vu_rng *r)
{
	static const uint64_t v[] = {
		0, 1, 4096, 0xfffffffffffff000ULL, 0xffffffffffffffffULL,
		0xfffffffffffffff8ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0x00007ffffffff000ULL,
		0x0000800000000000ULL, 0xffff800000000000ULL, 0xffffffffULL,
		0x100000000ULL,
	};

	switch (rnd(r, 3)) {
	case 0:
		return vu_rand(r);
	case 1:
		return (1ULL << rnd(r, 64)) - rnd(r, 3);
	default:
		return v[rnd(r, ARRAY_SIZE(v))];
	}
}

static inline void count(enum op op, int err)
{
	struct wstats *s = W.st;

	if (!err) {
		__atomic_fetch_add(&s->ok[op], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&s->fail[op], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->err[err > 0 && err < NERRNO ? err : NERRNO],
			   1, __ATOMIC_RELAXED);
}

static inline uint64_t next_wr_id(void)
{
	return __atomic_add_fetch(&W.wr_id, 1, __ATOMIC_RELAXED);
}

static inline uint32_t ld(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void st(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline int up(struct side *s)
{
	return __atomic_load_n(&s->up, __ATOMIC_ACQUIRE);
}

static inline int live(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* An errno that says the device is gone: rebuild the side. */
static inline void check_dead(struct side *s, int err)
{
	if (err == EIO || err == ENODEV)
		__atomic_store_n(&s->dead, 1, __ATOMIC_RELAXED);
}

static inline void rdlock(void)
{
	pthread_rwlock_rdlock(&W.lock);
}

static inline void wrlock(void)
{
	pthread_rwlock_wrlock(&W.lock);
}

static inline void unlock(void)
{
	pthread_rwlock_unlock(&W.lock);
}

/* fuzz_rings_ring.c: the ring actors */
void on_fault(int sig);
int guarded(void (*fn)(void *), void *arg);
void ring_fault(struct side *s);
struct fqp *peer_of(struct fqp *q);
void *poster(void *arg);
void *ringer(void *arg);
void *poller(void *arg);

/* fuzz_rings_obj.c: the objects */
int cq_create(struct vu_rng *r, struct side *s, struct fcq *cq);
void mr_reg(struct vu_rng *r, struct side *s, struct fmr *m);
void mr_dereg(struct side *s, struct fmr *m);
void ah_create(struct vu_rng *r, struct side *s, int t);
void ah_destroy(struct side *s, struct fah *a);
void qp_destroy(struct fqp *q);
int modify(struct fqp *q, struct ib_uverbs_modify_qp *m, enum op op);
int to_state(struct fqp *q, int state);
void set_av(struct ib_uverbs_qp_dest *d, struct side *s,
	    const union ibv_gid *dgid);
int pick_side(struct vu_rng *r);
void pair_create(struct vu_rng *r, int k);
int qp_state(struct fqp *q);
void pair_heal(struct vu_rng *r, int k, bool force);
void ud_heal(struct vu_rng *r, struct fqp *q, bool anew);
void side_close(int i);
int side_open(struct vu_rng *r, int i);
void sides_tend(struct vu_rng *r);

/* fuzz_rings_chaos.c: the control thread's step, the chaos actor */
void control_step(struct vu_rng *r);
int chaos_main(uint64_t seed, int mean_s, long t_start);

#endif
