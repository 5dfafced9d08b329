// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * scale: how many objects one device holds and what they cost, for
 * `make bench` (selftests/bench/guest), on sroce or rdma_rxe alike.
 *
 *   scale DEV NQP NMR
 *
 * Creates NQP RC QPs (128 send and 128 receive WRs, one SGE: perftest's
 * shape) on one CQ and takes each to RTS, connected to itself, then
 * leaves them idle; then registers NMR memory regions, each over the same
 * 4 KiB page. After each step it prints, per object, the growth of the
 * kernel's memory (slab and vmalloc, from /proc/meminfo: the QP's rings
 * are vmalloc'ed and mapped to the process) and of all used memory
 * (MemAvailable, which counts the process's own memory too):
 *
 *   qp <TAB> NQP <TAB> seconds <TAB> kernel bytes/QP <TAB> all bytes/QP
 *   mr <TAB> NMR <TAB> seconds <TAB> kernel bytes/MR <TAB> all bytes/MR
 *
 * Exits 1 (after printing how far it got) if any object cannot be made.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_util.h"

struct mem {
	long kernel;		/* Slab + VmallocUsed + PageTables, KiB */
	long avail;		/* MemAvailable, KiB */
};

static struct mem mem_now(void)
{
	struct mem m = { 0, 0 };
	char key[64];
	long kb;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return m;
	while (fscanf(f, "%63s %ld kB ", key, &kb) == 2) {
		if (!strcmp(key, "Slab:") || !strcmp(key, "VmallocUsed:") ||
		    !strcmp(key, "PageTables:"))
			m.kernel += kb;
		else if (!strcmp(key, "MemAvailable:"))
			m.avail = kb;
	}
	fclose(f);
	return m;
}

static void report(const char *what, int n, const struct timespec *t0,
		   const struct mem *m0)
{
	struct mem m = mem_now();

	printf("%s\t%d\t%.2f\t%.0f\t%.0f\n", what, n, vu_ms_since(t0) / 1000.0,
	       n ? (m.kernel - m0->kernel) * 1024.0 / n : 0,
	       n ? (m0->avail - m.avail) * 1024.0 / n : 0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct ibv_qp_cap cap = { 128, 128, 1, 1, 0 };
	struct ibv_qp **qp = NULL;
	struct ibv_mr **mr = NULL;
	int nqp, nmr, i, j, ret = 1;
	struct ibv_cq *cq = NULL;
	struct timespec t0;
	struct vu_dev d;
	struct mem m0;
	void *page;

	if (argc != 4) {
		fprintf(stderr, "usage: scale DEV NQP NMR\n");
		return 2;
	}
	nqp = atoi(argv[2]);
	nmr = atoi(argv[3]);
	if (vu_open(&d, argv[1]))
		return 1;
	qp = calloc(nqp ? nqp : 1, sizeof(*qp));
	mr = calloc(nmr ? nmr : 1, sizeof(*mr));
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!qp || !mr || page == MAP_FAILED) {
		vu_diag("out of memory");
		goto out;
	}
	memset(page, 0, 4096);

	m0 = mem_now();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cq = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	if (!cq) {
		vu_diag("ibv_create_cq: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < nqp; i++) {
		struct ibv_qp_cap c = cap;
		struct vu_conn conn;

		qp[i] = vu_create_qp(&d, IBV_QPT_RC, cq, cq, &c);
		if (!qp[i])
			break;
		conn = vu_conn_default(&d, qp[i]->qp_num, 0);
		if (vu_connect(&d, qp[i], &conn))
			break;
	}
	report("qp", i, &t0, &m0);
	if (i < nqp) {
		vu_diag("made %d of %d QPs", i, nqp);
		nqp = i + 1;	/* qp[i] may exist, not connected */
		nmr = 0;
		goto out;
	}

	m0 = mem_now();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (j = 0; j < nmr; j++) {
		mr[j] = ibv_reg_mr(d.pd, page, 4096, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
		if (!mr[j]) {
			vu_diag("ibv_reg_mr %d: %s", j, strerror(errno));
			break;
		}
	}
	report("mr", j, &t0, &m0);
	ret = j < nmr;
	nmr = j;
out:
	for (j = 0; mr && j < nmr; j++)
		if (mr[j])
			ibv_dereg_mr(mr[j]);
	for (i = 0; qp && i < nqp; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	if (cq)
		ibv_destroy_cq(cq);
	vu_close(&d);
	free(qp);
	free(mr);
	return ret;
}
