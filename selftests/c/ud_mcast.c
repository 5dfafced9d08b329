// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ud_mcast: UD multicast through plain libibverbs (pyverbs 44 cannot
 * attach to groups): QPs attached to an IPv4 and an IPv6 group get every
 * datagram sent to it, byte for byte; a detached QP gets nothing more; a
 * unicast GID is refused. KTAP output.
 *
 * usage: ud_mcast DEVICE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verbs_util.h"

#define QKEY	0x11111111
#define SIZE	512
#define GRH	40
#define N	3

static int ncase, nfail;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static unsigned char *buf;
static struct ibv_qp *qp[3];	/* 0 sends; 1 and 2 receive */

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++ncase);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nfail += !ok;
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static struct ibv_qp *ud_qp(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *q = ibv_create_qp(pd, &init);

	if (q && vu_ud_rts(q, QKEY)) {
		ibv_destroy_qp(q);
		q = NULL;
	}
	return q;
}

/* The index of the port's GID for which @match() holds, or -1. */
static int gid_index(int (*match)(const union ibv_gid *))
{
	union ibv_gid g;
	int i;

	for (i = 0; i < 32; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && match(&g))
			return i;
	return -1;
}

static int is_v4(const union ibv_gid *g)
{
	static const unsigned char pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, 12);
}

static int is_v6_global(const union ibv_gid *g)
{
	return !is_v4(g) && g->raw[0] != 0xfe && g->raw[0] != 0;
}

static void post_recv(struct ibv_qp *q, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + 4096 * slot, .length = GRH + SIZE,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(q, &wr, &bad))
		diag("post_recv failed");
}

/* Completions for up to @ms milliseconds; returns how many. */
static int poll_for(struct ibv_wc *wc, int max, int ms)
{
	struct timespec t0, t;
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n += ibv_poll_cq(cq, max - n, wc + n);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (n < max && (t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return n;
}

/*
 * Send N datagrams to @group from qp[0]; the QPs in @want (bit i: qp[i])
 * must each receive every one of them, intact, and no one else anything.
 */
static int exchange(const union ibv_gid *group, int sgid, unsigned int want)
{
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *group, .sgid_index = sgid, .hop_limit = 1 },
	};
	struct ibv_wc wc[64];
	unsigned int got[3] = { 0 };
	int i, j, n, expect = 0, ok = 1;
	struct ibv_ah *ah = ibv_create_ah(pd, &ah_attr);

	if (!ah) {
		diag("create_ah: %s", strerror(errno));
		return 0;
	}
	for (i = 1; i < 3; i++)
		for (j = 0; j < N; j++)
			post_recv(qp[i], 1 + (i - 1) * N + j);
	for (j = 0; j < N; j++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = SIZE,
				       .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 100 + j, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = 0xffffff,
				   .remote_qkey = QKEY },
		}, *bad;

		for (i = 0; i < SIZE; i++)
			buf[i] = rand();
		if (ibv_post_send(qp[0], &wr, &bad)) {
			diag("post_send: %s", strerror(errno));
			ok = 0;
		}
		expect = 1 + __builtin_popcount(want);
		n = poll_for(wc, expect, 2000);
		for (i = 0; i < n; i++) {
			int r = wc[i].qp_num == qp[1]->qp_num ? 1 :
				wc[i].qp_num == qp[2]->qp_num ? 2 : 0;

			if (wc[i].status != IBV_WC_SUCCESS) {
				diag("qp %d: status %s", r,
				     ibv_wc_status_str(wc[i].status));
				ok = 0;
			}
			if (!r)
				continue;
			got[r]++;
			if (wc[i].byte_len != GRH + SIZE ||
			    wc[i].src_qp != qp[0]->qp_num ||
			    memcmp(buf + 4096 * wc[i].wr_id + GRH, buf, SIZE)) {
				diag("qp %d: datagram %d differs", r, j);
				ok = 0;
			}
		}
		n = poll_for(wc, 1, 100);	/* nothing more may come */
		if (n) {
			diag("an extra completion on qp %u", wc[0].qp_num);
			ok = 0;
		}
	}
	for (i = 1; i < 3; i++)
		if (got[i] != ((want >> i) & 1 ? N : 0)) {
			diag("qp %d got %u datagrams", i, got[i]);
			ok = 0;
		}
	ibv_destroy_ah(ah);
	return ok;
}

/* Empty the receive queues of what a test left posted. */
static void drain(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[64];
	int i;

	for (i = 1; i < 3; i++) {
		ibv_modify_qp(qp[i], &a, IBV_QP_STATE);
		ibv_destroy_qp(qp[i]);
		qp[i] = ud_qp();
	}
	while (poll_for(wc, 64, 50))
		;
}

int main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	union ibv_gid g4 = { .raw = { [10] = 0xff, [11] = 0xff,
				      239, 1, 2, 3 } };
	union ibv_gid g6 = { .raw = { 0xff, 0x0e, [13] = 5, [15] = 6 } };
	union ibv_gid uni;
	int i, s4, s6;

	srand(time(NULL));
	for (i = 0; list && list[i]; i++)
		if (argc > 1 && !strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	printf("KTAP version 1\n1..7\n");
	if (!ctx) {
		printf("# no device %s\n", argc > 1 ? argv[1] : "(none given)");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = calloc(1, 4096 * 16);
	mr = ibv_reg_mr(pd, buf, 4096 * 16, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < 3; i++)
		qp[i] = ud_qp();
	s4 = gid_index(is_v4);
	s6 = gid_index(is_v6_global);
	if (!pd || !cq || !mr || !qp[0] || !qp[1] || !qp[2] || s4 < 0) {
		printf("# set-up failed: %s\n", strerror(errno));
		return 1;
	}

	ibv_query_gid(ctx, 1, s4, &uni);
	result(ibv_attach_mcast(qp[1], &uni, 0) != 0,
	       "attaching to a unicast GID is refused");
	result(!ibv_attach_mcast(qp[1], &g4, 0) &&
	       !ibv_attach_mcast(qp[2], &g4, 0),
	       "two QPs attach to 239.1.2.3");
	result(exchange(&g4, s4, 6), "both get every datagram, intact");
	drain();
	result(!ibv_attach_mcast(qp[1], &g4, 0),
	       "a new QP attaches to the group");
	result(exchange(&g4, s4, 2),
	       "the QPs that left (destroyed) get nothing");
	result(!ibv_detach_mcast(qp[1], &g4, 0) &&
	       ibv_detach_mcast(qp[1], &g4, 0) != 0,
	       "detach; detaching twice is refused");
	drain();
	if (s6 < 0) {
		printf("ok 7 IPv6 group # SKIP no global IPv6 GID\n");
	} else {
		result(!ibv_attach_mcast(qp[2], &g6, 0) &&
		       exchange(&g6, s6, 4),
		       "IPv6 group ff0e::5:6 reaches its QP");
		ibv_detach_mcast(qp[2], &g6, 0);
	}
	for (i = 0; i < 3; i++)
		ibv_destroy_qp(qp[i]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return nfail ? 1 : 0;
}
