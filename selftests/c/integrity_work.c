// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * integrity_work.c: integrity's workload: the two sides, the buffers and
 * their shadows, and a round of random work requests planned and posted.
 */
#include "integrity.h"

const struct op_kind_info kinds[OP_KINDS] = {
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

void side_close(struct side *s)
{
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	vu_close(&s->dev);
}

int side_open(struct side *s, const char *name)
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
int buf_init(struct buf *b, struct vu_dev *d, struct vu_rng *rng,
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

void buf_fini(struct buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->mem);
	free(b->shadow);
}

uint8_t *shadow_of(struct buf *b, uint64_t addr)
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
void plan_round(struct pair *p, struct vu_rng *rng,
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
int post_round(struct pair *p, struct vu_rng *rng, bool stream)
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
