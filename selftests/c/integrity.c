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
 * Iteration counts are fixed; the only clock is a guard against hangs.
 * The seed is printed; `integrity -s SEED` repeats a run exactly.
 *
 * usage: integrity [-s SEED] [-a DEVICE] [-b DEVICE] [-o CASE]...
 *                  [-p PAIRS] [-r ROUNDS] [-l MAX_LEN] [-t TIMEOUT]
 *                  [-c RETRY_CNT] [-u FILE] [-x]
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

#include "verbs_util.h"

#define NSGE		16		/* SGEs per WR, at most */
#define BUF_LEN		(2u << 20)	/* each side's MR, per pair */
#define GUARD		4096		/* bytes outside the MR, each end */
#define ATOM_SLOTS	16		/* u64 counters at the MR's start */
#define OPS_MAX		12		/* WRs per pair per round */
#define MAX_INLINE	256
#define CQ_DEPTH	1024
#define WAIT_MS		30000		/* no completion for this long: hung */
#define LOG_MAX		20		/* mismatches logged per test */

static uint64_t seed;
static const char *dev_name[2] = { "sroce_h1", "sroce_h2" };

/* Overrides from the command line; 0 (-1 for the QP's): the case's own */
static int opt_pairs, opt_rounds;
static uint32_t opt_max_len;
static int opt_timeout = -1, opt_retry_cnt = -1;
static bool expect_fail;	/* -x */
static const char *until;	/* -u */

enum op_kind {
	OP_SEND, OP_SEND_IMM, OP_SEND_INLINE, OP_WRITE, OP_WRITE_IMM,
	OP_WRITE_INLINE, OP_READ, OP_CMP_SWP, OP_FETCH_ADD, OP_KINDS,
	OP_UC_KINDS = OP_READ,		/* UC: SENDs and WRITEs only */
};

static const struct {
	const char *name;
	enum ibv_wr_opcode wr;
	enum ibv_wc_opcode wc;
	bool recv;		/* consumes a receive WQE */
	bool imm;
	bool inl;
} kinds[OP_KINDS] = {
	[OP_SEND] = { "SEND", IBV_WR_SEND, IBV_WC_SEND, true },
	[OP_SEND_IMM] = { "SEND_WITH_IMM", IBV_WR_SEND_WITH_IMM, IBV_WC_SEND,
			  true, true },
	[OP_SEND_INLINE] = { "inline SEND", IBV_WR_SEND, IBV_WC_SEND, true,
			     false, true },
	[OP_WRITE] = { "RDMA_WRITE", IBV_WR_RDMA_WRITE, IBV_WC_RDMA_WRITE },
	[OP_WRITE_IMM] = { "RDMA_WRITE_WITH_IMM", IBV_WR_RDMA_WRITE_WITH_IMM,
			   IBV_WC_RDMA_WRITE, true, true },
	[OP_WRITE_INLINE] = { "inline RDMA_WRITE", IBV_WR_RDMA_WRITE,
			      IBV_WC_RDMA_WRITE, false, false, true },
	[OP_READ] = { "RDMA_READ", IBV_WR_RDMA_READ, IBV_WC_RDMA_READ },
	[OP_CMP_SWP] = { "ATOMIC_CMP_AND_SWP", IBV_WR_ATOMIC_CMP_AND_SWP,
			 IBV_WC_COMP_SWAP },
	[OP_FETCH_ADD] = { "ATOMIC_FETCH_AND_ADD", IBV_WR_ATOMIC_FETCH_AND_ADD,
			   IBV_WC_FETCH_ADD },
};

/* Registered memory with guard bytes around it, and its expected content */
struct buf {
	uint8_t *mem;		/* GUARD+ bytes, the MR, GUARD- bytes */
	uint8_t *shadow;	/* what every byte of mem must hold */
	uint8_t *base;		/* the MR's first byte */
	size_t size;		/* of mem */
	struct ibv_mr *mr;
	size_t next;		/* allocation cursor in the MR, this round */
};

struct op {
	enum op_kind kind;
	uint32_t len;
	bool signaled;
	int nsge;
	struct ibv_sge sge[NSGE];	/* the requester's */
	uint64_t raddr;			/* RDMA and atomics */
	uint32_t imm;
	uint64_t cmp, arg;		/* compare; swap or add */
	int rnsge;			/* the receive WQE it consumes */
	struct ibv_sge rsge[NSGE];
};

