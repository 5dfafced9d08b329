// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dbfile: the doorbell file (uapi/rdma/sroce-abi.h) rings only its own
 * context's QPs, answers EINVAL, EIO or ENOTTY for anything else, and
 * stays harmless when its QP, its context or its device goes away.
 *
 * usage: dbfile [-d DEVICE]        the cases (DEVICE: sroce0)
 *        dbfile -d DEVICE -H       hold a doorbell file and a QP; print
 *                                  "ready", then for each line read on
 *                                  stdin ring the QP's send doorbell and
 *                                  print the errno (0: it rang)
 */
#include "kselftest_harness.h"

#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/sroce-abi.h>

#include "raw_verbs.h"
#include "verbs_util.h"

static const char *dev_name = "sroce0";

/* A new doorbell file of @ctx, or -errno. */
static int db_alloc(struct ibv_context *ctx)
{
	return rv_db_alloc(ctx->cmd_fd);
}

/* ioctl() on a doorbell file: 0 or the errno */
static int ring(int fd, unsigned int cmd, unsigned long qpn)
{
	return ioctl(fd, cmd, qpn) ? errno : 0;
}

/* Doorbell files this process has open */
static int count_dbfiles(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char link[64];
	ssize_t len;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		n += !strcmp(link, "anon_inode:[sroce_doorbell]");
	}
	closedir(d);
	return n;
}

struct one {
	struct vu_dev dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static int one_open(struct one *o, enum ibv_qp_type type)
{
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	int err = vu_open(&o->dev, dev_name);

	if (err)
		return err;
	o->cq = ibv_create_cq(o->dev.ctx, 256, NULL, NULL, 0);
	if (!o->cq)
		return errno;
	o->qp = vu_create_qp(&o->dev, type, o->cq, o->cq, &cap);
	return o->qp ? 0 : errno;
}

static void one_close(struct one *o)
{
	if (o->qp)
		ibv_destroy_qp(o->qp);
	if (o->cq)
		ibv_destroy_cq(o->cq);
	vu_close(&o->dev);
	o->qp = NULL;
	o->cq = NULL;
}

/* An RC QP in RESET, and a doorbell file of its context */
FIXTURE(rc) {
	struct one o;
	int fd;
};

FIXTURE_SETUP(rc)
{
	memset(&self->o, 0, sizeof(self->o));
	ASSERT_EQ(0, one_open(&self->o, IBV_QPT_RC));
	self->fd = db_alloc(self->o.dev.ctx);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(rc)
{
	if (self->fd >= 0)
		close(self->fd);
	one_close(&self->o);
}

TEST_F(rc, own_qp_rings)
{
	uint32_t qpn = self->o.qp->qp_num;
	int fd2;

	/* In RESET there is nothing to send or flush: both succeed. */
	EXPECT_EQ(0, ring(self->fd, SROCE_DOORBELL_SQ, qpn));
	EXPECT_EQ(0, ring(self->fd, SROCE_DOORBELL_RQ, qpn));
	/* A second file of the same context works as well. */
	fd2 = db_alloc(self->o.dev.ctx);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, ring(fd2, SROCE_DOORBELL_SQ, qpn));
	close(fd2);
}

TEST(provider_uses_one)
{
	struct one o = {};
	int before = count_dbfiles();

	ASSERT_LE(0, before);
	ASSERT_EQ(0, vu_open(&o.dev, dev_name));
	/* Opened with the first QP, not with the context. */
	EXPECT_EQ(before, count_dbfiles());
	vu_close(&o.dev);
	ASSERT_EQ(0, one_open(&o, IBV_QPT_UD));
	EXPECT_EQ(before + 1, count_dbfiles());
	one_close(&o);
	EXPECT_EQ(before, count_dbfiles());

	/* SROCE_LEGACY_DOORBELL: none, and sends still go. */
	setenv("SROCE_LEGACY_DOORBELL", "1", 1);
	memset(&o, 0, sizeof(o));
	ASSERT_EQ(0, one_open(&o, IBV_QPT_UD));
	unsetenv("SROCE_LEGACY_DOORBELL");
	EXPECT_EQ(before, count_dbfiles());
	one_close(&o);
}

TEST(refuses_others)
{
	struct one a = {}, b = {};
	int fd;

	ASSERT_EQ(0, one_open(&a, IBV_QPT_RC));
	ASSERT_EQ(0, one_open(&b, IBV_QPT_RC));
	fd = db_alloc(a.dev.ctx);
	ASSERT_LE(0, fd);
	/* Another context's QP, on the same device */
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, b.qp->qp_num));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_RQ, b.qp->qp_num));
	/* The kernel's GSI QP, numbers that are no QP's, or no QPN at all */
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, 1));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, 0));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, 0xfffffe));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, 1UL << 24));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ,
			       a.qp->qp_num | (1UL << 32)));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_SQ, ULONG_MAX));
	/* Not a doorbell command */
	EXPECT_EQ(ENOTTY, ring(fd, _IO(RDMA_IOCTL_MAGIC, 0xcf),
			       a.qp->qp_num));
	EXPECT_EQ(ENOTTY, ring(fd, RDMA_VERBS_IOCTL, a.qp->qp_num));
	/* Still its own */
	EXPECT_EQ(0, ring(fd, SROCE_DOORBELL_SQ, a.qp->qp_num));
	close(fd);
	one_close(&b);
	one_close(&a);
}

