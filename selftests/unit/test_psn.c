// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * 24-bit PSN arithmetic (kernel/core/psn.h), table-driven.
 */
#include "ktap.h"
#include "psn.h"

#define M 0xffffffu		/* largest PSN */
#define H 0x800000u		/* 2^23 */

static void test_add(void)
{
	static const struct { u32 psn, n, want; } t[] = {
		{ 0, 0, 0 },
		{ 0, 1, 1 },
		{ M, 1, 0 },			/* wraps */
		{ M, 2, 1 },
		{ M - 4, 10, 5 },
		{ 0x123456, H, 0x923456 },
		{ 0x923456, H, 0x123456 },	/* half way round twice */
		{ 5, M + 1, 5 },		/* full circle */
		{ 0, 0xffffffffu, M },		/* adding (u32)-1 steps back */
		{ 7, 0xffffffffu, 6 },
		{ 0, 0x12345678u, 0x345678 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_psn_add(t[i].psn, t[i].n) == t[i].want,
		       "add(0x%x, 0x%x) = 0x%x, want 0x%x", t[i].psn, t[i].n,
		       sroce_psn_add(t[i].psn, t[i].n), t[i].want);
	CHECK_EQ(sroce_psn_next(M), 0);
	CHECK_EQ(sroce_psn_next(0x7fffff), 0x800000);
}

static void test_sub(void)
{
	static const struct { u32 a, b, want; } t[] = {
		{ 0, 0, 0 },
		{ 1, 0, 1 },
		{ 0, 1, M },
		{ 0, M, 1 },		/* M -> 0 is one step */
		{ 5, M - 4, 10 },
		{ M, 0, M },
		{ 0x100000, 0x0fffff, 1 },
		{ 0x123456, 0x923456, H },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_psn_sub(t[i].a, t[i].b) == t[i].want,
		       "sub(0x%x, 0x%x) = 0x%x, want 0x%x", t[i].a, t[i].b,
		       sroce_psn_sub(t[i].a, t[i].b), t[i].want);
}

static void test_cmp(void)
{
	static const struct { u32 a, b; s32 want; } t[] = {
		{ 0, 0, 0 },
		{ 1, 0, 1 },
		{ 0, 1, -1 },
		{ 0, M, 1 },			/* 0 comes right after M */
		{ M, 0, -1 },
		{ 3, M - 2, 6 },
		{ M - 2, 3, -6 },
		{ H - 1, 0, 0x7fffff },		/* farthest "after" */
		{ 0, H - 1, -0x7fffff },
		{ H, 0, -0x800000 },		/* exactly half: "before" */
		{ 0, H, -0x800000 },		/* ... both ways */
		{ H + 1, 0, -0x7fffff },
		{ 0x400000, 0xc00001, 0x7fffff },
		{ 0xc00000, 0x400000, -0x800000 },
		{ 0x123456, 0x123456, 0 },
		{ M, M, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_psn_cmp(t[i].a, t[i].b) == t[i].want,
		       "cmp(0x%x, 0x%x) = %d, want %d", t[i].a, t[i].b,
		       sroce_psn_cmp(t[i].a, t[i].b), t[i].want);
}

static void test_order(void)
{
	static const struct {
		u32 a, b;
		bool before, after, before_eq, after_eq;
	} t[] = {
		{ 10, 10, false, false, true, true },
		{ 10, 11, true, false, true, false },
		{ 11, 10, false, true, false, true },
		{ M, 0, true, false, true, false },
		{ 0, M, false, true, false, true },
		/* exactly half way round */
		{ 0x7ffff0, 0xfffff0, true, false, true, false },
		{ 0x000010, 0x7fffff, true, false, true, false },
		{ 0x7fffff, 0x000010, false, true, false, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		u32 a = t[i].a, b = t[i].b;

		CHECKF(sroce_psn_before(a, b) == t[i].before, "%x %x", a, b);
		CHECKF(sroce_psn_after(a, b) == t[i].after, "%x %x", a, b);
		CHECKF(sroce_psn_before_eq(a, b) == t[i].before_eq,
		       "%x %x", a, b);
		CHECKF(sroce_psn_after_eq(a, b) == t[i].after_eq,
		       "%x %x", a, b);
	}
}

static void test_window(void)
{
	static const struct { u32 psn, start, n; bool in; } t[] = {
		{ 5, 5, 1, true },
		{ 5, 5, 0, false },		/* empty window */
		{ 6, 5, 1, false },
		{ 4, 5, 10, false },
		{ 14, 5, 10, true },
		{ 15, 5, 10, false },
		{ M, M - 1, 3, true },		/* window across the wrap */
		{ 0, M - 1, 3, true },
		{ 1, M - 1, 3, false },
		{ M - 2, M - 1, 3, false },
		{ 0x123, 0x124, M + 1, true },	/* the whole circle */
		{ 0x923456, 0x123456, H, false },
		{ 0x923455, 0x123456, H, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_psn_in_window(t[i].psn, t[i].start, t[i].n) ==
		       t[i].in, "psn 0x%x start 0x%x n 0x%x", t[i].psn,
		       t[i].start, t[i].n);
}

static void test_valid(void)
{
	CHECK(sroce_psn_valid(0));
	CHECK(sroce_psn_valid(M));
	CHECK(!sroce_psn_valid(M + 1));
	CHECK(!sroce_psn_valid(0x80000000u));
}

/* cmp agrees with add: a + d compares as d for every |d| < 2^23 */
static void test_cmp_add_consistent(void)
{
	int i;

	for (i = 0; i < 20000; i++) {
		u32 a = ktap_rand() & M;
		s32 d = (s32)(ktap_rand() % (2 * H - 1)) - (s32)(H - 1);
		u32 b = sroce_psn_add(a, (u32)d);

		if (!CHECKF(sroce_psn_cmp(b, a) == d, "a 0x%x d %d", a, d) ||
		    !CHECKF(sroce_psn_cmp(a, b) == -d, "a 0x%x d %d", a, d))
			break;
	}
}

static const struct ktap_case cases[] = {
	{ "psn_add", test_add },
	{ "psn_sub", test_sub },
	{ "psn_cmp", test_cmp },
	{ "psn_before_after", test_order },
	{ "psn_in_window", test_window },
	{ "psn_valid", test_valid },
	{ "psn_cmp_matches_add", test_cmp_add_consistent },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