/* A device context of the test, with a send and a receive CQ */
struct side {
	struct vu_dev dev;
	struct ibv_cq *scq, *rcq;
};

/* A requester QP and its responder, and this round's work */
struct pair {
	struct side *rq, *rs;
	struct ibv_qp *req, *resp;
	struct buf rbuf, sbuf;		/* the requester's, the responder's */
	uint64_t atom[ATOM_SLOTS];	/* model of the responder's counters */
	uint32_t mtu;			/* bytes */
	uint32_t max_inline;
	struct op op[OPS_MAX];
	int nops;
	int sig[OPS_MAX], nsig, sig_seen;	/* signaled ops, in order */
	int rcv[OPS_MAX], nrcv, rcv_seen;	/* receiving ops, in order */
	bool broken;			/* a WR failed: expect no more */
	int last_err;			/* -x: wr_id of the last error CQE */
};

static uint8_t msg[BUF_LEN];	/* one message, gathered */

static void side_close(struct side *s)
{
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	vu_close(&s->dev);
}

static int side_open(struct side *s, const char *name)
{
	int err = vu_open(&s->dev, name);

	if (err)
		return err;
	s->scq = ibv_create_cq(s->dev.ctx, CQ_DEPTH, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->dev.ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!s->scq || !s->rcq) {
		vu_diag("%s: ibv_create_cq: %s", name, strerror(errno));
		return ENOMEM;
	}
	return 0;
}

/* An MR of BUF_LEN bytes at a random 8-byte aligned offset in its page */
static int buf_init(struct buf *b, struct vu_dev *d, struct vu_rng *rng,
		    unsigned int access)
{
	b->size = BUF_LEN + 2 * GUARD;
	b->mem = aligned_alloc(4096, b->size);
	b->shadow = malloc(b->size);
	if (!b->mem || !b->shadow)
		return ENOMEM;
	b->base = b->mem + GUARD - 8 * vu_below(rng, GUARD / 8);
	vu_fill(rng, b->mem, b->size);
	memcpy(b->shadow, b->mem, b->size);
	b->mr = ibv_reg_mr(d->pd, b->base, BUF_LEN, access);
	if (!b->mr) {
		vu_diag("%s: ibv_reg_mr: %s", d->name, strerror(errno));
		return errno;
	}
	return 0;
}

static void buf_fini(struct buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->mem);
	free(b->shadow);
}

static uint8_t *shadow_of(struct buf *b, uint64_t addr)
{
	return b->shadow + (addr - (uintptr_t)b->mem);
}

/* @len bytes of the MR after a random gap, or NULL if they do not fit */
static uint8_t *buf_take(struct buf *b, struct vu_rng *rng, size_t len,
			 size_t align)
{
	size_t pos = b->next;

	if (vu_below(rng, 4))
		pos += vu_below(rng, 64);
	pos = (pos + align - 1) & ~(align - 1);
	if (pos + len > BUF_LEN)
		return NULL;
	b->next = pos + len;
	return b->base + pos;
}

/* A random length up to @max, with 0, 1 and MTU multiples +-1 often */
static uint32_t rand_len(struct vu_rng *rng, uint32_t mtu, uint32_t max)
{
	uint32_t r = vu_below(rng, 100), len;

	if (r < 5)
		len = 0;
	else if (r < 20)
		len = 1 + vu_below(rng, 64);
	else if (r < 45)
		len = (1 + vu_below(rng, 8)) * mtu + vu_below(rng, 3) - 1;
	else if (r < 80)
		len = 1 + vu_below(rng, 16384);
	else if (r < 95)
		len = 1 + vu_below(rng, 131072);
	else
		len = 1 + vu_below(rng, 1u << 20);
	return len < max ? len : max;
}

/*
 * Split @len bytes over 1..16 SGEs (none for 0 bytes) at random places of
 * @b, listed in random order; with @fill, give them fresh random content.
 */
