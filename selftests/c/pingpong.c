// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pingpong: the latency floor of the machine itself, for `make bench`
 * (selftests/bench/guest).
 *
 *   pingpong [-s] N [US]
 *
 * Two processes take turns through one word of shared memory, N round
 * trips, as the two sides of ib_write_lat take turns through RDMA WRITEs,
 * but with no driver, no system call and no packet in between; each side
 * first spins for US microseconds (0), so that a round trip lasts about as
 * long as a driver's and is as likely to meet an interrupt. What is left
 * is the machine: two busy-polling processes on two CPUs, the cache line
 * between them, timer ticks and other interrupts, and, in an emulator,
 * the host's scheduling of its vCPU threads.
 *
 * With -s, each side also makes one system call per turn before it hands
 * the turn over (a one-byte write(2) to /dev/null), as a verbs application
 * makes one to ring a software device's doorbell: the floor of a
 * ping-pong that pays a system call per message and nothing else.
 *
 * Prints percentiles of half the round trip in microseconds, the unit of
 * perftest's ib_write_lat and ib_send_lat (which divide each round trip by
 * two; ib_read_lat and ib_atomic_lat do not), on one line:
 *
 *   pingpong <TAB> N <TAB> p50 <TAB> p99 <TAB> p99.9 <TAB> max
 *
 * Round trips are timed with the TSC (as perftest does), scaled by
 * CLOCK_MONOTONIC over 20 ms before the run. Exits 1 if anything fails.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsc_util.h"

static int null_fd = -1;

/*
 * Busy for @cycles TSC cycles: a driver's work, without the driver; then
 * the system call, with -s.
 */
static void spin(uint64_t cycles)
{
	uint64_t end = __rdtsc() + cycles;
	char c = 0;

	while (cycles && __rdtsc() < end)
		_mm_pause();
	if (null_fd >= 0 && write(null_fd, &c, 1) != 1) {
		perror("pingpong: write");
		_exit(1);
	}
}

/* The other side: answer each odd turn with the next even one. */
static void pong(uint64_t *turn, long n, uint64_t work)
{
	uint64_t t;
	long i;

	for (i = 0; i < n; i++) {
		t = 2 * (uint64_t)i + 1;
		while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != t)
			_mm_pause();
		spin(work);
		__atomic_store_n(turn, t + 1, __ATOMIC_RELEASE);
	}
}

int main(int argc, char **argv)
{
	uint64_t *turn, *cyc, work;
	double per_us, us;
	int status;
	pid_t pid;
	long n, i;

	if (argc >= 2 && !strcmp(argv[1], "-s")) {
		null_fd = open("/dev/null", O_WRONLY);
		if (null_fd < 0) {
			perror("pingpong: /dev/null");
			return 1;
		}
		argc--;
		argv++;
	}
	n = argc >= 2 ? atol(argv[1]) : 0;
	us = argc == 3 ? atof(argv[2]) : 0;
	if (n < 1000 || argc > 3 || us < 0 || us > 1000) {
		fprintf(stderr,
			"usage: pingpong [-s] N [US] (N >= 1000, US <= 1000)\n");
		return 1;
	}
	per_us = tu_tsc_per_us();
	work = (uint64_t)(us * per_us);
	cyc = calloc(n, sizeof(*cyc));
	turn = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cyc || turn == MAP_FAILED) {
		perror("pingpong: memory");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		pong(turn, n, work);
		_exit(0);
	}

	for (i = 0; i < n; i++) {
		uint64_t t = 2 * (uint64_t)i, start = __rdtsc();

		spin(work);
		__atomic_store_n(turn, t + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != t + 2)
			_mm_pause();
		cyc[i] = __rdtsc() - start;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pingpong: the other side failed\n");
		return 1;
	}

	qsort(cyc, n, sizeof(*cyc), tu_cmp_u64);
	printf("pingpong\t%ld\t%.2f\t%.2f\t%.2f\t%.2f\n", n,
	       cyc[n / 2] / per_us / 2, cyc[n * 99 / 100] / per_us / 2,
	       cyc[n * 999 / 1000] / per_us / 2, cyc[n - 1] / per_us / 2);
	return 0;
}
