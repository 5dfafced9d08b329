/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs_util.h: helpers of the C selftests that drive sroce devices from
 * one process. In the test VM the RDMA devices are visible in every
 * network namespace, so one process opens sroce_h1 and sroce_h2 (each in
 * its own namespace, joined by veth) and connects QPs between them
 * directly, without exchanging anything over TCP.
 *
 * The helpers print what went wrong on stderr ("# ..." lines, as TAP
 * diagnostics) and return 0 or an errno; the tests assert on that.
 */
#ifndef SROCE_SELFTEST_VERBS_UTIL_H
#define SROCE_SELFTEST_VERBS_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VU_PORT		1
#define VU_MAX_GIDS	64

#define vu_diag(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)

/* One opened device: its context, one PD, its port and RoCE v2 GIDs. */
struct vu_dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gid_index[2];		/* for IPv4 [0] and IPv6 [1]; -1: none */
	union ibv_gid gid[2];
};

static inline bool vu_gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

/*
 * vu_find_gids() - the RoCE v2 GIDs of the device's IPv4 address and of a
 * global (not link-local) IPv6 address.
 */
static inline void vu_find_gids(struct vu_dev *d)
{
	struct ibv_gid_entry e;
	int i, fam;

	d->gid_index[0] = d->gid_index[1] = -1;
	for (i = 0; i < VU_MAX_GIDS && i < d->port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(d->ctx, VU_PORT, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (vu_gid_is_v4(&e.gid))
			fam = 0;
		else if (e.gid.raw[0] == 0xfe && (e.gid.raw[1] & 0xc0) == 0x80)
			continue;	/* fe80::/10 */
		else
			fam = 1;
		if (d->gid_index[fam] < 0) {
			d->gid_index[fam] = i;
			d->gid[fam] = e.gid;
		}
	}
}

/* vu_open() - open device @name with a PD; 0 or an errno. */
static inline int vu_open(struct vu_dev *d, const char *name)
{
	struct ibv_device **list;
	int i, n, err = ENODEV;

	memset(d, 0, sizeof(*d));
	d->name = name;
	list = ibv_get_device_list(&n);
	if (!list) {
		vu_diag("ibv_get_device_list: %s", strerror(errno));
		return errno ? errno : ENODEV;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i < n) {
		d->ctx = ibv_open_device(list[i]);
		err = d->ctx ? 0 : errno;
	}
	ibv_free_device_list(list);
	if (err) {
		vu_diag("cannot open %s: %s", name, strerror(err));
		return err;
	}
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, VU_PORT, &d->port)) {
		vu_diag("%s: query device/port failed", name);
		return EIO;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		vu_diag("%s: ibv_alloc_pd: %s", name, strerror(errno));
		return errno;
	}
	vu_find_gids(d);
	return 0;
}

static inline void vu_close(struct vu_dev *d)
{
	if (d->pd && ibv_dealloc_pd(d->pd))
		vu_diag("%s: ibv_dealloc_pd failed", d->name);
	if (d->ctx && ibv_close_device(d->ctx))
		vu_diag("%s: ibv_close_device failed", d->name);
	d->pd = NULL;
	d->ctx = NULL;
}

/*
 * One end of a test: a device, a CQ, a registered buffer and the test's
 * own QP (vu_end_close() destroys it when set).
 */
struct vu_end {
	struct vu_dev dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
};

/*
 * vu_end_open() - open @name with a CQ of @cqe entries and @len bytes of
 * @fill registered with @access; 0 or an errno (vu_end_close() undoes a
 * partial open)
 */
static inline int vu_end_open(struct vu_end *e, const char *name, int cqe,
			      size_t len, uint8_t fill, int access)
{
	int err = vu_open(&e->dev, name);

	if (err)
		return err;
	e->cq = ibv_create_cq(e->dev.ctx, cqe, NULL, NULL, 0);
	e->buf = aligned_alloc(4096, len);
	if (!e->cq || !e->buf)
		return ENOMEM;
	memset(e->buf, fill, len);
	e->mr = ibv_reg_mr(e->dev.pd, e->buf, len, access);
	return e->mr ? 0 : errno;
}

static inline void vu_end_close(struct vu_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	free(e->buf);
	vu_close(&e->dev);
	e->qp = NULL;
	e->mr = NULL;
	e->cq = NULL;
	e->buf = NULL;
}

/* vu_create_qp() - a QP of @d; @cap is updated to what was granted */
static inline struct ibv_qp *vu_create_qp(struct vu_dev *d,
					  enum ibv_qp_type type,
					  struct ibv_cq *scq,
					  struct ibv_cq *rcq,
					  struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq, .recv_cq = rcq, .cap = *cap,
		.qp_type = type, .sq_sig_all = 0,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &init);

	if (!qp)
		vu_diag("%s: ibv_create_qp: %s", d->name, strerror(errno));
	else
		*cap = init.cap;	/* what was granted */
	return qp;
}