static bool make_sges(struct buf *b, struct vu_rng *rng, uint32_t len,
		      bool fill, struct ibv_sge *sge, int *nsge)
{
	uint32_t cut[NSGE + 1], t;
	int n, i, j;

	n = len ? 1 + vu_below(rng, len < NSGE ? len : NSGE) : 0;
	/* n - 1 distinct cuts in (0, len), sorted */
	cut[0] = 0;
	for (i = 1; i < n; i++) {
again:
		t = 1 + vu_below(rng, len - 1);
		for (j = 1; j < i; j++)
			if (cut[j] == t)
				goto again;
		for (j = i; j > 1 && cut[j - 1] > t; j--)
			cut[j] = cut[j - 1];
		cut[j] = t;
	}
	cut[n] = len;
	for (i = 0; i < n; i++) {
		uint32_t piece = cut[i + 1] - cut[i];
		uint8_t *p = buf_take(b, rng, piece, 1);

		if (!p)
			return false;
		if (fill) {
			vu_fill(rng, p, piece);
			memcpy(shadow_of(b, (uintptr_t)p), p, piece);
		}
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)p,
					   .length = piece,
					   .lkey = b->mr->lkey };
	}
	/* shuffle: the gather order is the list's, not the addresses' */
	for (i = n - 1; i > 0; i--) {
		struct ibv_sge s = sge[i];

		j = vu_below(rng, i + 1);
		sge[i] = sge[j];
		sge[j] = s;
	}
	*nsge = n;
	return true;
}

/* Plan one op for @p; false when its memory no longer fits this round. */
static bool make_op(struct pair *p, struct vu_rng *rng, enum op_kind kind,
		    uint32_t max_len, struct op *op)
{
	uint32_t cap;
	uint8_t *r;
	int slot;

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->imm = (uint32_t)vu_rand(rng);
	op->signaled = vu_below(rng, 4) != 0;
	if (kinds[kind].inl)
		op->len = vu_below(rng, p->max_inline + 1);
	else if (kind < OP_CMP_SWP)
		op->len = rand_len(rng, p->mtu, max_len);
	else
		op->len = 8;

	switch (kind) {
	case OP_READ:
		r = buf_take(&p->sbuf, rng, op->len, 1);
		if (!r || !make_sges(&p->rbuf, rng, op->len, false, op->sge,
				     &op->nsge))
			return false;
		op->raddr = (uintptr_t)r;
		break;
	case OP_CMP_SWP:
	case OP_FETCH_ADD:
		r = buf_take(&p->rbuf, rng, 8, 8);
		if (!r)
			return false;
		op->nsge = 1;
		op->sge[0] = (struct ibv_sge){ .addr = (uintptr_t)r,
					       .length = 8,
					       .lkey = p->rbuf.mr->lkey };
		slot = vu_below(rng, ATOM_SLOTS);
		op->raddr = (uintptr_t)p->sbuf.base + 8 * slot;
		op->arg = vu_below(rng, 2) ? vu_rand(rng) : vu_below(rng, 9);
		if (kind == OP_FETCH_ADD) {
			p->atom[slot] += op->arg;
			break;
		}
		/* half of the compares hit */
		op->cmp = vu_below(rng, 2) ? p->atom[slot] : vu_rand(rng);
		if (op->cmp == p->atom[slot])
			p->atom[slot] = op->arg;
		break;
	default:		/* SENDs and WRITEs */
		if (!make_sges(&p->rbuf, rng, op->len, true, op->sge,
			       &op->nsge))
			return false;
		if (kind == OP_WRITE || kind == OP_WRITE_IMM ||
		    kind == OP_WRITE_INLINE) {
			r = buf_take(&p->sbuf, rng, op->len, 1);
			if (!r)
				return false;
			op->raddr = (uintptr_t)r;
		}
		break;
	}
	if (!kinds[kind].recv)
		return true;
	/*
	 * The receive WQE: room for the message and some slack, which must
	 * stay untouched; a WRITE_WITH_IMM places nothing in it.
	 */
	if (kind == OP_WRITE_IMM)
		cap = vu_below(rng, 3) ? 0 : vu_below(rng, 64);
	else
		cap = op->len + (vu_below(rng, 3) ? vu_below(rng, 100) : 0);
	return make_sges(&p->sbuf, rng, cap, false, op->rsge, &op->rnsge);
}

/*
 * UC has no retransmission, and the receiving host's backlog is finite
 * (netdev_max_backlog, 1000 packets): a round of UC sends at most this
 * many packets per pair, so that the network itself loses nothing.
 */
#define UC_ROUND_PKTS	192

/*
 * Plan @p's round: 4..OPS_MAX random ops, the last one signaled; with
 * @bulk, one RDMA WRITE of @max_len bytes; with @stream, OPS_MAX ops and
 * only the last signaled.
 */
