/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A minimal KTAP version 1 harness for the host unit tests.
 *
 * A test program announces its plan, then runs cases. Each case makes checks
 * with CHECK()/CHECKF()/CHECK_EQ(); failed checks print "# " diagnostics,
 * and ktap_case_end() prints one "ok N name" or "not ok N name" line. A case
 * that made no check at all is reported as failed.
 */
#ifndef SROCE_UNIT_KTAP_H
#define SROCE_UNIT_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Diagnostics printed per case at most, so exhaustive loops stay readable */
#define KTAP_MAX_DIAG 8

struct ktap_case {
	const char *name;
	void (*fn)(void);
};

static int ktap_planned, ktap_ran, ktap_failed;
static unsigned long ktap_checks, ktap_fails;

static inline void ktap_plan(int n)
{
	ktap_planned = n;
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline bool ktap_check(bool ok, const char *file, int line,
			      const char *what, const char *fmt, ...)
{
	va_list ap;

	ktap_checks++;
	if (ok)
		return true;
	if (++ktap_fails <= KTAP_MAX_DIAG) {
		printf("# %s:%d: check failed: %s", file, line, what);
		if (fmt) {
			printf(": ");
			va_start(ap, fmt);
			vprintf(fmt, ap);
			va_end(ap);
		}
		printf("\n");
	}
	return false;
}

#define CHECK(cond) ktap_check(!!(cond), __FILE__, __LINE__, #cond, NULL)
#define CHECKF(cond, ...) \
	ktap_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define CHECK_EQ(a, b) ({						\
	unsigned long long _a = (unsigned long long)(a);		\
	unsigned long long _b = (unsigned long long)(b);		\
	ktap_check(_a == _b, __FILE__, __LINE__, #a " == " #b,		\
		   "0x%llx != 0x%llx", _a, _b);				\
})

static inline void ktap_case_end(const char *name)
{
	bool ok = ktap_fails == 0 && ktap_checks > 0;

	if (ktap_checks == 0)
		ktap_diag("%s made no checks", name);
	if (ktap_fails > KTAP_MAX_DIAG)
		ktap_diag("... %lu failed checks in all",  ktap_fails);
	ktap_ran++;
	if (!ok)
		ktap_failed++;
	printf("%sok %d %s\n", ok ? "" : "not ", ktap_ran, name);
	fflush(stdout);
	ktap_checks = 0;
	ktap_fails = 0;
}

static inline void ktap_run_cases(const struct ktap_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		c[i].fn();
		ktap_case_end(c[i].name);
	}
}

/* Returns the exit status for main() */
static inline int ktap_finish(void)
{
	if (ktap_ran != ktap_planned) {
		ktap_diag("planned %d cases but ran %d", ktap_planned,
			  ktap_ran);
		return 1;
	}
	ktap_diag("totals: pass:%d fail:%d", ktap_ran - ktap_failed,
		  ktap_failed);
	return ktap_failed ? 1 : 0;
}

/* Deterministic pseudo-random numbers (xorshift32) */
static unsigned int ktap_rand_state = 2463534242u;

static inline unsigned int ktap_rand(void)
{
	unsigned int x = ktap_rand_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	ktap_rand_state = x;
	return x;
}

static inline void ktap_rand_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len--)
		*p++ = (unsigned char)ktap_rand();
}

#endif /* SROCE_UNIT_KTAP_H */
