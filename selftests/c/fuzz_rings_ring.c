// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rings_ring.c: the threads that write the rings: the poster (send
 * WQEs valid and bent, odd producer indices, UC and RC send queues
 * refilled with large RDMA WRITEs), the ringer (doorbells, CQ arming,
 * WQEs rewritten between doorbells) and the poller (CQEs consumed, CQ
 * cons written wrong, receive queues and SRQs refilled); the keys,
 * addresses and WQEs they write; and the guard that turns a ring fault
 * into a rebuilt device.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>

#include "fuzz_rings.h"

/* -- ring faults -------------------------------------------------------- */

/*
 * Ring accesses run under guarded(): a fault (a zapped or otherwise dead
 * mapping) comes back here instead of killing the process, and the side
 * is rebuilt. The handler runs with SA_NODEFER, so nothing stays blocked
 * after the jump.
 */
static __thread sigjmp_buf *fault_jb;

void on_fault(int sig)
{
	if (fault_jb)
		siglongjmp(*fault_jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

int guarded(void (*fn)(void *), void *arg)
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
void ring_fault(struct side *s)
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
struct fqp *peer_of(struct fqp *q)
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

void *poster(void *arg)
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

void *ringer(void *arg)
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

void *poller(void *arg)
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