static void plan_round(struct pair *p, struct vu_rng *rng,
		       enum ibv_qp_type type, uint32_t max_len, bool bulk,
		       bool stream)
{
	int want = stream ? OPS_MAX : 4 + vu_below(rng, OPS_MAX - 3);
	int kinds_n, i;
	uint32_t pkts = 0;
	uint64_t atom[ATOM_SLOTS];

	kinds_n = type == IBV_QPT_RC ? OP_KINDS : OP_UC_KINDS;
	p->rbuf.next = 0;
	p->sbuf.next = 8 * ATOM_SLOTS;
	p->nops = p->nsig = p->nrcv = p->sig_seen = p->rcv_seen = 0;
	p->broken = false;
	if (bulk) {
		make_op(p, rng, OP_WRITE, max_len, &p->op[0]);
		p->op[0].len = max_len;
		p->rbuf.next = 0;
		make_sges(&p->rbuf, rng, max_len, true, p->op[0].sge,
			  &p->op[0].nsge);
		p->sbuf.next = 8 * ATOM_SLOTS;
		p->op[0].raddr = (uintptr_t)buf_take(&p->sbuf, rng, max_len, 1);
		want = 0;
		p->nops = 1;
	}
	for (i = 0; i < want; i++) {
		memcpy(atom, p->atom, sizeof(atom));
		if (!make_op(p, rng, vu_below(rng, kinds_n), max_len,
			     &p->op[i])) {
			memcpy(p->atom, atom, sizeof(atom));	/* undo */
			break;
		}
		if (stream)
			p->op[i].signaled = false;
		pkts += p->op[i].len ? (p->op[i].len + p->mtu - 1) / p->mtu : 1;
		if (type == IBV_QPT_UC && i && pkts > UC_ROUND_PKTS)
			break;
		p->nops++;
	}
	p->op[p->nops - 1].signaled = true;
	for (i = 0; i < p->nops; i++) {
		if (p->op[i].signaled)
			p->sig[p->nsig++] = i;
		if (kinds[p->op[i].kind].recv)
			p->rcv[p->nrcv++] = i;
	}
}

/*
 * Post @p's receives, then its sends in one to three chains; with @stream,
 * each send alone.
 */
static int post_round(struct pair *p, struct vu_rng *rng, bool stream)
{
	struct ibv_recv_wr rwr[OPS_MAX], *rbad;
	struct ibv_send_wr wr[OPS_MAX], *bad;
	int i, err, start, cut1, cut2;

	for (i = 0; i < p->nrcv; i++) {
		struct op *op = &p->op[p->rcv[i]];

		rwr[i] = (struct ibv_recv_wr){
			.wr_id = i, .sg_list = op->rsge, .num_sge = op->rnsge,
			.next = i + 1 < p->nrcv ? &rwr[i + 1] : NULL,
		};
	}
	if (p->nrcv) {
		err = ibv_post_recv(p->resp, rwr, &rbad);
		if (err) {
			vu_diag("ibv_post_recv: %s", strerror(err));
			return err;
		}
	}

	for (i = 0; i < p->nops; i++) {
		struct op *op = &p->op[i];

		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].opcode = kinds[op->kind].wr;
		wr[i].sg_list = op->sge;
		wr[i].num_sge = op->nsge;
		wr[i].send_flags = (op->signaled ? IBV_SEND_SIGNALED : 0) |
				   (kinds[op->kind].inl ? IBV_SEND_INLINE : 0);
		wr[i].imm_data = htonl(op->imm);
		if (op->kind >= OP_CMP_SWP) {
			wr[i].wr.atomic.remote_addr = op->raddr;
			wr[i].wr.atomic.rkey = p->sbuf.mr->rkey;
			wr[i].wr.atomic.compare_add =
				op->kind == OP_CMP_SWP ? op->cmp : op->arg;
			wr[i].wr.atomic.swap = op->arg;
		} else {
			wr[i].wr.rdma.remote_addr = op->raddr;
			wr[i].wr.rdma.rkey = p->sbuf.mr->rkey;
		}
	}
	/* chains [0, cut1), [cut1, cut2), [cut2, nops) */
	cut1 = vu_below(rng, p->nops + 1);
	cut2 = cut1 + vu_below(rng, p->nops - cut1 + 1);
	for (start = 0; start < p->nops; ) {
		int end = start < cut1 ? cut1 : start < cut2 ? cut2 : p->nops;

		if (stream)
			end = start + 1;	/* a doorbell per WR */

		for (i = start; i < end; i++)
			wr[i].next = i + 1 < end ? &wr[i + 1] : NULL;
		err = ibv_post_send(p->req, &wr[start], &bad);
		if (err) {
			vu_diag("ibv_post_send: %s at WR %ld", strerror(err),
				(long)(bad - wr));
			return err;
		}
		start = end;
	}
	return 0;
}

