/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tsc_util.h: timing with the TSC, as perftest does, for the bench's
 * helpers (pingpong.c, postlat.c): the TSC's rate against CLOCK_MONOTONIC,
 * and sorting samples for their percentiles.
 */
#ifndef SROCE_SELFTEST_TSC_UTIL_H
#define SROCE_SELFTEST_TSC_UTIL_H

#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

static inline uint64_t tu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* TSC cycles per microsecond, over 20 ms of CLOCK_MONOTONIC. */
static inline double tu_tsc_per_us(void)
{
	uint64_t ns0 = tu_now_ns(), c0 = __rdtsc(), ns1;

	do
		ns1 = tu_now_ns();
	while (ns1 - ns0 < 20000000u);
	return (double)(__rdtsc() - c0) * 1000.0 / (double)(ns1 - ns0);
}

/* qsort() comparison of uint64_t samples, ascending. */
static inline int tu_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* SROCE_SELFTEST_TSC_UTIL_H */