TEST_F(rc, destroyed_qp)
{
	uint32_t qpn = self->o.qp->qp_num;

	ASSERT_EQ(0, ibv_destroy_qp(self->o.qp));
	self->o.qp = NULL;
	EXPECT_EQ(EINVAL, ring(self->fd, SROCE_DOORBELL_SQ, qpn));
}

TEST_F(rc, context_closed)
{
	uint32_t qpn = self->o.qp->qp_num;

	one_close(&self->o);
	/* The file outlives its context, dead. */
	EXPECT_EQ(EIO, ring(self->fd, SROCE_DOORBELL_SQ, qpn));
	EXPECT_EQ(EIO, ring(self->fd, SROCE_DOORBELL_RQ, qpn));
	EXPECT_EQ(0, close(self->fd));
	self->fd = -1;
}

/* Ring CQ_NEXT on every possible CQ number: how many answer 0, other */
static void scan_cqs(int fd, int *ok, int *other, unsigned long *last)
{
	unsigned long n;
	int r;

	*ok = *other = 0;
	for (n = 1; n <= 0x10000; n++) {
		r = ring(fd, SROCE_DOORBELL_CQ_NEXT, n);
		if (!r) {
			(*ok)++;
			*last = n;
		} else if (r != EINVAL) {
			(*other)++;
		}
	}
}

/* CQs are armed by number, only the file's context's */
TEST(cq_numbers)
{
	struct one a = {}, b = {};
	unsigned long own = 0;
	int fd, ok, other;

	ASSERT_EQ(0, one_open(&a, IBV_QPT_RC));
	ASSERT_EQ(0, one_open(&b, IBV_QPT_RC));
	fd = db_alloc(a.dev.ctx);
	ASSERT_LE(0, fd);
	/* Two CQs on the device; one is ours. */
	scan_cqs(fd, &ok, &other, &own);
	EXPECT_EQ(1, ok);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, ring(fd, SROCE_DOORBELL_CQ_SOLICITED, own));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_CQ_NEXT, 0));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_CQ_NEXT, own | (1UL << 32)));
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_CQ_NEXT, ULONG_MAX));
	/* Destroyed, it is no longer found. */
	ASSERT_EQ(0, ibv_destroy_qp(a.qp));
	a.qp = NULL;
	ASSERT_EQ(0, ibv_destroy_cq(a.cq));
	a.cq = NULL;
	EXPECT_EQ(EINVAL, ring(fd, SROCE_DOORBELL_CQ_NEXT, own));
	scan_cqs(fd, &ok, &other, &own);
	EXPECT_EQ(0, ok);
	EXPECT_EQ(0, other);
	close(fd);
	one_close(&b);
	one_close(&a);
}

/*
 * A UD QP sends to itself with its CQ armed through the provider (the
 * doorbell file, or with @legacy the REQ_NOTIFY_CQ command): the event
 * comes. 0, or the step that failed.
 */
static int cq_event(bool legacy)
{
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_comp_channel *ch = NULL;
	struct ibv_wc wc[4];
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *ecq;
	struct pollfd pfd;
	struct one o = {};
	static char buf[256];
	void *ectx;
	int ret = 1, got = 0, n;

	if (legacy)
		setenv("SROCE_LEGACY_DOORBELL", "1", 1);
	if (vu_open(&o.dev, dev_name) || o.dev.gid_index[0] < 0)
		goto out;
	ret = 2;
	ch = ibv_create_comp_channel(o.dev.ctx);
	if (!ch)
		goto out;
	o.cq = ibv_create_cq(o.dev.ctx, 16, NULL, ch, 0);
	if (!o.cq)
		goto out;
	o.qp = vu_create_qp(&o.dev, IBV_QPT_UD, o.cq, o.cq, &cap);
	ret = 3;
	if (!o.qp || vu_ud_rts(o.qp, 0x11111111))
		goto out;
	if (count_dbfiles() != !legacy)
		goto out;
	ret = 4;
	mr = ibv_reg_mr(o.dev.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto out;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = VU_PORT,
		.grh = { .dgid = o.dev.gid[0],
			 .sgid_index = o.dev.gid_index[0], .hop_limit = 1 } };

	ah = ibv_create_ah(o.dev.pd, &aa);
	if (!ah)
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	ret = 5;
	if (ibv_post_recv(o.qp, &rwr, &rbad) || ibv_req_notify_cq(o.cq, 0))
		goto out;
	sge.length = 64;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = o.qp->qp_num;
	swr.wr.ud.remote_qkey = 0x11111111;
	if (ibv_post_send(o.qp, &swr, &sbad))
		goto out;
	ret = 6;
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1 || ibv_get_cq_event(ch, &ecq, &ectx) ||
	    ecq != o.cq)
		goto out;
	ibv_ack_cq_events(o.cq, 1);
	ret = 7;
	for (n = 0; n < 100 && got < 2; n++) {
		int r = ibv_poll_cq(o.cq, 4, wc + got);

		if (r < 0)
			goto out;
		got += r;
		usleep(10000);
	}
	if (got == 2 && !wc[0].status && !wc[1].status)
		ret = 0;
