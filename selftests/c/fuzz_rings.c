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
 * This file holds main(), the parent and the worker process;
 * fuzz_rings_ring.c the poster, ringer and poller, fuzz_rings_obj.c the
 * objects the control thread makes and mends, fuzz_rings_chaos.c the
 * control thread's step and the chaos actor (fuzz_rings.h: what they
 * share).
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
#include <signal.h>
#include <sys/wait.h>

#include "fuzz_rings.h"

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

struct shared *sh;

struct worker W;

const char *dev_names[MAX_SIDES] = { "sroce_h1", "sroce_h2" };

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