static struct pair *pair_of(struct pair *pairs, int n, uint32_t qpn,
			    bool send)
{
	int i;

	for (i = 0; i < n; i++)
		if ((send ? pairs[i].req : pairs[i].resp)->qp_num == qpn)
			return &pairs[i];
	return NULL;
}

/*
 * -x: a send completion of a pair that ran out of retries: first its
 * oldest outstanding WR with IBV_WC_RETRY_EXC_ERR (after the signaled ones
 * before it succeeded), then every later WR of the round, signaled or
 * not, flushed, in order. 0 if @wc is what comes next.
 */
static int check_failed_wc(struct pair *p, int pi, const struct ibv_wc *wc,
			   int *logged)
{
	enum ibv_wc_status want = p->broken ? IBV_WC_WR_FLUSH_ERR :
					      IBV_WC_RETRY_EXC_ERR;
	int lo = p->broken ? p->last_err + 1 : 0;
	bool ok = wc->status == want && wc->qp_num == p->req->qp_num &&
		  (int64_t)wc->wr_id >= lo && wc->wr_id < (uint64_t)p->nops &&
		  (!p->broken || wc->wr_id == (uint64_t)lo);

	/* the failed WR comes after every signaled one already completed */
	if (!p->broken && p->sig_seen &&
	    wc->wr_id <= (uint64_t)p->sig[p->sig_seen - 1])
		ok = false;
	if (!ok && (*logged)++ < LOG_MAX)
		vu_diag("pair %d: send completion wr_id %llu status %s qp_num %u; expected %s, wr_id %s%d of %d",
			pi, (unsigned long long)wc->wr_id,
			vu_wc_status(wc->status), wc->qp_num,
			vu_wc_status(want), p->broken ? "" : ">= ", lo,
			p->nops);
	p->broken = true;
	p->last_err = wc->wr_id;
	return !ok;
}

/* the send side of a pair is finished with the round */
static bool send_done(const struct pair *p)
{
	if (expect_fail && p->broken)
		return p->last_err >= p->nops - 1;
	return p->sig_seen == p->nsig;
}

/* Check a completion against what @p expects next; 0 if it matches. */
static int check_wc(struct pair *p, int pi, const struct ibv_wc *wc,
		    bool send, int *logged)
{
	const struct op *op;
	uint32_t len, flags = 0;
	int opc, idx;
	bool ok;

	if (send && expect_fail && (p->broken || wc->status != IBV_WC_SUCCESS))
		return check_failed_wc(p, pi, wc, logged);
	if (send ? p->sig_seen >= p->nsig : p->rcv_seen >= p->nrcv) {
		if ((*logged)++ < LOG_MAX)
			vu_diag("pair %d: unexpected %s completion: wr_id %llu status %s",
				pi, send ? "send" : "receive",
				(unsigned long long)wc->wr_id,
				vu_wc_status(wc->status));
		return 1;
	}
	if (wc->status != IBV_WC_SUCCESS)
		p->broken = true;	/* the rest is flushed, or never comes */
	if (send) {
		idx = p->sig[p->sig_seen++];
		op = &p->op[idx];
		opc = kinds[op->kind].wc;
		len = op->kind == OP_READ ? op->len : 8;
		ok = wc->qp_num == p->req->qp_num &&
		     (op->kind < OP_READ || wc->byte_len == len);
	} else {
		idx = p->rcv_seen++;
		op = &p->op[p->rcv[idx]];
		opc = op->kind == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
						 IBV_WC_RECV;
		len = op->len;
		flags = kinds[op->kind].imm ? IBV_WC_WITH_IMM : 0;
		ok = wc->qp_num == p->resp->qp_num &&
		     wc->src_qp == p->req->qp_num && wc->byte_len == len &&
		     (!flags || wc->imm_data == htonl(op->imm));
	}
	ok = ok && wc->status == IBV_WC_SUCCESS && wc->wr_id == (uint64_t)idx &&
	     (int)wc->opcode == opc && wc->wc_flags == flags;
	if (ok)
		return 0;
	if ((*logged)++ < LOG_MAX)
		vu_diag("pair %d: %s completion of %s (%u bytes): status %s wr_id %llu opcode %d byte_len %u wc_flags %#x imm %#x qp_num %u src_qp %u; expected status success wr_id %d opcode %d byte_len %u wc_flags %#x imm %#x qp_num %u src_qp %u",
			pi, send ? "send" : "receive", kinds[op->kind].name,
			op->len, vu_wc_status(wc->status),
			(unsigned long long)wc->wr_id, wc->opcode,
			wc->byte_len, wc->wc_flags, ntohl(wc->imm_data),
			wc->qp_num, wc->src_qp, idx, opc, len, flags, op->imm,
			send ? p->req->qp_num : p->resp->qp_num,
			p->req->qp_num);
	return 1;
}