/* How to connect a QP to its peer (an RC or UC QP on @peer) */
struct vu_conn {
	struct vu_dev *peer;
	uint32_t dest_qpn;
	int family;			/* 0: IPv4 GIDs, 1: IPv6 */
	enum ibv_mtu mtu;
	uint32_t sq_psn, rq_psn;
	unsigned int access;		/* qp_access_flags */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
};

/* A connection's defaults: generous retries, all remote rights */
static inline struct vu_conn vu_conn_default(struct vu_dev *peer,
					     uint32_t dest_qpn, int family)
{
	struct vu_conn c = {
		.peer = peer, .dest_qpn = dest_qpn, .family = family,
		.mtu = IBV_MTU_1024, .sq_psn = 0, .rq_psn = 0,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 16,
		.max_dest_rd_atomic = 16,
	};

	return c;
}

/*
 * vu_connect() - RESET -> INIT -> RTR -> RTS for an RC or UC QP of @d
 * whose peer is described by @c; 0 or an errno.
 */
static inline int vu_connect(struct vu_dev *d, struct ibv_qp *qp,
			     const struct vu_conn *c)
{
	bool rc = qp->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0,
		.port_num = VU_PORT, .qp_access_flags = c->access,
	};
	int err, mask;

	if (d->gid_index[c->family] < 0 || c->peer->gid_index[c->family] < 0) {
		vu_diag("%s/%s: no RoCE v2 %s GID", d->name, c->peer->name,
			c->family ? "IPv6" : "IPv4");
		return ENOENT;
	}
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err) {
		vu_diag("%s: modify to INIT: %s", d->name, strerror(err));
		return err;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->rq_psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = VU_PORT;
	a.ah_attr.grh.dgid = c->peer->gid[c->family];
	a.ah_attr.grh.sgid_index = d->gid_index[c->family];
	a.ah_attr.grh.hop_limit = 64;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = c->max_dest_rd_atomic;
		a.min_rnr_timer = c->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	err = ibv_modify_qp(qp, &a, mask);
	if (err) {
		vu_diag("%s: modify to RTR: %s", d->name, strerror(err));
		return err;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = c->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	err = ibv_modify_qp(qp, &a, mask);
	if (err)
		vu_diag("%s: modify to RTS: %s", d->name, strerror(err));
	return err;
}

/* vu_ud_rts() - a UD QP through INIT and RTR to RTS; 0 or an errno */
static inline int vu_ud_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = VU_PORT,
				 .qkey = qkey };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? errno : 0;
}

static inline long vu_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * vu_poll() - up to @n completions from @cq, waiting at most @ms
 * milliseconds for them (a guard against hangs, not a timing check).
 *
 * Return: how many were taken, or -1 if polling failed.
 */
static inline int vu_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n,
			  long ms)
{
	struct timespec t0;
	int got = 0, r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			vu_diag("ibv_poll_cq: %d", r);
			return -1;
		}
		got += r;
		if (!r && vu_ms_since(&t0) > ms)
			break;
	}
	return got;
}

/* A small, seedable generator (splitmix64): failures reproduce by seed. */
struct vu_rng {
	uint64_t s;
};

static inline uint64_t vu_rand(struct vu_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 */
static inline uint32_t vu_below(struct vu_rng *r, uint32_t n)
{
	return (uint32_t)(vu_rand(r) % n);
}

static inline void vu_fill(struct vu_rng *r, void *p, size_t len)
{
	uint8_t *b = p;
	uint64_t v;

	for (; len >= 8; len -= 8, b += 8) {
		v = vu_rand(r);
		memcpy(b, &v, 8);
	}
	if (len) {
		v = vu_rand(r);
		memcpy(b, &v, len);
	}
}

/* The offset of the first byte where @a and @b differ, or -1 */
static inline long vu_first_diff(const uint8_t *a, const uint8_t *b,
				 size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; i < len && a[i] == b[i]; i++)
		;
	return (long)i;
}

/*
 * vu_devs_from_args() - for the programs whose only options are -a DEVICE
 * and -b DEVICE, the two devices' names, into @name[0] and @name[1].
 * Return: 0, or 2 after a usage line.
 */
static inline int vu_devs_from_args(int argc, char **argv, const char **name)
{
	int c;

	while ((c = getopt(argc, argv, "a:b:")) != -1) {
		if (c != 'a' && c != 'b') {
			fprintf(stderr, "usage: %s [-a DEVICE] [-b DEVICE]\n",
				argv[0]);
			return 2;
		}
		name[c - 'a'] = optarg;
	}
	return 0;
}

static inline const char *vu_wc_status(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

#endif /* SROCE_SELFTEST_VERBS_UTIL_H */
