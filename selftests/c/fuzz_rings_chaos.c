// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_rings_chaos.c: the trouble. The control thread's step picks what
 * to do next: heal or remake pairs, or disturb objects under traffic:
 * modify_qp with random bytes or through the transitions the verbs allow
 * with values around and past the limits, RESET and ERR, destroy_qp,
 * dereg_mr, CQs resized and destroyed, QPs with impossible capabilities,
 * mmap at odd offsets, rings zapped. The chaos actor, a process of its
 * own, deletes devices with rdma link delete and adds them again.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/wait.h>

#include "fuzz_rings.h"

/* -- control: objects under traffic ------------------------------------- */

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

/* -- control: the step -------------------------------------------------- */

void control_step(struct vu_rng *r)
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

int chaos_main(uint64_t seed, int mean_s, long t_start)
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