/*
 * Wait until every pair has all its completions, checking each one.
 * Return: the number of mismatches, plus one per missing completion.
 */
static int reap(struct side *sides, struct pair *pairs, int npairs,
		int *logged)
{
	struct timespec last;
	struct ibv_wc wc[64];
	int bad = 0, done, i, k, n, c;

	clock_gettime(CLOCK_MONOTONIC, &last);
	for (;;) {
		for (done = 0, i = 0; i < npairs; i++)
			done += expect_fail && pairs[i].broken ?
				send_done(&pairs[i]) :
				pairs[i].broken ||
				(pairs[i].sig_seen == pairs[i].nsig &&
				 pairs[i].rcv_seen == pairs[i].nrcv);
		if (done == npairs)
			return bad;
		for (k = 0; k < 4; k++) {
			struct side *s = &sides[k / 2];
			bool send = !(k & 1);

			n = ibv_poll_cq(send ? s->scq : s->rcq, 64, wc);
			if (n < 0)
				return bad + 1;
			if (n)
				clock_gettime(CLOCK_MONOTONIC, &last);
			for (c = 0; c < n; c++) {
				struct pair *p = pair_of(pairs, npairs,
							 wc[c].qp_num, send);

				if (!p) {
					if ((*logged)++ < LOG_MAX)
						vu_diag("completion for unknown QP %u",
							wc[c].qp_num);
					bad++;
					continue;
				}
				bad += check_wc(p, p - pairs, &wc[c], send,
						logged);
			}
		}
		if (vu_ms_since(&last) > WAIT_MS)
			break;
	}
	for (i = 0; i < npairs; i++) {
		struct pair *p = &pairs[i];

		if (expect_fail && p->broken) {
			if (send_done(p))
				continue;
			vu_diag("pair %d: failed, but WRs %d to %d were not flushed in %d s",
				i, p->last_err + 1, p->nops - 1,
				WAIT_MS / 1000);
			bad += p->nops - 1 - p->last_err;
			continue;
		}
		if (p->broken ||
		    (p->sig_seen == p->nsig && p->rcv_seen == p->nrcv))
			continue;
		vu_diag("pair %d: no completion for %d s: %d of %d send and %d of %d receive completions",
			i, WAIT_MS / 1000, p->sig_seen, p->nsig, p->rcv_seen,
			p->nrcv);
		for (k = 0; k < p->nops; k++)
			vu_diag("  op %d: %s, %u bytes, %d SGEs%s", k,
				kinds[p->op[k].kind].name, p->op[k].len,
				p->op[k].nsge,
				p->op[k].signaled ? ", signaled" : "");
		bad += p->nsig - p->sig_seen + p->nrcv - p->rcv_seen;
	}
	return bad;
}

/* Gather @nsge SGEs' bytes from @b's shadow into msg[]. */
static void gather(struct buf *b, const struct ibv_sge *sge, int nsge)
{
	uint32_t off = 0;
	int i;

	for (i = 0; i < nsge; i++) {
		memcpy(msg + off, shadow_of(b, sge[i].addr), sge[i].length);
		off += sge[i].length;
	}
}

