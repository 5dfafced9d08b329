// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rings: the ring fuzzer (`make fuzz-rings`, Documentation/testing.rst).
 *
 * A process owns the rings it shares with the kernel
 * (uapi/rdma/sroce-abi.h) and may write anything into them at any time;
 * the kernel must stay whole whatever it finds there. This program is such
 * a process. PDs and MRs come from libibverbs; CQs, QPs (RC, UC and UD, on
 * an SRQ or not), SRQs and AHs are made with raw uverbs commands on the
 * verbs file (raw_verbs.h), their rings are mapped here, not by the
 * provider, and the doorbell is a doorbell file of our own (or the legacy
 * command).
 *
 * The parent forks PROCS workers and, with -c, a chaos actor. A worker
 * opens each device (by default sroce_h1 and sroce_h2, two network
 * namespaces joined by veth: a QP pair joins the two devices or loops back
 * on one) and runs four threads until the time is up:
 *
 *   control  creates, connects and heals QP pairs (RC, UC) and UD QPs;
 *            modifies QPs to random states with random attributes (random
 *            bytes, and transitions the verbs allow with values around
 *            and past the limits: path MTU, max_dest_rd_atomic 0..255,
 *            destination QPNs; RESET and ERR under traffic);
 *            destroys QPs and deregisters MRs under traffic; resizes CQs,
 *            tries to destroy CQs in use, creates and destroys AHs,
 *            asks for QPs with impossible capabilities, maps odd offsets
 *            and sizes, zaps a ring's pages now and then
 *   poster   writes send WQEs, valid ones and garbage (opcodes in and out
 *            of range, num_sge 0..2^32-1, inline lengths past the slot,
 *            SGEs with valid, stale, foreign and random lkeys, addresses
 *            and lengths near 2^32 and 2^64, real and random rkeys and AH
 *            numbers), publishes prod sane, far ahead, behind or wrapped,
 *            rings; rewrites WQEs right after their doorbell; refills UC
 *            (and RC) send queues with large RDMA WRITEs, round after round
 *   ringer   rings send and receive doorbells (the doorbell file, or the
 *            legacy command), arms CQs by real and random numbers, rewrites
 *            posted WQEs between doorbells
 *   poller   consumes CQEs, writes the CQ rings' cons (and their headers'
 *            other fields) wrong now and then, refills receive queues and
 *            SRQs with valid and garbage receive WQEs, drains async events
 *
 * The chaos actor deletes a device now and then (rdma link delete, in its
 * host's namespace) and adds it again; the workers see EIO, drop
 * everything of that device and open it again once it is back.
 *
 * Errors from system calls are expected: they are counted, not reported.
 * A ring access that faults (SIGBUS or SIGSEGV) makes the worker drop that
 * device's state and open it again; that is expected after the control
 * thread zapped one of the device's rings, and fails the run otherwise
 * (the kernel must leave a process's ring mappings alone). Some QPs get
 * only valid WQEs, so that real traffic keeps the engines busy. At the end
 * the parent prints the counts of operations, errnos and CQE statuses.
 * The exit status is 0 when every child ended normally and in time, else
 * 1; whether the kernel stayed whole is for its log to say (the VM's
 * scan). A child that does not stop within GRACE_S of the end is shown
 * with its kernel stacks, as a hang.
 *
 * Every decision comes from a generator seeded from the seed, each thread
 * of each process its own stream: the same seed and options replay the
 * same decisions, as far as timing allows.
 *
 * usage: fuzz_rings [-s SEED] [-t SECONDS] [-p PROCS] [-c SECONDS]
 *                   [-d DEV[,DEV]] [-i SECONDS]
 *   -s  the seed (default: from /dev/urandom), printed as "# seed 0x..."
 *   -t  how long to run (default 60 s)
 *   -p  worker processes (default 3, at most 16)
 *   -c  mean seconds between device deletions (default 0: none); the
 *       devices must be named sroce_hN, in namespace hN on vethN
 *       (selftests/lib.sh)
 *   -d  the devices (default sroce_h1,sroce_h2)
 *   -i  seconds between progress lines (default 30)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

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

static const char *const op_name[OP_N] = {
	[OP_OPEN] = "open", [OP_CREATE_CQ] = "create_cq",
	[OP_RESIZE_CQ] = "resize_cq", [OP_DESTROY_CQ] = "destroy_cq",
	[OP_CREATE_QP] = "create_qp", [OP_BAD_QP] = "create_bad_qp",
	[OP_MODIFY_QP] = "modify_qp", [OP_RANDOM_MODIFY] = "random_modify",
	[OP_PLAUSIBLE_MODIFY] = "plausible_modify",
	[OP_QUERY_QP] = "query_qp", [OP_DESTROY_QP] = "destroy_qp",
	[OP_CREATE_SRQ] = "create_srq", [OP_MODIFY_SRQ] = "modify_srq",
	[OP_CREATE_AH] = "create_ah", [OP_DESTROY_AH] = "destroy_ah",
	[OP_REG_MR] = "reg_mr", [OP_DEREG_MR] = "dereg_mr",
	[OP_MMAP] = "mmap", [OP_ZAP] = "zap_ring",
	[OP_POST_SEND] = "post_send", [OP_POST_GARBAGE] = "post_garbage",
	[OP_UC_FLOOD] = "sq_refill", [OP_REWRITE] = "rewrite",
	[OP_PROD] = "odd_prod", [OP_POST_RECV] = "post_recv",
	[OP_DOORBELL] = "doorbell_sq", [OP_DOORBELL_RQ] = "doorbell_rq",
	[OP_LEGACY_DB] = "legacy_doorbell", [OP_ARM_CQ] = "arm_cq",
	[OP_BAD_IOCTL] = "bad_ioctl", [OP_CQ_CONS] = "cq_cons",
	[OP_CQE] = "cqe", [OP_ASYNC] = "async_event",
	[OP_FAULT] = "ring_fault", [OP_ODD_FAULT] = "UNEXPECTED_ring_fault",
	[OP_LINK_DEL] = "link_delete",
	[OP_LINK_ADD] = "link_add",
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

static struct shared *sh;

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
static struct {
	int id;
	int nsides;
	struct side side[MAX_SIDES];
	struct fqp qp[NQP];
	pthread_rwlock_t lock;		/* writers unmap; users read */
	struct wstats *st;
	uint64_t wr_id;
} W;

static const char *dev_names[MAX_SIDES] = { "sroce_h1", "sroce_h2" };

/* -- little helpers ----------------------------------------------------- */

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

static void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	if (us > 0)
		nanosleep(&t, NULL);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	struct vu_rng r = { a ^ (b * 0xd1342543de82ef95ULL) };

	return vu_rand(&r);
}

static uint32_t rnd(struct vu_rng *r, uint32_t n)
{
	return n ? vu_below(r, n) : 0;
}

static int pct(struct vu_rng *r, uint32_t p)
{
	return vu_below(r, 100) < p;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* A 32-bit value from the edges: 0, powers of two and their neighbours, ~0 */
static uint32_t odd_u32(struct vu_rng *r)
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

static uint64_t odd_u64(struct vu_rng *r)
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

static void count(enum op op, int err)
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

static uint64_t next_wr_id(void)
{
	return __atomic_add_fetch(&W.wr_id, 1, __ATOMIC_RELAXED);
}

static uint32_t ld(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static int up(struct side *s)
{
	return __atomic_load_n(&s->up, __ATOMIC_ACQUIRE);
}

static int live(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* An errno that says the device is gone: rebuild the side. */
static void check_dead(struct side *s, int err)
{
	if (err == EIO || err == ENODEV)
		__atomic_store_n(&s->dead, 1, __ATOMIC_RELAXED);
}

static void rdlock(void)
{
	pthread_rwlock_rdlock(&W.lock);
}

static void wrlock(void)
{
	pthread_rwlock_wrlock(&W.lock);
}

static void unlock(void)
{
	pthread_rwlock_unlock(&W.lock);
}

/*
 * Ring accesses run under guarded(): a fault (a zapped or otherwise dead
 * mapping) comes back here instead of killing the process, and the side
 * is rebuilt. The handler runs with SA_NODEFER, so nothing stays blocked
 * after the jump.
 */
static __thread sigjmp_buf *fault_jb;

static void on_fault(int sig)
{
	if (fault_jb)
		siglongjmp(*fault_jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int guarded(void (*fn)(void *), void *arg)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		fault_jb = NULL;
		return -1;
	}
	fault_jb = &jb;
	fn(arg);
	fault_jb = NULL;
	return 0;
}

/*
 * A ring of @s faulted: expected after we zapped one of its rings; else
 * the kernel took a mapping away under a live object, which it must not
 * (the pages stay the process's until it unmaps them: kernel/queue.c).
 */
static void ring_fault(struct side *s)
{
	if (__atomic_load_n(&s->zapped, __ATOMIC_RELAXED)) {
		count(OP_FAULT, 0);
	} else {
		count(OP_ODD_FAULT, 0);
		fprintf(stderr, "# worker %d: a ring of %s faulted unzapped\n",
			W.id, s->name);
	}
	__atomic_store_n(&s->dead, 1, __ATOMIC_RELAXED);
}

/* -- keys, addresses, WQEs ---------------------------------------------- */

static void stale_push(struct side *s, uint32_t lkey, uint32_t rkey,
		       uint32_t ah)
{
	unsigned int i = s->nstale++ % NSTALE;

	if (lkey || rkey) {
		s->stale_lkey[i] = lkey;
		s->stale_rkey[i] = rkey;
	}
	if (ah)
		s->stale_ah[i] = ah;
}

static struct fmr *pick_mr(struct vu_rng *r, struct side *s)
{
	unsigned int i, k = rnd(r, NMR);

	for (i = 0; i < NMR; i++) {
		struct fmr *m = &s->mr[(k + i) % NMR];

		if (m->mr)
			return m;
	}
	return NULL;
}

/* A valid SGE of @len bytes at most (at least 1) in an MR of @s. */
static int valid_sge(struct vu_rng *r, struct side *s, uint32_t len,
		     struct sroce_sge *g)
{
	struct fmr *m = pick_mr(r, s);
	uint32_t off;

	if (!m)
		return -1;
	len = min_u32(len ? len : 1, m->len);
	off = rnd(r, m->len - len + 1);
	g->addr = (uintptr_t)m->buf + off;
	g->length = len;
	g->lkey = m->lkey;
	return 0;
}

/* A remote address and rkey for @len bytes: in a live MR of @ps if it can. */
static void valid_remote(struct vu_rng *r, struct side *ps, uint32_t len,
			 uint32_t align, __u64 *addr, uint32_t *rkey)
{
	struct fmr *m = ps && up(ps) ? pick_mr(r, ps) : NULL;
	uint32_t off;

	if (!m || len > m->len) {
		*addr = odd_u64(r);
		*rkey = (uint32_t)vu_rand(r);
		return;
	}
	off = rnd(r, m->len - len + 1) & ~(align - 1);
	*addr = (uintptr_t)m->buf + off;
	*rkey = m->rkey;
}

/* An lkey: valid, stale, of the other device, or any number */
static uint32_t odd_lkey(struct vu_rng *r, struct side *s, struct side *o)
{
	struct fmr *m;

	switch (rnd(r, 5)) {
	case 0:
		m = pick_mr(r, s);
		return m ? m->lkey : 0;
	case 1:
		return s->stale_lkey[rnd(r, NSTALE)];
	case 2:
		m = o && up(o) ? pick_mr(r, o) : NULL;
		return m ? m->lkey : 0;
	case 3:
		m = pick_mr(r, s);
		return m ? m->lkey ^ (1u << rnd(r, 32)) : 0;
	default:
		return odd_u32(r);
	}
}

/* An SGE address: inside, at the edges of or past an MR, or anywhere */
static uint64_t odd_addr(struct vu_rng *r, struct side *s)
{
	struct fmr *m = pick_mr(r, s);

	if (!m)
		return odd_u64(r);
	switch (rnd(r, 5)) {
	case 0:
		return (uintptr_t)m->buf + rnd(r, m->len);
	case 1:
		return (uintptr_t)m->buf + m->len - rnd(r, 8);
	case 2:
		return (uintptr_t)m->buf - 1 - rnd(r, 4096);
	case 3:
		return (uintptr_t)m->buf + m->len + rnd(r, 1u << 20);
	default:
		return odd_u64(r);
	}
}

/* The other device of a worker with two, else NULL */
static struct side *other_side(struct side *s)
{
	if (W.nsides < 2)
		return NULL;
	return s == &W.side[0] ? &W.side[1] : &W.side[0];
}

/* The QP slot a WQE of @q would send to: its pair's other end */
static struct fqp *peer_of(struct fqp *q)
{
	long i = q - W.qp;

	if (i >= 2 * NPAIRS)
		return NULL;
	return &W.qp[i ^ 1];
}

/* For a UD send from @s: a live AH and a live UD QP behind it */
static void ud_dest(struct vu_rng *r, struct side *s, struct sroce_send_wqe *w)
{
	unsigned int i, k = rnd(r, NAH), n;

	w->wr.ud.ah = (uint32_t)vu_rand(r);
	w->wr.ud.remote_qpn = rnd(r, 1u << 24);
	w->wr.ud.remote_qkey = pct(r, 20) ? 0x80000000u : QKEY;
	for (i = 0; i < NAH; i++) {
		struct fah *a = &s->ah[(k + i) % NAH];

		if (!a->live)
			continue;
		w->wr.ud.ah = a->num;
		for (n = 0; n < NUD; n++) {
			struct fqp *d = &W.qp[2 * NPAIRS + (k + n) % NUD];

			if (live(&d->live) && d->side == a->target) {
				w->wr.ud.remote_qpn = d->qpn;
				break;
			}
		}
		return;
	}
}

/*
 * Write into @slot a WQE that @q's type allows, with valid keys and
 * addresses where the QP has them: @maxlen bytes of payload at most.
 */
static void wqe_valid(struct vu_rng *r, struct fqp *q, uint8_t *slot,
		      uint32_t maxlen)
{
	static const uint32_t rc_ops[] = {
		IB_UVERBS_WR_SEND, IB_UVERBS_WR_SEND_WITH_IMM,
		IB_UVERBS_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
		IB_UVERBS_WR_RDMA_READ, IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
		IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct side *s = &W.side[q->side];
	struct fqp *p = peer_of(q);
	struct side *ps = p && live(&p->live) ? &W.side[p->side] : NULL;
	struct sroce_send_wqe w = { .wr_id = next_wr_id() };
	struct sroce_sge g[4];
	uint32_t room = q->sq.stride - WQE_HDR, nsge = 0, len = 0, i;
	bool atomic, rdma;

	if (q->type == IBV_QPT_UD)
		w.opcode = rc_ops[rnd(r, 2)];
	else if (q->type == IBV_QPT_UC)
		w.opcode = rc_ops[rnd(r, 4)];
	else
		w.opcode = rc_ops[rnd(r, ARRAY_SIZE(rc_ops))];
	atomic = w.opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ||
		 w.opcode == IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD;
	rdma = w.opcode == IB_UVERBS_WR_RDMA_WRITE ||
	       w.opcode == IB_UVERBS_WR_RDMA_WRITE_WITH_IMM ||
	       w.opcode == IB_UVERBS_WR_RDMA_READ;
	w.send_flags = (pct(r, 50) ? SROCE_SEND_SIGNALED : 0) |
		       (pct(r, 10) ? SROCE_SEND_SOLICITED : 0) |
		       (pct(r, 5) ? SROCE_SEND_FENCE : 0);
	w.ex.imm_data = (uint32_t)vu_rand(r);
	if (q->type == IBV_QPT_UD)
		maxlen = min_u32(maxlen, 1024);

	if (atomic) {
		if (!valid_sge(r, s, 8, &g[0])) {
			g[0].addr &= ~7ULL;
			g[0].length = 8;
			nsge = 1;
		}
		len = 8;
		valid_remote(r, ps, 8, 8, &w.wr.atomic.remote_addr,
			     &w.wr.atomic.rkey);
		w.wr.atomic.compare_add = vu_rand(r);
		w.wr.atomic.swap = vu_rand(r);
	} else if (w.opcode != IB_UVERBS_WR_RDMA_READ && q->max_inline &&
		   pct(r, 25)) {
		w.send_flags |= SROCE_SEND_INLINE;
		w.inline_len = rnd(r, min_u32(q->max_inline, room) + 1);
		len = w.inline_len;
	} else {
		uint32_t most = min_u32(min_u32(q->max_sge, 4),
					room / SGE_BYTES);

		nsge = rnd(r, most + 1);
		for (i = 0; i < nsge; i++) {
			if (valid_sge(r, s, 1 + rnd(r, maxlen / nsge), &g[i]))
				break;
			len += g[i].length;
		}
		nsge = i;
	}
	if (rdma)
		valid_remote(r, ps, len ? len : 1, 1, &w.wr.rdma.remote_addr,
			     &w.wr.rdma.rkey);
	if (q->type == IBV_QPT_UD)
		ud_dest(r, s, &w);
	w.num_sge = nsge;

	memcpy(slot, &w, sizeof(w));
	if (w.send_flags & SROCE_SEND_INLINE)
		vu_fill(r, slot + WQE_HDR, w.inline_len);
	else if (nsge)
		memcpy(slot + WQE_HDR, g, nsge * SGE_BYTES);
}

/*
 * Write into @slot a WQE with some fields made wrong: a valid one bent, or
 * random bytes bent further. Nothing is written past the slot.
 */
static void wqe_garbage(struct vu_rng *r, struct fqp *q, uint8_t *slot)
{
	struct side *s = &W.side[q->side];
	struct side *o = other_side(s);
	uint32_t room = q->sq.stride - WQE_HDR, nfit = room / SGE_BYTES;
	struct sroce_send_wqe w;
	unsigned int k, n = 1 + rnd(r, 4), i;

	if (pct(r, 60))
		wqe_valid(r, q, slot, 1u << rnd(r, 17));
	else
		vu_fill(r, slot, q->sq.stride);
	memcpy(&w, slot, sizeof(w));
	for (k = 0; k < n; k++) {
		struct sroce_sge *g = (void *)(slot + WQE_HDR);

		switch (rnd(r, 12)) {
		case 0:
			w.opcode = pct(r, 70) ? rnd(r, 16) : odd_u32(r);
			break;
		case 1:
			w.send_flags = pct(r, 50) ? (uint32_t)vu_rand(r) :
				       w.send_flags ^ SROCE_SEND_INLINE;
			break;
		case 2:
			switch (rnd(r, 4)) {
			case 0:
				w.num_sge = q->max_sge + rnd(r, 3);
				break;
			case 1:
				w.num_sge = KERNEL_MAX_SGE + rnd(r, 2);
				break;
			default:
				w.num_sge = odd_u32(r);
			}
			break;
		case 3:
			switch (rnd(r, 4)) {
			case 0:
				w.inline_len = q->max_inline + rnd(r, 2);
				break;
			case 1:
				w.inline_len = room + rnd(r, 2);
				break;
			case 2:
				w.inline_len = q->sq.stride + rnd(r, 65536);
				break;
			default:
				w.inline_len = odd_u32(r);
			}
			if (pct(r, 70))
				w.send_flags |= SROCE_SEND_INLINE;
			break;
		case 4:
		case 5:
		case 6:
			if (!nfit)
				break;
			i = rnd(r, nfit);
			switch (rnd(r, 3)) {
			case 0:
				g[i].addr = odd_addr(r, s);
				break;
			case 1:
				g[i].length = pct(r, 30) ?
					      0x80000000u - rnd(r, 2) :
					      odd_u32(r);
				break;
			default:
				g[i].lkey = odd_lkey(r, s, o);
			}
			break;
		case 7:
			if (pct(r, 50)) {
				w.wr.rdma.remote_addr = odd_u64(r);
			} else {
				struct fmr *m = o && up(o) ? pick_mr(r, o) :
					       pick_mr(r, s);

				w.wr.rdma.rkey = pct(r, 30) ?
					s->stale_rkey[rnd(r, NSTALE)] :
					m && pct(r, 50) ? m->rkey :
					odd_u32(r);
			}
			break;
		case 8:
			w.wr.atomic.remote_addr = odd_u64(r) | rnd(r, 8);
			break;
		case 9:
			switch (rnd(r, 4)) {
			case 0:
				w.wr.ud.ah = s->stale_ah[rnd(r, NSTALE)];
				break;
			case 1:
				w.wr.ud.ah = o && up(o) ?
					     o->ah[rnd(r, NAH)].num : 0;
				break;
			default:
				w.wr.ud.ah = odd_u32(r);
			}
			break;
		case 10:
			w.wr.ud.remote_qpn = pct(r, 50) ? q->qpn : odd_u32(r);
			w.wr.ud.remote_qkey = odd_u32(r);
			break;
		default:
			w.wr_id = vu_rand(r);
			w.ex.invalidate_rkey = odd_u32(r);
		}
	}
	memcpy(slot, &w, sizeof(w));
}

/* -- doorbells ---------------------------------------------------------- */

static void doorbell(struct vu_rng *r, struct side *s, struct fqp *q,
		     int recv)
{
	int err;

	if (s->dbfd >= 0 && !pct(r, 5)) {
		err = rv_ring(s->dbfd, recv ? SROCE_DOORBELL_RQ :
					      SROCE_DOORBELL_SQ, q->qpn);
		count(recv ? OP_DOORBELL_RQ : OP_DOORBELL, err);
	} else {
		err = rv_legacy_doorbell(s->fd, q->handle, recv);
		count(OP_LEGACY_DB, err);
	}
	check_dead(s, err);
}

/* The producer index to write after @prod (ours) when @cons is theirs */
static uint32_t odd_prod(struct vu_rng *r, const struct rv_ring *ring,
			 uint32_t prod, uint32_t cons)
{
	switch (rnd(r, 6)) {
	case 0:
		return cons + ring->entries + 1 + rnd(r, 1000);	/* far ahead */
	case 1:
		return cons - 1 - rnd(r, ring->entries);	/* behind */
	case 2:
		return prod + 0x80000000u;			/* wrapped */
	case 3:
		return cons + ring->entries;			/* just full */
	case 4:
		return prod - rnd(r, 3);
	default:
		return (uint32_t)vu_rand(r);
	}
}

/* Where a producer starts: after what is posted, if that makes sense. */
static uint32_t prod_start(struct rv_ring *ring, uint32_t *room)
{
	uint32_t prod = ld(&ring->hdr->prod), cons = ld(&ring->hdr->cons);

	if (prod - cons > ring->entries)
		prod = cons;
	*room = ring->entries - (prod - cons);
	return prod;
}

/* -- the poster --------------------------------------------------------- */

enum { M_VALID, M_GARBAGE, M_FLOOD, M_REWRITE, M_PROD };

struct post {
	struct vu_rng *r;
	struct fqp *q;
	int mode;
};

static void post_fn(void *arg)
{
	struct post *p = arg;
	struct vu_rng *r = p->r;
	struct fqp *q = p->q;
	struct side *s = &W.side[q->side];
	struct rv_ring *sq = &q->sq;
	uint32_t room, prod = prod_start(sq, &room), n, i, round, rounds;

	switch (p->mode) {
	case M_VALID:
		n = room ? 1 + rnd(r, min_u32(room, 16)) : 0;
		for (i = 0; i < n; i++)
			wqe_valid(r, q, rv_slot(sq, prod + i),
				  pct(r, 90) ? 4096 : 65536);
		st(&sq->hdr->prod, prod + n);
		count(OP_POST_SEND, 0);
		doorbell(r, s, q, 0);
		break;
	case M_GARBAGE:
		n = 1 + rnd(r, room ? room : 4);
		for (i = 0; i < n; i++) {
			if (pct(r, 50))
				wqe_garbage(r, q, rv_slot(sq, prod + i));
			else
				wqe_valid(r, q, rv_slot(sq, prod + i), 65536);
		}
		st(&sq->hdr->prod, pct(r, 60) ? prod + n :
			odd_prod(r, sq, prod + n, ld(&sq->hdr->cons)));
		count(OP_POST_GARBAGE, 0);
		doorbell(r, s, q, 0);
		break;
	case M_FLOOD:
		/* Large RDMA WRITEs into every free slot, round after round. */
		rounds = 1 + rnd(r, 4);
		for (round = 0; round < rounds && !stopping(); round++) {
			struct fqp *pq = peer_of(q);
			struct side *ps = pq && live(&pq->live) ?
					  &W.side[pq->side] : NULL;
			uint32_t len = pct(r, 85) ? 16384u << rnd(r, 4) :
				       MR_BYTES;

			prod = prod_start(sq, &room);
			for (i = 0; i < room; i++) {
				uint8_t *slot = rv_slot(sq, prod + i);
				struct sroce_send_wqe w = {
					.wr_id = next_wr_id(),
					.opcode = pct(r, 90) ?
						  IB_UVERBS_WR_RDMA_WRITE :
						  IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
					.send_flags = pct(r, 12) ?
						      SROCE_SEND_SIGNALED : 0,
				};
				struct sroce_sge g;

				if (valid_sge(r, s, len, &g))
					break;
				w.num_sge = q->max_sge && WQE_HDR + SGE_BYTES <=
					    sq->stride ? 1 : 0;
				valid_remote(r, ps, g.length, 1,
					     &w.wr.rdma.remote_addr,
					     &w.wr.rdma.rkey);
				memcpy(slot, &w, sizeof(w));
				if (w.num_sge)
					memcpy(slot + WQE_HDR, &g, sizeof(g));
			}
			st(&sq->hdr->prod, prod + i);
			count(OP_UC_FLOOD, 0);
			doorbell(r, s, q, 0);
			sleep_us(rnd(r, 3000));
		}
		break;
	case M_REWRITE:
		/* Valid WQEs, the doorbell, then the same slots rewritten. */
		n = room ? 1 + rnd(r, min_u32(room, 8)) : 0;
		for (i = 0; i < n; i++)
			wqe_valid(r, q, rv_slot(sq, prod + i), 65536);
		st(&sq->hdr->prod, prod + n);
		doorbell(r, s, q, 0);
		for (i = 0; i < n; i++)
			wqe_garbage(r, q, rv_slot(sq, prod + i));
		count(OP_REWRITE, 0);
		if (pct(r, 50))
			doorbell(r, s, q, 0);
		break;
	default:
		st(&sq->hdr->prod, odd_prod(r, sq, prod, ld(&sq->hdr->cons)));
		count(OP_PROD, 0);
		doorbell(r, s, q, 0);
	}
}

/* A live QP on a live device, or NULL; with @type, of that type if any */
static struct fqp *pick_qp(struct vu_rng *r, int type)
{
	unsigned int i, k = rnd(r, NQP);
	struct fqp *any = NULL;

	for (i = 0; i < NQP; i++) {
		struct fqp *q = &W.qp[(k + i) % NQP];

		if (!live(&q->live) || !up(&W.side[q->side]))
			continue;
		if (type < 0 || q->type == type)
			return q;
		if (!any)
			any = q;
	}
	return any;
}

static void *poster(void *arg)
{
	struct thr *t = arg;
	struct vu_rng *r = &t->r;

	while (!stopping()) {
		struct post p = { .r = r };
		unsigned int m = rnd(r, 100);

		p.mode = m < 50 ? M_VALID : m < 70 ? M_GARBAGE :
			 m < 80 ? M_FLOOD : m < 92 ? M_REWRITE : M_PROD;
		rdlock();
		p.q = pick_qp(r, p.mode == M_FLOOD ? IBV_QPT_UC : -1);
		if (p.q && p.mode == M_FLOOD && p.q->type == IBV_QPT_UD)
			p.mode = M_VALID;
		if (p.q && p.q->clean && p.mode != M_FLOOD)
			p.mode = M_VALID;
		if (p.q && guarded(post_fn, &p))
			ring_fault(&W.side[p.q->side]);
		unlock();
		if (!p.q)
			sleep_us(2000);
		else if (pct(r, 50))
			sleep_us(rnd(r, 500));
	}
	return NULL;
}

/* -- the ringer --------------------------------------------------------- */

struct ring_arg {
	struct vu_rng *r;
	struct fqp *q;
};

/* Rewrite one field of a WQE near the ring's indices */
static void rewrite_one(struct vu_rng *r, struct fqp *q)
{
	struct rv_ring *sq = &q->sq;
	uint32_t idx = ld(&sq->hdr->cons) + rnd(r, 4) - 1;
	uint8_t *slot = rv_slot(sq, idx);
	struct sroce_send_wqe *w = (void *)slot;
	uint32_t nfit = (sq->stride - WQE_HDR) / SGE_BYTES;
	struct sroce_sge *g = (void *)(slot + WQE_HDR);

	switch (rnd(r, 6)) {
	case 0:
		w->num_sge = pct(r, 50) ? odd_u32(r) : w->num_sge + 1;
		break;
	case 1:
		w->inline_len = odd_u32(r);
		break;
	case 2:
		w->opcode = rnd(r, 20);
		break;
	case 3:
		w->send_flags ^= 1u << rnd(r, 4);
		break;
	default:
		if (nfit) {
			struct sroce_sge *e = &g[rnd(r, nfit)];

			if (pct(r, 50))
				e->length = odd_u32(r);
			else if (pct(r, 50))
				e->lkey = odd_u32(r);
			else
				e->addr = odd_u64(r);
		}
	}
	count(OP_REWRITE, 0);
}

static void ring_fn(void *arg)
{
	struct ring_arg *a = arg;
	struct vu_rng *r = a->r;
	struct fqp *q = a->q;
	struct side *s = &W.side[q->side];
	unsigned int i, n = 1 + rnd(r, 16);
	int err;

	for (i = 0; i < n; i++) {
		unsigned int what = rnd(r, 100);
		struct fcq *cq = &s->cq[rnd(r, NCQ)];

		if (what < 55) {
			doorbell(r, s, q, 0);
		} else if (what < 63) {
			doorbell(r, s, q, 1);
		} else if (what < 71 && s->dbfd >= 0) {
			err = rv_ring(s->dbfd, pct(r, 50) ?
				      SROCE_DOORBELL_CQ_NEXT :
				      SROCE_DOORBELL_CQ_SOLICITED,
				      cq->live ? cq->cqn : odd_u32(r));
			count(OP_ARM_CQ, err);
			check_dead(s, err);
		} else if (what < 76 && s->dbfd >= 0) {
			/* someone else's, or nobody's */
			err = rv_ring(s->dbfd, pct(r, 70) ?
				      SROCE_DOORBELL_SQ :
				      SROCE_DOORBELL_CQ_NEXT,
				      pct(r, 50) ? q->qpn + rnd(r, 5) - 2 :
				      pct(r, 50) ? odd_u32(r) : odd_u64(r));
			count(OP_DOORBELL, err);
			check_dead(s, err);
		} else if (what < 78 && s->dbfd >= 0) {
			err = rv_ring(s->dbfd, _IO(RDMA_IOCTL_MAGIC, rnd(r, 256)),
				      odd_u32(r));
			count(OP_BAD_IOCTL, err);
			check_dead(s, err);
		} else {
			if (!q->clean)
				rewrite_one(r, q);
			doorbell(r, s, q, 0);
		}
	}
}

static void *ringer(void *arg)
{
	struct thr *t = arg;
	struct vu_rng *r = &t->r;

	while (!stopping()) {
		struct ring_arg a = { .r = r };

		rdlock();
		a.q = pick_qp(r, -1);
		if (a.q && guarded(ring_fn, &a))
			ring_fault(&W.side[a.q->side]);
		unlock();
		sleep_us(a.q ? rnd(r, 1000) : 2000);
	}
	return NULL;
}

/* -- the poller --------------------------------------------------------- */

struct poll_arg {
	struct vu_rng *r;
	struct side *s;
};

static void cq_poll(struct vu_rng *r, struct fcq *cq)
{
	struct rv_ring *ring = &cq->r;
	uint32_t prod = ld(&ring->hdr->prod), n = prod - cq->idx, i;

	if (n > ring->entries) {
		/* what we skipped we skip */
		cq->idx = prod;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		const struct sroce_cqe *c = rv_slot(ring, cq->idx + i);
		uint32_t status = __atomic_load_n(&c->status, __ATOMIC_RELAXED);

		__atomic_fetch_add(&W.st->cqe[status < NSTATUS ? status :
						     NSTATUS], 1,
				   __ATOMIC_RELAXED);
	}
	if (n)
		count(OP_CQE, 0);
	cq->idx = prod;
	if (pct(r, 4)) {
		/* cons ahead of prod, far behind, anywhere: next time, right */
		uint32_t v[] = { prod + 1 + rnd(r, 64), prod - ring->entries - 1,
				 (uint32_t)vu_rand(r), prod + ring->entries };

		st(&ring->hdr->cons, v[rnd(r, ARRAY_SIZE(v))]);
		count(OP_CQ_CONS, 0);
	} else {
		st(&ring->hdr->cons, cq->idx);
	}
	if (pct(r, 1)) {
		/* fields the kernel wrote once and must not read back */
		switch (rnd(r, 4)) {
		case 0:
			st(&ring->hdr->prod, odd_u32(r));
			break;
		case 1:
			ring->hdr->log2_entries = odd_u32(r);
			break;
		case 2:
			ring->hdr->stride = odd_u32(r);
			break;
		default:
			ring->hdr->flags = odd_u32(r);
		}
	}
}

/* Fill @n receive WQEs from @idx: valid, or now and then garbage. */
static void rwqe_fill(struct vu_rng *r, struct side *s, struct rv_ring *ring,
		      uint32_t max_sge, uint32_t idx, uint32_t n, bool clean)
{
	uint32_t nfit = (ring->stride - RWQE_HDR) / SGE_BYTES, i, k;

	for (i = 0; i < n; i++) {
		uint8_t *slot = rv_slot(ring, idx + i);
		struct sroce_recv_wqe w = { .wr_id = next_wr_id() };
		struct sroce_sge *g = (void *)(slot + RWQE_HDR);

		if (!clean && pct(r, 5)) {
			vu_fill(r, slot, ring->stride);
			w.num_sge = pct(r, 50) ? odd_u32(r) :
				    rnd(r, nfit + 1);
			for (k = 0; k < min_u32(w.num_sge, nfit); k++) {
				if (pct(r, 50))
					g[k].lkey = odd_lkey(r, s,
							     other_side(s));
				if (pct(r, 50))
					g[k].addr = odd_addr(r, s);
			}
		} else {
			w.num_sge = 1 + rnd(r, min_u32(min_u32(max_sge, nfit),
						       2));
			if (!max_sge || !nfit)
				w.num_sge = 0;
			for (k = 0; k < w.num_sge; k++)
				if (valid_sge(r, s, 4096u << rnd(r, 5), &g[k]))
					break;
			w.num_sge = k;
		}
		memcpy(slot, &w, sizeof(w));
	}
}

/* Refill a receive ring; the doorbell if the kernel flags an error. */
static void rq_refill(struct vu_rng *r, struct side *s, struct fqp *q,
		      struct rv_ring *ring, uint32_t max_sge, bool clean)
{
	uint32_t room, prod = prod_start(ring, &room);

	/* each post to a QP in error flushes the ring: not every time */
	if (!room || (__atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED) &
		      SROCE_RING_ERR && !pct(r, 10)))
		return;
	rwqe_fill(r, s, ring, max_sge, prod, room, clean);
	st(&ring->hdr->prod, !clean && pct(r, 3) ?
	   odd_prod(r, ring, prod + room, ld(&ring->hdr->cons)) :
	   prod + room);
	count(OP_POST_RECV, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (q && __atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED) &
		 SROCE_RING_ERR)
		doorbell(r, s, q, 1);
}

static void poll_fn(void *arg)
{
	struct poll_arg *a = arg;
	struct vu_rng *r = a->r;
	struct side *s = a->s;
	struct ib_uverbs_async_event_desc ev;
	unsigned int i;

	for (i = 0; i < NCQ; i++)
		if (s->cq[i].live)
			cq_poll(r, &s->cq[i]);
	for (i = 0; i < NQP; i++) {
		struct fqp *q = &W.qp[i];

		if (live(&q->live) && &W.side[q->side] == s && q->rq.map)
			rq_refill(r, s, q, &q->rq, q->max_rsge, q->clean);
	}
	if (s->srq_live)
		rq_refill(r, s, NULL, &s->srq, s->srq_max_sge, false);
	for (i = 0; i < 16; i++) {
		if (read(s->ctx->async_fd, &ev, sizeof(ev)) != sizeof(ev))
			break;
		count(OP_ASYNC, 0);
	}
}

static void *poller(void *arg)
{
	struct thr *t = arg;
	struct vu_rng *r = &t->r;
	int i;

	while (!stopping()) {
		for (i = 0; i < W.nsides; i++) {
			struct poll_arg a = { .r = r, .s = &W.side[i] };

			rdlock();
			if (up(a.s) && guarded(poll_fn, &a))
				ring_fault(a.s);
			unlock();
		}
		sleep_us(500 + rnd(r, 2500));
	}
	return NULL;
}

/* -- control: objects --------------------------------------------------- */

static int cq_create(struct vu_rng *r, struct side *s, struct fcq *cq)
{
	static const uint32_t sizes[] = { 1, 2, 7, 16, 64, 256, 1024, 4096 };
	uint32_t cqe = cq == &s->cq[0] ? 1024 : sizes[rnd(r, ARRAY_SIZE(sizes))];
	struct sroce_mmap_info mi;
	struct rv_ring ring;
	uint32_t handle, cqn;
	int err;

	err = rv_create_cq(s->fd, cqe, &handle, &cqn, &mi);
	count(OP_CREATE_CQ, err);
	check_dead(s, err);
	if (err)
		return err;
	err = rv_map(s->fd, &mi, sizeof(struct sroce_cqe), &ring);
	count(OP_MMAP, err);
	if (err) {
		rv_destroy_cq(s->fd, handle);
		return err;
	}
	wrlock();
	cq->handle = handle;
	cq->cqn = cqn;
	cq->r = ring;
	cq->idx = ld(&ring.hdr->cons);
	cq->live = 1;
	unlock();
	return 0;
}

static void mr_reg(struct vu_rng *r, struct side *s, struct fmr *m)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *mr;
	uint8_t *buf;

	if (pct(r, 15))
		access &= (int)vu_rand(r) | IBV_ACCESS_LOCAL_WRITE;
	buf = mmap(NULL, MR_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		count(OP_REG_MR, errno);
		return;
	}
	memset(buf, 0x5a, MR_BYTES);
	mr = ibv_reg_mr(s->pd, buf, MR_BYTES, access);
	count(OP_REG_MR, mr ? 0 : errno);
	if (!mr) {
		check_dead(s, errno);
		munmap(buf, MR_BYTES);
		return;
	}
	wrlock();
	m->buf = buf;
	m->len = MR_BYTES;
	m->lkey = mr->lkey;
	m->rkey = mr->rkey;
	m->mr = mr;
	unlock();
}

/* Deregister (the buffer unmapped too), under whatever uses it. */
static void mr_dereg(struct side *s, struct fmr *m)
{
	struct ibv_mr *mr = m->mr;
	int err;

	if (!mr)
		return;
	err = ibv_dereg_mr(mr);
	count(OP_DEREG_MR, err);
	check_dead(s, err);
	wrlock();
	stale_push(s, m->lkey, m->rkey, 0);
	m->mr = NULL;
	unlock();
	munmap(m->buf, MR_BYTES);
	m->buf = NULL;
}

static void srq_create(struct vu_rng *r, struct side *s)
{
	struct sroce_mmap_info mi;
	struct rv_ring ring;
	uint32_t handle, max_sge = 1 + rnd(r, 4);
	int err;

	err = rv_create_srq(s->fd, s->pd->handle, 16 + rnd(r, 240), max_sge,
			    rnd(r, 16), &handle, &mi);
	count(OP_CREATE_SRQ, err);
	check_dead(s, err);
	if (err)
		return;
	err = rv_map(s->fd, &mi, RWQE_HDR + SGE_BYTES, &ring);
	count(OP_MMAP, err);
	if (err) {
		rv_destroy_srq(s->fd, handle);
		return;
	}
	wrlock();
	s->srq_handle = handle;
	s->srq_max_sge = min_u32(max_sge, (ring.stride - RWQE_HDR) / SGE_BYTES);
	s->srq = ring;
	s->srq_live = 1;
	unlock();
}

/* An AH from @s to side @t (or, now and then, to nowhere sensible) */
static void ah_create(struct vu_rng *r, struct side *s, int t)
{
	struct ib_uverbs_ah_attr a = {
		.grh.sgid_index = s->gid_index, .grh.hop_limit = 64,
		.is_global = 1, .port_num = 1,
	};
	struct fah *slot = NULL;
	uint32_t handle, num;
	unsigned int i;
	bool odd = pct(r, 15);
	int err;

	memcpy(a.grh.dgid, W.side[t].gid.raw, 16);
	if (odd) {
		switch (rnd(r, 5)) {
		case 0:
			vu_fill(r, a.grh.dgid, 16);
			break;
		case 1:
			a.grh.dgid[0] = 0xff;	/* multicast */
			break;
		case 2:
			a.grh.sgid_index = (uint8_t)vu_rand(r);
			break;
		case 3:
			a.is_global = 0;
			break;
		default:
			a.port_num = (uint8_t)rnd(r, 4);
		}
	}
	for (i = 0; i < NAH; i++)
		if (!s->ah[i].live)
			slot = &s->ah[i];
	err = rv_create_ah(s->fd, s->pd->handle, &a, &handle, &num);
	count(OP_CREATE_AH, err);
	check_dead(s, err);
	if (err)
		return;
	if (odd || !slot) {
		count(OP_DESTROY_AH, rv_destroy_ah(s->fd, handle));
		return;
	}
	wrlock();
	slot->handle = handle;
	slot->num = num;
	slot->target = t;
	slot->live = 1;
	unlock();
}

static void ah_destroy(struct side *s, struct fah *a)
{
	int err;

	if (!a->live)
		return;
	err = rv_destroy_ah(s->fd, a->handle);
	count(OP_DESTROY_AH, err);
	check_dead(s, err);
	wrlock();
	stale_push(s, 0, 0, a->num);
	a->live = 0;
	unlock();
}

/* Create a QP of @type on side @si in slot @q, its rings mapped. */
static int qp_create(struct vu_rng *r, struct fqp *q, int si, uint8_t type)
{
	static const uint32_t inl[] = { 0, 0, 16, 64, 128, 256, 512 };
	struct side *s = &W.side[si];
	struct fcq *scq = &s->cq[rnd(r, NCQ)], *rcq = &s->cq[rnd(r, NCQ)];
	struct rv_qp_init in = {
		.pd = s->pd->handle, .type = type,
		.sq_sig_all = pct(r, 20),
		.max_send_wr = pct(r, 85) ? 1 + rnd(r, 64) : 1 + rnd(r, 1024),
		.max_recv_wr = 1 + rnd(r, 64),
		.max_send_sge = pct(r, 85) ? rnd(r, 5) : rnd(r, 33),
		.max_recv_sge = rnd(r, 5),
		.max_inline = inl[rnd(r, ARRAY_SIZE(inl))],
		.srq = s->srq_live && pct(r, 25) ? (int32_t)s->srq_handle : -1,
	};
	struct rv_qp_created c;
	struct rv_ring sq, rq = {};
	int err;

	if (!scq->live || !rcq->live)
		return EAGAIN;
	in.send_cq = scq->handle;
	in.recv_cq = rcq->handle;
	err = rv_create_qp(s->fd, &in, &c);
	count(OP_CREATE_QP, err);
	check_dead(s, err);
	if (err)
		return err;
	err = rv_map(s->fd, &c.drv.sq, WQE_HDR, &sq);
	if (!err && in.srq < 0)
		err = rv_map(s->fd, &c.drv.rq, RWQE_HDR, &rq);
	else if (!err && c.drv.rq.size)
		err = EPROTO;
	count(OP_MMAP, err);
	if (err) {
		rv_unmap(&sq);
		rv_unmap(&rq);
		count(OP_DESTROY_QP, rv_destroy_qp(s->fd, c.handle));
		return err;
	}
	q->side = si;
	q->type = type;
	q->on_srq = in.srq >= 0;
	q->handle = c.handle;
	q->qpn = c.qpn;
	q->max_sge = min_u32(c.max_send_sge, (sq.stride - WQE_HDR) / SGE_BYTES);
	q->max_inline = min_u32(c.max_inline, sq.stride - WQE_HDR);
	q->max_rsge = rq.map ? min_u32(c.max_recv_sge, (rq.stride - RWQE_HDR) /
				       SGE_BYTES) : 0;
	q->sq = sq;
	q->rq = rq;
	__atomic_store_n(&q->live, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Destroy under traffic: the others stop using it only afterwards. */
static void qp_destroy(struct fqp *q)
{
	struct side *s = &W.side[q->side];
	int err;

	if (!q->live)
		return;
	err = rv_destroy_qp(s->fd, q->handle);
	count(OP_DESTROY_QP, err);
	check_dead(s, err);
	__atomic_store_n(&q->live, 0, __ATOMIC_RELEASE);
	wrlock();
	rv_unmap(&q->sq);
	rv_unmap(&q->rq);
	unlock();
}

static int modify(struct fqp *q, struct ib_uverbs_modify_qp *m, enum op op)
{
	struct side *s = &W.side[q->side];
	int err;

	m->qp_handle = q->handle;
	err = rv_modify_qp(s->fd, m);
	count(op, err);
	check_dead(s, err);
	return err;
}

static int to_state(struct fqp *q, int state)
{
	struct ib_uverbs_modify_qp m = {
		.attr_mask = IBV_QP_STATE, .qp_state = state,
	};

	return modify(q, &m, OP_MODIFY_QP);
}

/* How a pair connects; both ends get the same but for the PSNs */
struct conn {
	uint8_t mtu, timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint32_t psn[2];
};

static void conn_random(struct vu_rng *r, struct conn *c)
{
	c->mtu = 1 + rnd(r, 5);
	c->timeout = 10 + rnd(r, 5);
	c->retry_cnt = rnd(r, 8);
	c->rnr_retry = pct(r, 50) ? 7 : rnd(r, 7);
	c->min_rnr_timer = 1 + rnd(r, 8);
	c->max_rd_atomic = rnd(r, 17);
	c->max_dest_rd_atomic = pct(r, 15) ? 0 : 1 + rnd(r, 16);
	c->psn[0] = rnd(r, 1u << 24);
	c->psn[1] = rnd(r, 1u << 24);
}

static void set_av(struct ib_uverbs_qp_dest *d, struct side *s,
		   const union ibv_gid *dgid)
{
	memcpy(d->dgid, dgid->raw, 16);
	d->sgid_index = s->gid_index;
	d->hop_limit = 64;
	d->is_global = 1;
	d->port_num = 1;
}

/*
 * Connect end @e (0 or 1) of a pair through RESET, INIT, RTR and RTS to
 * the QP @p on side @ps. Return: 0 or the errno of the step that failed.
 */
static int qp_connect_step(struct fqp *q, struct fqp *p, int e,
			   const struct conn *c, int step)
{
	struct side *s = &W.side[q->side], *ps = &W.side[p->side];
	struct ib_uverbs_modify_qp m = {};
	bool rc = q->type == IBV_QPT_RC;

	switch (step) {
	case 0:
		return to_state(q, IBV_QPS_RESET);
	case 1:
		m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      IBV_QP_ACCESS_FLAGS;
		m.qp_state = IBV_QPS_INIT;
		m.port_num = 1;
		m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		break;
	case 2:
		m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		m.qp_state = IBV_QPS_RTR;
		set_av(&m.dest, s, &ps->gid);
		m.path_mtu = c->mtu;
		m.dest_qp_num = p->qpn;
		m.rq_psn = c->psn[!e];
		if (rc) {
			m.attr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER;
			m.max_dest_rd_atomic = c->max_dest_rd_atomic;
			m.min_rnr_timer = c->min_rnr_timer;
		}
		break;
	default:
		m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		m.qp_state = IBV_QPS_RTS;
		m.sq_psn = c->psn[e];
		if (rc) {
			m.attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC;
			m.timeout = c->timeout;
			m.retry_cnt = c->retry_cnt;
			m.rnr_retry = c->rnr_retry;
			m.max_rd_atomic = c->max_rd_atomic;
		}
	}
	return modify(q, &m, OP_MODIFY_QP);
}

/* Both ends of pair @k, step by step; 0 or the first errno */
static int pair_connect(struct vu_rng *r, int k)
{
	struct fqp *a = &W.qp[2 * k], *b = &W.qp[2 * k + 1];
	struct conn c;
	int step, err;

	if (!a->live || !b->live || !up(&W.side[a->side]) ||
	    !up(&W.side[b->side]))
		return EAGAIN;
	conn_random(r, &c);
	for (step = 0; step < 4; step++) {
		err = qp_connect_step(a, b, 0, &c, step);
		if (!err)
			err = qp_connect_step(b, a, 1, &c, step);
		if (err)
			return err;
	}
	return 0;
}

/* A side that is up, at random; -1 if none */
static int pick_side(struct vu_rng *r)
{
	int i, k = rnd(r, W.nsides);

	for (i = 0; i < W.nsides; i++)
		if (up(&W.side[(k + i) % W.nsides]))
			return (k + i) % W.nsides;
	return -1;
}

/* Pair @k made anew: two QPs (RC or UC) on two devices or on one */
static void pair_create(struct vu_rng *r, int k)
{
	struct fqp *a = &W.qp[2 * k], *b = &W.qp[2 * k + 1];
	uint8_t type = pct(r, 60) ? IBV_QPT_RC : IBV_QPT_UC;
	int sa = pick_side(r), sb = pick_side(r);

	qp_destroy(a);
	qp_destroy(b);
	if (sa < 0 || sb < 0)
		return;
	a->clean = b->clean = k == 0 || pct(r, 20);
	if (qp_create(r, a, sa, type) || qp_create(r, b, sb, type))
		return;
	pair_connect(r, k);
}

static void ud_connect(struct fqp *q)
{
	struct ib_uverbs_modify_qp m = {
		.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_QKEY,
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};

	if (to_state(q, IBV_QPS_RESET) || modify(q, &m, OP_MODIFY_QP) ||
	    to_state(q, IBV_QPS_RTR))
		return;
	memset(&m, 0, sizeof(m));
	m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	m.qp_state = IBV_QPS_RTS;
	modify(q, &m, OP_MODIFY_QP);
}

static int qp_state(struct fqp *q)
{
	struct side *s = &W.side[q->side];
	int state = -1, err = rv_query_qp_state(s->fd, q->handle, &state);

	count(OP_QUERY_QP, err);
	check_dead(s, err);
	return err ? -1 : state;
}

/*
 * Pair @k working again: made anew if an end is missing, else reconnected
 * if an end is not in RTS (or always, with @force: new attributes).
 */
static void pair_heal(struct vu_rng *r, int k, bool force)
{
	struct fqp *a = &W.qp[2 * k], *b = &W.qp[2 * k + 1];

	if (!a->live || !b->live || !up(&W.side[a->side]) ||
	    !up(&W.side[b->side])) {
		pair_create(r, k);
		return;
	}
	if (force || qp_state(a) != IBV_QPS_RTS ||
	    qp_state(b) != IBV_QPS_RTS)
		pair_connect(r, k);
}

static void ud_heal(struct vu_rng *r, struct fqp *q, bool anew)
{
	int si;

	if (!anew && q->live && up(&W.side[q->side])) {
		if (qp_state(q) != IBV_QPS_RTS)
			ud_connect(q);
		return;
	}
	qp_destroy(q);
	si = pick_side(r);
	q->clean = q == &W.qp[2 * NPAIRS] || pct(r, 20);
	if (si >= 0 && !qp_create(r, q, si, IBV_QPT_UD))
		ud_connect(q);
}

/*
 * A transition the verbs allow from the QP's state, with the attributes
 * it requires and some it may take, their values random around and past
 * what sroce accepts (path MTU, timeouts and retries, rd_atomic up to 255,
 * destination QPNs of other QPs, of nobody and past 24 bits, any PSN).
 */
static void plausible_modify(struct vu_rng *r, struct fqp *q)
{
	struct side *s = &W.side[q->side];
	struct fqp *p = peer_of(q);
	struct ib_uverbs_modify_qp m;
	bool ud = q->type == IBV_QPT_UD, rc = q->type == IBV_QPT_RC;
	uint32_t need, may;
	int cur = qp_state(q), to;

	if (cur < 0)
		return;
	switch (cur) {
	case IBV_QPS_RESET:
		to = IBV_QPS_INIT;
		break;
	case IBV_QPS_INIT:
		to = pct(r, 80) ? IBV_QPS_RTR : IBV_QPS_INIT;
		break;
	case IBV_QPS_RTR:
		to = IBV_QPS_RTS;
		break;
	case IBV_QPS_RTS:
		to = pct(r, 60) ? IBV_QPS_RTS : pct(r, 50) ? IBV_QPS_SQD :
		     IBV_QPS_ERR;
		break;
	case IBV_QPS_SQD:
		to = pct(r, 50) ? IBV_QPS_RTS : IBV_QPS_SQD;
		break;
	default:
		to = pct(r, 50) ? IBV_QPS_RESET : cur;
	}
	need = IBV_QP_STATE;
	may = 0;
	if (to == IBV_QPS_INIT) {
		need |= cur == IBV_QPS_RESET ? IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			(ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS) : 0;
		may = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	} else if (to == IBV_QPS_RTR) {
		if (!ud)
			need |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
		if (rc)
			need |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		may = IBV_QP_PKEY_INDEX | (ud ? IBV_QP_QKEY :
					   IBV_QP_ACCESS_FLAGS);
	} else if (to == IBV_QPS_RTS) {
		if (cur == IBV_QPS_RTR)
			need |= IBV_QP_SQ_PSN;
		if (rc && cur == IBV_QPS_RTR)
			need |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		may = IBV_QP_CUR_STATE | (ud ? IBV_QP_QKEY :
					  IBV_QP_ACCESS_FLAGS) |
		      (rc ? IBV_QP_MIN_RNR_TIMER : 0);
		if (rc && cur == IBV_QPS_SQD)
			may |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
			       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MTU |
			       IBV_QP_AV;
	} else if (to == IBV_QPS_SQD) {
		may = IBV_QP_EN_SQD_ASYNC_NOTIFY;
	}

	vu_fill(r, &m, sizeof(m));
	m.attr_mask = need | (may & (uint32_t)vu_rand(r));
	if (pct(r, 5))
		m.attr_mask ^= 1u << rnd(r, 21);
	m.qp_state = to;
	m.cur_qp_state = pct(r, 90) ? (uint32_t)cur : rnd(r, 8);
	m.port_num = pct(r, 95) ? 1 : rnd(r, 3);
	m.pkey_index = pct(r, 95) ? 0 : rnd(r, 3);
	m.qp_access_flags = pct(r, 95) ? rnd(r, 16) : (uint32_t)vu_rand(r);
	m.qkey = pct(r, 80) ? QKEY : odd_u32(r);
	m.path_mtu = pct(r, 85) ? 1 + rnd(r, 5) : rnd(r, 256);
	m.timeout = pct(r, 85) ? rnd(r, 32) : rnd(r, 256);
	m.retry_cnt = pct(r, 85) ? rnd(r, 8) : rnd(r, 256);
	m.rnr_retry = pct(r, 85) ? rnd(r, 8) : rnd(r, 256);
	m.min_rnr_timer = pct(r, 85) ? rnd(r, 32) : rnd(r, 256);
	m.max_rd_atomic = pct(r, 30) ? 0 : rnd(r, 256);
	m.max_dest_rd_atomic = pct(r, 30) ? 0 : rnd(r, 256);
	switch (rnd(r, 5)) {
	case 0:
	case 1:
		m.dest_qp_num = p && p->live ? p->qpn : rnd(r, 1u << 24);
		break;
	case 2:
		m.dest_qp_num = W.qp[rnd(r, NQP)].qpn;
		break;
	case 3:
		m.dest_qp_num = rnd(r, 1u << 24);
		break;
	default:
		m.dest_qp_num = odd_u32(r);
	}
	if (pct(r, 90)) {
		int t = p && p->live ? p->side : pick_side(r);

		set_av(&m.dest, s, &W.side[t < 0 ? q->side : t].gid);
		if (pct(r, 10))
			m.dest.hop_limit = rnd(r, 256);
		if (pct(r, 10))
			m.dest.flow_label = (uint32_t)vu_rand(r);
		if (pct(r, 10))
			m.dest.traffic_class = rnd(r, 256);
	}
	modify(q, &m, OP_PLAUSIBLE_MODIFY);
}

/* modify_qp with random bytes, a few of them made plausible */
static void random_modify(struct vu_rng *r)
{
	struct fqp *q = &W.qp[rnd(r, NQP)];
	struct side *s = &W.side[q->side];
	struct ib_uverbs_modify_qp m;

	if (!q->live || !up(s))
		return;
	if (pct(r, 60)) {
		plausible_modify(r, q);
		return;
	}
	vu_fill(r, &m, sizeof(m));
	m.attr_mask = pct(r, 80) ? (uint32_t)vu_rand(r) & ((1u << 21) - 1) :
		      odd_u32(r);
	m.qp_state = rnd(r, 8);
	m.cur_qp_state = rnd(r, 8);
	m.path_mtu = rnd(r, 8);
	if (pct(r, 30))
		m.max_dest_rd_atomic = 0;
	if (pct(r, 70)) {
		int t = pick_side(r);

		set_av(&m.dest, s, &W.side[t < 0 ? q->side : t].gid);
		if (pct(r, 3))	/* on the link, but nobody's there */
			m.dest.dgid[15] = 9 + rnd(r, 200);
	}
	if (pct(r, 60)) {
		m.port_num = 1;
		m.pkey_index = 0;
	}
	if (pct(r, 60))
		m.qp_access_flags &= IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC;
	if (pct(r, 60)) {
		m.timeout &= 31;
		m.retry_cnt &= 7;
		m.rnr_retry &= 7;
		m.min_rnr_timer &= 31;
	}
	if (pct(r, 5)) {
		struct ib_uverbs_modify_qp keep = m;

		m.qp_handle = (uint32_t)vu_rand(r);
		count(OP_RANDOM_MODIFY, rv_modify_qp(s->fd, &m));
		m = keep;
		return;
	}
	modify(q, &m, OP_RANDOM_MODIFY);
}

/* RTS to RTS with new retry attributes, under traffic */
static void rts_update(struct vu_rng *r)
{
	struct fqp *q = &W.qp[rnd(r, 2 * NPAIRS)];
	struct ib_uverbs_modify_qp m = {
		.attr_mask = IBV_QP_STATE, .qp_state = IBV_QPS_RTS,
	};

	if (!q->live || !up(&W.side[q->side]))
		return;
	if (q->type == IBV_QPT_RC) {
		m.attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
			       IBV_QP_MIN_RNR_TIMER;
		m.timeout = rnd(r, 20);
		m.retry_cnt = rnd(r, 8);
		m.rnr_retry = rnd(r, 8);
		m.max_rd_atomic = rnd(r, 17);
		m.min_rnr_timer = rnd(r, 32);
	} else {
		m.attr_mask |= IBV_QP_ACCESS_FLAGS;
		m.qp_access_flags = rnd(r, 8) << 1;
	}
	modify(q, &m, OP_MODIFY_QP);
}

/* A QP with capabilities, types or handles it cannot have */
static void bad_qp(struct vu_rng *r)
{
	int si = pick_side(r);
	struct side *s;
	struct rv_qp_init in;
	struct rv_qp_created c;
	int err;

	if (si < 0)
		return;
	s = &W.side[si];
	in = (struct rv_qp_init) {
		.pd = s->pd->handle, .send_cq = s->cq[0].handle,
		.recv_cq = s->cq[1].handle, .srq = -1,
		.type = pct(r, 70) ? IBV_QPT_RC + rnd(r, 3) : (uint8_t)vu_rand(r),
		.max_send_wr = 1, .max_recv_wr = 1,
	};
	switch (rnd(r, 8)) {
	case 0:
		in.max_send_wr = odd_u32(r);
		break;
	case 1:
		in.max_send_sge = odd_u32(r);
		break;
	case 2:
		in.max_inline = odd_u32(r);
		break;
	case 3:
		in.max_recv_wr = odd_u32(r);
		in.max_recv_sge = odd_u32(r);
		break;
	case 4:
		in.pd = odd_u32(r);
		break;
	case 5:
		in.send_cq = odd_u32(r);
		break;
	case 6:
		in.srq = pct(r, 50) ? (int32_t)s->cq[0].handle :
			 (int32_t)(odd_u32(r) & 0x7fffffff);
		break;
	default:
		in.max_send_wr = 0x4000 + rnd(r, 2);
		in.max_inline = 512 + rnd(r, 2);
		in.max_send_sge = 32 + rnd(r, 2);
	}
	err = rv_create_qp(s->fd, &in, &c);
	count(OP_BAD_QP, err);
	check_dead(s, err);
	if (!err)
		count(OP_DESTROY_QP, rv_destroy_qp(s->fd, c.handle));
}

/* mmap() at offsets and sizes near the real ones; touch what maps */
struct probe {
	uint8_t *p;
	size_t len;
};

static void probe_fn(void *arg)
{
	struct probe *pr = arg;
	size_t off;
	volatile uint8_t sink;

	for (off = 0; off < pr->len; off += 4096)
		sink = pr->p[off];
	(void)sink;
}

static void mmap_probe(struct vu_rng *r)
{
	int si = pick_side(r);
	struct fqp *q = &W.qp[rnd(r, NQP)];
	struct side *s;
	uint64_t off;
	size_t len;
	struct probe pr;
	void *p;

	if (si < 0)
		return;
	s = &W.side[si];
	off = q->live && q->side == si ? q->sq.offset : s->cq[0].r.offset;
	len = q->live && q->side == si ? q->sq.size : s->cq[0].r.size;
	switch (rnd(r, 5)) {
	case 0:
		off += 4096 * (1 + rnd(r, 4));
		break;
	case 1:
		off = (uint64_t)rnd(r, 1u << 20) * 4096;
		break;
	case 2:
		len += 4096 * (1 + rnd(r, 4));
		break;
	case 3:
		len = 4096;
		break;
	default:
		break;
	}
	p = mmap(NULL, len ? len : 4096, PROT_READ | PROT_WRITE,
		 pct(r, 20) ? MAP_PRIVATE : MAP_SHARED, s->fd, off);
	count(OP_MMAP, p == MAP_FAILED ? errno : 0);
	if (p == MAP_FAILED)
		return;
	pr.p = p;
	pr.len = len;
	if (guarded(probe_fn, &pr))
		ring_fault(s);
	munmap(p, len ? len : 4096);
}

/* Resize a CQ under traffic: its new ring replaces the old one here. */
static void cq_resize(struct vu_rng *r)
{
	int si = pick_side(r);
	struct side *s;
	struct fcq *cq;
	struct sroce_mmap_info mi;
	struct rv_ring ring, old;
	int err;

	if (si < 0)
		return;
	s = &W.side[si];
	cq = &s->cq[rnd(r, NCQ)];
	if (!cq->live)
		return;
	err = rv_resize_cq(s->fd, cq->handle,
			   pct(r, 80) ? 1 + rnd(r, 2048) : odd_u32(r), &mi);
	count(OP_RESIZE_CQ, err);
	check_dead(s, err);
	if (err)
		return;
	err = rv_map(s->fd, &mi, sizeof(struct sroce_cqe), &ring);
	count(OP_MMAP, err);
	if (err) {
		/* the old mapping still shows the old ring: a dead one */
		__atomic_store_n(&s->dead, 1, __ATOMIC_RELAXED);
		return;
	}
	wrlock();
	old = cq->r;
	cq->r = ring;
	cq->idx = ld(&ring.hdr->cons);
	unlock();
	rv_unmap(&old);
}

/* Try to destroy a CQ (most are in use: EBUSY); make it again if it went. */
static void cq_destroy_try(struct vu_rng *r)
{
	int si = pick_side(r);
	struct side *s;
	struct fcq *cq;
	int err;

	if (si < 0)
		return;
	s = &W.side[si];
	cq = &s->cq[rnd(r, NCQ)];
	if (!cq->live) {
		cq_create(r, s, cq);
		return;
	}
	err = rv_destroy_cq(s->fd, cq->handle);
	count(OP_DESTROY_CQ, err);
	check_dead(s, err);
	if (err)
		return;
	wrlock();
	cq->live = 0;
	rv_unmap(&cq->r);
	unlock();
	cq_create(r, s, cq);
}

/* Zap a ring's pages: whoever touches it next faults (and rebuilds). */
static void zap(struct vu_rng *r)
{
	struct fqp *q = &W.qp[rnd(r, NQP)];

	if (!q->live || !up(&W.side[q->side]))
		return;
	__atomic_store_n(&W.side[q->side].zapped, 1, __ATOMIC_RELAXED);
	count(OP_ZAP, madvise(q->sq.map, q->sq.size, MADV_DONTNEED) ?
		      errno : 0);
}

/* -- control: devices --------------------------------------------------- */

/*
 * Drop everything of side @i: the others stop picking it, its objects go
 * (under traffic), then, once nobody uses them, its mappings and files.
 */
static void side_close(int i)
{
	struct side *s = &W.side[i];
	unsigned int k;

	__atomic_store_n(&s->up, 0, __ATOMIC_RELEASE);
	for (k = 0; k < NQP; k++)
		if (W.qp[k].live && W.qp[k].side == i)
			qp_destroy(&W.qp[k]);
	if (!s->ctx)
		return;
	for (k = 0; k < NAH; k++)
		ah_destroy(s, &s->ah[k]);
	if (s->srq_live)
		rv_destroy_srq(s->fd, s->srq_handle);
	for (k = 0; k < NCQ; k++)
		if (s->cq[k].live)
			rv_destroy_cq(s->fd, s->cq[k].handle);
	wrlock();
	for (k = 0; k < NCQ; k++) {
		rv_unmap(&s->cq[k].r);
		s->cq[k].live = 0;
	}
	rv_unmap(&s->srq);
	s->srq_live = 0;
	if (s->dbfd >= 0)
		close(s->dbfd);
	s->dbfd = -1;
	__atomic_store_n(&s->dead, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->zapped, 0, __ATOMIC_RELAXED);
	unlock();
	for (k = 0; k < NMR; k++)
		mr_dereg(s, &s->mr[k]);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	s->pd = NULL;
	ibv_close_device(s->ctx);
	s->ctx = NULL;
}

/* Open side @i with its PD, MRs, CQs, SRQ and doorbell file; 0 or errno */
static int side_open(struct vu_rng *r, int i)
{
	struct side *s = &W.side[i];
	struct ibv_device **list;
	struct vu_dev d = {};
	int n, k, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list) {
		err = errno ? errno : ENODEV;
		count(OP_OPEN, err);
		return err;
	}
	for (k = 0; k < n; k++) {
		if (strcmp(ibv_get_device_name(list[k]), s->name))
			continue;
		s->ctx = ibv_open_device(list[k]);
		err = s->ctx ? 0 : errno;
		break;
	}
	ibv_free_device_list(list);
	if (!err && ibv_query_port(s->ctx, 1, &d.port))
		err = errno ? errno : EIO;
	if (!err) {
		d.ctx = s->ctx;
		vu_find_gids(&d);
		if (d.gid_index[0] < 0)
			err = EAGAIN;	/* no IPv4 RoCE v2 GID yet */
	}
	if (!err) {
		s->gid_index = d.gid_index[0];
		s->gid = d.gid[0];
		s->fd = s->ctx->cmd_fd;
		fcntl(s->ctx->async_fd, F_SETFL,
		      fcntl(s->ctx->async_fd, F_GETFL) | O_NONBLOCK);
		s->pd = ibv_alloc_pd(s->ctx);
		if (!s->pd)
			err = errno ? errno : EIO;
	}
	if (!err) {
		s->dbfd = rv_db_alloc(s->fd);
		if (s->dbfd < 0 && s->dbfd != -EOPNOTSUPP &&
		    s->dbfd != -EPROTONOSUPPORT)
			err = -s->dbfd;
		s->dbfd = s->dbfd < 0 ? -1 : s->dbfd;
	}
	for (k = 0; !err && k < NCQ; k++)
		err = cq_create(r, s, &s->cq[k]);
	count(OP_OPEN, err);
	if (err) {
		if (s->ctx)
			side_close(i);
		return err;
	}
	for (k = 0; k < NMR; k++)
		mr_reg(r, s, &s->mr[k]);
	srq_create(r, s);
	__atomic_store_n(&s->dead, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->up, 1, __ATOMIC_RELEASE);
	for (k = 0; k < W.nsides; k++)
		if (up(&W.side[k]))
			ah_create(r, s, k);
	return 0;
}

/* Rebuild sides that died; open the ones that are down, now and then. */
static void sides_tend(struct vu_rng *r)
{
	int i;

	for (i = 0; i < W.nsides; i++) {
		struct side *s = &W.side[i];

		if (__atomic_load_n(&s->dead, __ATOMIC_RELAXED) && s->ctx) {
			side_close(i);
			s->next_try = now_ms() + 100;
		}
		if (!s->ctx && now_ms() >= s->next_try &&
		    side_open(r, i))
			s->next_try = now_ms() + 250 + rnd(r, 250);
	}
}

static void control_step(struct vu_rng *r)
{
	unsigned int a = rnd(r, 1000), k;
	int si;

	sides_tend(r);
	if (a < 250) {
		pair_heal(r, rnd(r, NPAIRS), false);
	} else if (a < 330) {
		pair_create(r, rnd(r, NPAIRS));
	} else if (a < 380) {
		qp_destroy(&W.qp[rnd(r, 2 * NPAIRS)]);
	} else if (a < 480) {
		random_modify(r);
	} else if (a < 530) {
		struct fqp *q = &W.qp[rnd(r, NQP)];

		if (q->live && up(&W.side[q->side]))
			to_state(q, pct(r, 50) ? IBV_QPS_ERR : IBV_QPS_RESET);
	} else if (a < 580) {
		pair_heal(r, rnd(r, NPAIRS), true);
	} else if (a < 620) {
		rts_update(r);
	} else if (a < 680) {
		si = pick_side(r);
		if (si >= 0) {
			struct fmr *m = &W.side[si].mr[rnd(r, NMR)];

			if (m->mr)
				mr_dereg(&W.side[si], m);
			else
				mr_reg(r, &W.side[si], m);
		}
	} else if (a < 730) {
		si = pick_side(r);
		if (si >= 0) {
			struct fah *ah = &W.side[si].ah[rnd(r, NAH)];
			int t = pick_side(r);

			if (ah->live)
				ah_destroy(&W.side[si], ah);
			else if (t >= 0)
				ah_create(r, &W.side[si], t);
		}
	} else if (a < 760) {
		cq_resize(r);
	} else if (a < 780) {
		cq_destroy_try(r);
	} else if (a < 840) {
		k = rnd(r, NUD);
		ud_heal(r, &W.qp[2 * NPAIRS + k], pct(r, 20));
	} else if (a < 860) {
		mmap_probe(r);
	} else if (a < 880) {
		bad_qp(r);
	} else if (a < 900) {
		si = pick_side(r);
		if (si >= 0 && W.side[si].srq_live) {
			struct side *s = &W.side[si];
			int err = rv_modify_srq(s->fd, s->srq_handle,
						pct(r, 80) ? IBV_SRQ_LIMIT :
						odd_u32(r),
						pct(r, 80) ? rnd(r, 64) :
						odd_u32(r));

			count(OP_MODIFY_SRQ, err);
			check_dead(s, err);
		}
	} else if (a < 903) {
		zap(r);
	}
	sleep_us(rnd(r, 20000));
}

/* -- the worker --------------------------------------------------------- */

static void on_stop(int sig)
{
	(void)sig;
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
}

static int worker_main(int id, uint64_t seed)
{
	void *(*fns[3])(void *) = { poster, ringer, poller };
	struct sigaction sa = { .sa_handler = on_fault,
				.sa_flags = SA_NODEFER };
	pthread_rwlockattr_t la;
	struct thr thr[3];
	struct vu_rng r = { mix(seed, 0) };
	long t0 = now_ms();
	int i, all;

	W.id = id;
	W.st = &sh->w[id];
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	pthread_rwlockattr_init(&la);
	pthread_rwlockattr_setkind_np(&la,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&W.lock, &la);
	for (i = 0; i < W.nsides; i++) {
		W.side[i].name = dev_names[i];
		W.side[i].dbfd = -1;
	}

	/* Every device must open at the start (the chaos actor waits). */
	do {
		all = 1;
		for (i = 0; i < W.nsides; i++)
			if (!W.side[i].ctx && side_open(&r, i))
				all = 0;
		if (!all)
			sleep_us(200000);
	} while (!all && !stopping() && now_ms() - t0 < 30000);
	if (!all) {
		for (i = 0; i < W.nsides; i++)
			if (!W.side[i].ctx)
				fprintf(stderr, "# worker %d: cannot open %s\n",
					id, W.side[i].name);
		return 2;
	}
	for (i = 0; i < NPAIRS; i++)
		pair_create(&r, i);
	for (i = 0; i < NUD; i++)
		ud_heal(&r, &W.qp[2 * NPAIRS + i], true);

	for (i = 0; i < 3; i++) {
		thr[i].r.s = mix(seed, i + 1);
		pthread_create(&thr[i].tid, NULL, fns[i], &thr[i]);
	}
	while (!stopping())
		control_step(&r);
	for (i = 0; i < 3; i++)
		pthread_join(thr[i].tid, NULL);
	for (i = 0; i < W.nsides; i++)
		if (W.side[i].ctx)
			side_close(i);
	return W.st->ok[OP_ODD_FAULT] ? 3 : 0;
}

/* -- the chaos actor ---------------------------------------------------- */

/* Run a command quietly; its exit status (127: could not run it) */
static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	int status, fd;

	if (pid < 0)
		return 127;
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int chaos_main(uint64_t seed, int mean_s, long t_start)
{
	struct vu_rng r = { mix(seed, 0xc4a05) };
	char ns[16], netdev[16], dev[32];
	int n, i, rc, tries;
	long t_del, t_add;

	W.st = &sh->w[MAX_PROCS];
	while (!stopping()) {
		long until = now_ms() + mean_s * 500L + rnd(&r, mean_s * 1000);

		while (!stopping() && now_ms() < until)
			sleep_us(100000);
		if (stopping())
			break;
		i = rnd(&r, W.nsides);
		if (sscanf(dev_names[i], "sroce_h%d", &n) != 1)
			break;
		snprintf(ns, sizeof(ns), "h%d", n);
		snprintf(netdev, sizeof(netdev), "veth%d", n);
		snprintf(dev, sizeof(dev), "%s", dev_names[i]);
		{
			char *del[] = { "ip", "netns", "exec", ns, "rdma",
					"link", "delete", dev, NULL };

			t_del = now_ms();
			rc = run_quiet(del);
			t_del = now_ms() - t_del;
			count(OP_LINK_DEL, rc ? EIO : 0);
		}
		sleep_us(rnd(&r, 1500000));
		t_add = now_ms();
		for (tries = 1; tries <= 40; tries++) {
			char *add[] = { "ip", "netns", "exec", ns, "rdma",
					"link", "add", dev, "type", "sroce",
					"netdev", netdev, NULL };

			rc = run_quiet(add);
			if (!rc)
				break;
			sleep_us(250000);
		}
		count(OP_LINK_ADD, rc ? EIO : 0);
		printf("# %ld s: %s deleted (in %ld.%ld s) and added again (in "
		       "%ld.%ld s, %d tries)%s\n", (now_ms() - t_start) / 1000,
		       dev, t_del / 1000, t_del % 1000 / 100,
		       (now_ms() - t_add) / 1000, (now_ms() - t_add) % 1000 / 100,
		       tries > 40 ? 40 : tries, rc ? ": THE ADD FAILED" : "");
		if (rc)
			return 1;
	}
	return 0;
}

/* -- the parent --------------------------------------------------------- */

static void sum(struct wstats *t, int nprocs)
{
	int i, k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i <= MAX_PROCS; i++) {
		const struct wstats *w = &sh->w[i];

		if (i >= nprocs && i != MAX_PROCS)
			continue;
		for (k = 0; k < OP_N; k++) {
			t->ok[k] += __atomic_load_n(&w->ok[k], __ATOMIC_RELAXED);
			t->fail[k] += __atomic_load_n(&w->fail[k],
						      __ATOMIC_RELAXED);
		}
		for (k = 0; k <= NERRNO; k++)
			t->err[k] += __atomic_load_n(&w->err[k],
						     __ATOMIC_RELAXED);
		for (k = 0; k <= NSTATUS; k++)
			t->cqe[k] += __atomic_load_n(&w->cqe[k],
						     __ATOMIC_RELAXED);
	}
}

static void progress(long s, int nprocs)
{
	struct wstats t;
	uint64_t ops = 0, failed = 0, cqes = 0;
	int k;

	sum(&t, nprocs);
	for (k = 0; k < OP_N; k++) {
		ops += t.ok[k] + t.fail[k];
		failed += t.fail[k];
	}
	for (k = 0; k <= NSTATUS; k++)
		cqes += t.cqe[k];
	printf("# %ld s: %" PRIu64 " operations (%" PRIu64 " failed), %"
	       PRIu64 " CQEs, %" PRIu64 " device opens, %" PRIu64
	       " ring faults (%" PRIu64 " unexpected)\n", s, ops, failed, cqes,
	       t.ok[OP_OPEN], t.ok[OP_FAULT] + t.ok[OP_ODD_FAULT],
	       t.ok[OP_ODD_FAULT]);
}

/* Lines of "name ok/failed" items, a few to a line */
static void summary(int nprocs)
{
	struct wstats t;
	char line[256];
	int k, n = 0, len = 0;

	sum(&t, nprocs);
	printf("# summary (operation ok/failed):\n");
	for (k = 0; k < OP_N; k++) {
		if (!t.ok[k] && !t.fail[k])
			continue;
		len += snprintf(line + len, sizeof(line) - len,
				"%s%s %" PRIu64 "/%" PRIu64, n % 5 ? ", " : "",
				op_name[k], t.ok[k], t.fail[k]);
		if (++n % 5 == 0) {
			printf("#   %s\n", line);
			len = 0;
		}
	}
	if (n % 5)
		printf("#   %s\n", line);
	printf("# errnos:");
	for (k = 1, n = 0; k <= NERRNO; k++) {
		const char *name = k < NERRNO ? strerrorname_np(k) : NULL;

		if (!t.err[k])
			continue;
		printf("%s %s %" PRIu64, n++ ? "," : "",
		       name ? name : "other", t.err[k]);
	}
	printf("%s\n# CQE status:", n ? "" : " none");
	for (k = 0, n = 0; k <= NSTATUS; k++) {
		if (!t.cqe[k])
			continue;
		printf("%s %s %" PRIu64, n++ ? "," : "",
		       k < NSTATUS ? ibv_wc_status_str(k) : "other", t.cqe[k]);
	}
	printf("%s\n", n ? "" : " none");
}

/* The kernel stacks of a process that did not stop, for the report */
static void show_stacks(pid_t pid)
{
	char path[64], line[256];
	struct dirent *e;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid,
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			printf("#   %d/%s: %s", pid, e->d_name, line);
		fclose(f);
	}
	closedir(d);
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, &s, sizeof(s)) != sizeof(s))
		s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	return s;
}

static void usage(const char *me)
{
	fprintf(stderr, "usage: %s [-s SEED] [-t SECONDS] [-p PROCS] "
		"[-c SECONDS] [-d DEV[,DEV]] [-i SECONDS]\n", me);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	pid_t pids[MAX_PROCS + 1];
	int status[MAX_PROCS + 1];
	long secs = 60, chaos = 0, every = 30, t0, last, deadline;
	int nprocs = 3, c, i, alive, bad = 0;
	uint64_t seed = 0;
	bool seeded = false;
	char *devs = NULL;

	while ((c = getopt(argc, argv, "s:t:p:c:d:i:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 't':
			secs = strtol(optarg, NULL, 0);
			break;
		case 'p':
			nprocs = atoi(optarg);
			break;
		case 'c':
			chaos = strtol(optarg, NULL, 0);
			break;
		case 'd':
			devs = optarg;
			break;
		case 'i':
			every = strtol(optarg, NULL, 0);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || secs < 1 || nprocs < 1 || nprocs > MAX_PROCS ||
	    chaos < 0 || every < 1)
		usage(argv[0]);
	W.nsides = 2;
	if (devs) {
		dev_names[0] = strtok(devs, ",");
		dev_names[1] = strtok(NULL, ",");
		W.nsides = dev_names[1] ? 2 : 1;
		if (!dev_names[0] || strtok(NULL, ","))
			usage(argv[0]);
	}
	if (!seeded)
		seed = random_seed();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# seed 0x%016" PRIx64 "\n", seed);
	printf("# replay: %s -s 0x%016" PRIx64 " -t %ld -p %d -c %ld -d %s%s%s\n",
	       argv[0], seed, secs, nprocs, chaos, dev_names[0],
	       W.nsides > 1 ? "," : "", W.nsides > 1 ? dev_names[1] : "");
	if (chaos) {
		for (i = 0; i < W.nsides; i++)
			if (sscanf(dev_names[i], "sroce_h%d", &c) != 1) {
				printf("# -c wants devices named sroce_hN\n");
				return 2;
			}
	}

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	t0 = now_ms();
	for (i = 0; i <= nprocs; i++) {
		pids[i] = 0;
		status[i] = 0;
		if (i == nprocs && !chaos)
			break;
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
			pids[i] = 0;
			break;
		}
		if (!pids[i])
			_exit(i < nprocs ? worker_main(i, mix(seed, i + 1)) :
			      chaos_main(seed, chaos, t0));
	}

	last = t0;
	while (!stopping() && now_ms() - t0 < secs * 1000) {
		sleep_us(200000);
		if (now_ms() - last >= every * 1000) {
			last += every * 1000;
			progress((now_ms() - t0) / 1000, nprocs);
		}
		/* a child that ended early ends the run */
		for (i = 0; i <= nprocs; i++)
			if (pids[i] > 0 &&
			    waitpid(pids[i], &status[i], WNOHANG) == pids[i]) {
				printf("# %s %d ended early\n",
				       i < nprocs ? "worker" : "chaos actor", i);
				pids[i] = -pids[i];
				__atomic_store_n(&sh->stop, 1,
						 __ATOMIC_RELAXED);
			}
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	printf("# %ld s: stopping\n", (now_ms() - t0) / 1000);

	deadline = now_ms() + GRACE_S * 1000L;
	do {
		alive = 0;
		for (i = 0; i <= nprocs; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &status[i], WNOHANG) == pids[i])
				pids[i] = -pids[i];
			else
				alive++;
		}
		if (alive)
			sleep_us(200000);
	} while (alive && now_ms() < deadline);
	for (i = 0; i <= nprocs; i++) {
		if (pids[i] <= 0)
			continue;
		printf("# %s %d (pid %d) did not stop within %d s: a hang?\n",
		       i < nprocs ? "worker" : "chaos actor", i, pids[i],
		       GRACE_S);
		show_stacks(pids[i]);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status[i], 0);
		status[i] = -1;
		pids[i] = -pids[i];
		bad = 1;
	}
	for (i = 0; i <= nprocs; i++) {
		if (!pids[i] || status[i] == -1)
			continue;
		if (WIFSIGNALED(status[i])) {
			printf("# %s %d killed by signal %d (%s)\n",
			       i < nprocs ? "worker" : "chaos actor", i,
			       WTERMSIG(status[i]),
			       strsignal(WTERMSIG(status[i])));
			bad = 1;
		} else if (WEXITSTATUS(status[i])) {
			printf("# %s %d exited with %d\n",
			       i < nprocs ? "worker" : "chaos actor", i,
			       WEXITSTATUS(status[i]));
			bad = 1;
		}
	}
	summary(nprocs);
	printf("# seed 0x%016" PRIx64 ": %s after %ld s\n", seed,
	       bad ? "FAILED" : "done", (now_ms() - t0) / 1000);
	return bad;
}
