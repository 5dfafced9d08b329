// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rings_obj.c: the objects of a worker, as the control thread makes
 * and mends them: devices opened with their PD, MRs, CQs, SRQ, AHs and
 * doorbell file, and dropped (under traffic) when they die; QPs created
 * with their rings mapped, pairs and UD QPs connected and healed.
 */
#define _GNU_SOURCE
#include <fcntl.h>

#include "fuzz_rings.h"

/* -- control: objects --------------------------------------------------- */

int cq_create(struct vu_rng *r, struct side *s, struct fcq *cq)
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

void mr_reg(struct vu_rng *r, struct side *s, struct fmr *m)
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

/* Deregister (the buffer unmapped too), under whatever uses it. */
void mr_dereg(struct side *s, struct fmr *m)
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
void ah_create(struct vu_rng *r, struct side *s, int t)
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

void ah_destroy(struct side *s, struct fah *a)
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
void qp_destroy(struct fqp *q)
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

int modify(struct fqp *q, struct ib_uverbs_modify_qp *m, enum op op)
{
	struct side *s = &W.side[q->side];
	int err;

	m->qp_handle = q->handle;
	err = rv_modify_qp(s->fd, m);
	count(op, err);
	check_dead(s, err);
	return err;
}

int to_state(struct fqp *q, int state)
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

void set_av(struct ib_uverbs_qp_dest *d, struct side *s,
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
int pick_side(struct vu_rng *r)
{
	int i, k = rnd(r, W.nsides);

	for (i = 0; i < W.nsides; i++)
		if (up(&W.side[(k + i) % W.nsides]))
			return (k + i) % W.nsides;
	return -1;
}

/* Pair @k made anew: two QPs (RC or UC) on two devices or on one */
void pair_create(struct vu_rng *r, int k)
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

int qp_state(struct fqp *q)
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
void pair_heal(struct vu_rng *r, int k, bool force)
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

void ud_heal(struct vu_rng *r, struct fqp *q, bool anew)
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

/* -- control: devices --------------------------------------------------- */

/*
 * Drop everything of side @i: the others stop picking it, its objects go
 * (under traffic), then, once nobody uses them, its mappings and files.
 */
void side_close(int i)
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
int side_open(struct vu_rng *r, int i)
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
void sides_tend(struct vu_rng *r)
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