/* Scatter the first @len bytes of msg[] over SGEs in @b's shadow. */
static void scatter(struct buf *b, const struct ibv_sge *sge, int nsge,
		    uint32_t len)
{
	uint32_t off = 0, n;
	int i;

	for (i = 0; i < nsge && off < len; i++) {
		n = len - off < sge[i].length ? len - off : sge[i].length;
		memcpy(shadow_of(b, sge[i].addr), msg + off, n);
		off += n;
	}
}

/* Apply the effect every op of the round must have had to the shadows. */
static void expect_round(struct pair *p)
{
	uint64_t cur, next;
	int i;

	for (i = 0; i < p->nops; i++) {
		struct op *op = &p->op[i];

		switch (op->kind) {
		case OP_SEND:
		case OP_SEND_IMM:
		case OP_SEND_INLINE:
			gather(&p->rbuf, op->sge, op->nsge);
			scatter(&p->sbuf, op->rsge, op->rnsge, op->len);
			break;
		case OP_WRITE:
		case OP_WRITE_IMM:
		case OP_WRITE_INLINE:
			gather(&p->rbuf, op->sge, op->nsge);
			memcpy(shadow_of(&p->sbuf, op->raddr), msg, op->len);
			break;
		case OP_READ:
			memcpy(msg, shadow_of(&p->sbuf, op->raddr), op->len);
			scatter(&p->rbuf, op->sge, op->nsge, op->len);
			break;
		default:
			memcpy(&cur, shadow_of(&p->sbuf, op->raddr), 8);
			if (op->kind == OP_FETCH_ADD)
				next = cur + op->arg;
			else
				next = cur == op->cmp ? op->arg : cur;
			memcpy(shadow_of(&p->sbuf, op->raddr), &next, 8);
			memcpy(shadow_of(&p->rbuf, op->sge[0].addr), &cur, 8);
			break;
		}
	}
}

/* Which of the round's ops touch @addr of @b? For the diagnostics. */
static void blame(struct pair *p, struct buf *b, uint64_t addr)
{
	int i, j;

	for (i = 0; i < p->nops; i++) {
		struct op *op = &p->op[i];
		bool hit = b == &p->sbuf && op->raddr <= addr &&
			   addr < op->raddr + (op->kind >= OP_CMP_SWP ? 8 :
					       op->len);

		for (j = 0; j < op->nsge && b == &p->rbuf; j++)
			hit |= op->sge[j].addr <= addr &&
			       addr < op->sge[j].addr + op->sge[j].length;
		for (j = 0; j < op->rnsge && b == &p->sbuf; j++)
			hit |= op->rsge[j].addr <= addr &&
			       addr < op->rsge[j].addr + op->rsge[j].length;
		if (hit)
			vu_diag("  within op %d: %s, %u bytes, %d/%d SGEs", i,
				kinds[op->kind].name, op->len, op->nsge,
				op->rnsge);
	}
}

/* Compare every byte of @b, guards included, with its shadow. */
static int check_buf(struct pair *p, int pi, struct buf *b, const char *who,
		     int *logged)
{
	long off = vu_first_diff(b->mem, b->shadow, b->size);
	long mr = b->base - b->mem;
	size_t i, n = 0;

	if (off < 0)
		return 0;
	for (i = off; i < b->size; i++)
		n += b->mem[i] != b->shadow[i];
	if ((*logged)++ < LOG_MAX) {
		vu_diag("pair %d: %s memory: %zu bytes differ, the first at MR offset %ld (%s): %#04x, expected %#04x",
			pi, who, n, off - mr,
			off < mr || off >= mr + BUF_LEN ? "OUTSIDE the MR" :
			"in the MR", b->mem[off], b->shadow[off]);
		blame(p, b, (uintptr_t)b->mem + off);
	}
	/* start the next round from what is there, to report once */
	memcpy(b->shadow, b->mem, b->size);
	return 1;
}

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
	while (seen < nfailed && vu_ms_since(&t0) < WAIT_MS) {
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
			nfailed - seen, nfailed, WAIT_MS / 1000);
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
	n = vu_poll(self->side[0].scq, wc, total, WAIT_MS);
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
	while ((c = getopt(argc, argv, "s:a:b:o:p:r:l:t:c:u:x")) != -1) {
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
				"usage: %s [-s SEED] [-a DEVICE] [-b DEVICE] [-o CASE]... [-p PAIRS] [-r ROUNDS] [-l MAX_LEN] [-t TIMEOUT] [-c RETRY_CNT] [-u FILE] [-x]\n",
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