out:
	unsetenv("SROCE_LEGACY_DOORBELL");
	if (ah)
		ibv_destroy_ah(ah);
	if (mr)
		ibv_dereg_mr(mr);
	one_close(&o);
	if (ch)
		ibv_destroy_comp_channel(ch);
	return ret;
}

TEST(cq_event_doorbell_file)
{
	EXPECT_EQ(0, cq_event(false));
}

TEST(cq_event_legacy)
{
	EXPECT_EQ(0, cq_event(true));
}

struct hammer {
	int fd;
	uint32_t qpn;
	volatile int stop;
	volatile long rung;
	long gone, other;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;

	while (!h->stop) {
		switch (ring(h->fd, SROCE_DOORBELL_SQ, h->qpn)) {
		case 0:
			h->rung++;
			break;
		case EINVAL:
			h->gone++;
			break;
		default:
			h->other++;
		}
	}
	return NULL;
}

/*
 * A thread rings a sending UD QP's doorbell without pause while the QP is
 * destroyed under it: every ring succeeds or, once the QP is gone, gets
 * EINVAL.
 */
TEST(destroy_while_ringing)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad;
	struct hammer h = {};
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct one o = {};
	pthread_t t;
	char buf[64] = {};
	int i, round;
	long rung;

	ASSERT_EQ(0, one_open(&o, IBV_QPT_UD));
	ASSERT_LE(0, o.dev.gid_index[0]);	/* an IPv4 address */
	mr = ibv_reg_mr(o.dev.pd, buf, sizeof(buf), 0);
	ASSERT_NE(NULL, mr);
	h.fd = db_alloc(o.dev.ctx);
	ASSERT_LE(0, h.fd);
	for (round = 0; round < 20; round++) {
		struct ibv_ah_attr aa = { .is_global = 1, .port_num = VU_PORT,
			.grh = { .dgid = o.dev.gid[0],
				 .sgid_index = o.dev.gid_index[0],
				 .hop_limit = 1 } };
		struct ibv_qp_cap cap = { .max_send_wr = 64, .max_send_sge = 1,
					  .max_recv_wr = 1, .max_recv_sge = 1 };

		if (!o.qp)
			o.qp = vu_create_qp(&o.dev, IBV_QPT_UD, o.cq, o.cq,
					    &cap);
		ASSERT_NE(NULL, o.qp);
		ASSERT_EQ(0, vu_ud_rts(o.qp, 0x11111111));
		ah = ibv_create_ah(o.dev.pd, &aa);
		ASSERT_NE(NULL, ah);
		sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf),
					mr->lkey };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0xfffff0;	/* nobody: dropped */
		wr.wr.ud.remote_qkey = 0x11111111;
		h.qpn = o.qp->qp_num;
		h.stop = 0;
		rung = h.rung;
		ASSERT_EQ(0, pthread_create(&t, NULL, hammer_run, &h));
		for (i = 0; i < 32; i++)
			ASSERT_EQ(0, ibv_post_send(o.qp, &wr, &bad));
		/* The thread may start late: destroy once it rings (1 s). */
		for (i = 0; i < 10000 && h.rung == rung; i++)
			usleep(100);
		ASSERT_EQ(0, ibv_destroy_qp(o.qp));
		o.qp = NULL;
		usleep(1000);
		h.stop = 1;
		pthread_join(t, NULL);
		ASSERT_EQ(0, ibv_destroy_ah(ah));
		/* Drain the CQ of the completions the QP left. */
		struct ibv_wc wc[16];

		while (ibv_poll_cq(o.cq, 16, wc) > 0)
			;
	}
	TH_LOG("%ld rung, %ld refused (gone), %ld other", h.rung, h.gone,
	       h.other);
	EXPECT_EQ(0, h.other);
	EXPECT_LT(0, h.rung);
	EXPECT_LT(0, h.gone);
	close(h.fd);
	ibv_dereg_mr(mr);
	one_close(&o);
}

/* -H: hold a file for t-dbfile.sh, ringing on request */
static int hold(void)
{
	struct one o = {};
	char line[64];
	int fd;

	if (one_open(&o, IBV_QPT_RC))
		return 1;
	fd = db_alloc(o.dev.ctx);
	if (fd < 0) {
		vu_diag("doorbell file: %s", strerror(-fd));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		printf("%d\n", ring(fd, SROCE_DOORBELL_SQ, o.qp->qp_num));
		fflush(stdout);
	}
	/* The device may be gone: leave the objects to the exit. */
	return 0;
}

/* Run the cases in the order above. */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	bool h = false;
	int c;

	while ((c = getopt(argc, argv, "d:H")) != -1) {
		switch (c) {
		case 'd':
			dev_name = optarg;
			break;
		case 'H':
			h = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEVICE] [-H]\n", argv[0]);
			return 2;
		}
	}
	if (h)
		return hold();
	return test_harness_run(argc, argv);
}
