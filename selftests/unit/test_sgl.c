// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The arithmetic of memory regions and SGE lists (kernel/core/sgl.h),
 * which mr.c's checks and mrio.c's copies and zero-copy attachments follow:
 * ranges at and past a region's ends and the address space's, SGE walks
 * against a byte-by-byte model of the message, page splits.
 */
#include <stdlib.h>
#include <time.h>

#include "ktap.h"
#include "sgl.h"

#define U64_MAX_ (~(u64)0)

static void test_range_in(void)
{
	static const struct {
		u64 start, size, iova, len;
		bool in;
	} t[] = {
		{ 0x1000, 0x1000, 0x1000, 0x1000, true },	/* all of it */
		{ 0x1000, 0x1000, 0x1000, 0x1001, false },	/* a byte more */
		{ 0x1000, 0x1000, 0x0fff, 1, false },		/* a byte before */
		{ 0x1000, 0x1000, 0x1fff, 1, true },		/* the last byte */
		{ 0x1000, 0x1000, 0x2000, 1, false },		/* just past */
		{ 0x1000, 0x1000, 0x2000, 0, true },		/* empty, at the end */
		{ 0x1000, 0x1000, 0x2001, 0, false },		/* empty, past it */
		{ 0x1000, 0x1000, 0x1800, U64_MAX_, false },	/* len wraps */
		{ 0x1000, 0x1000, U64_MAX_, 2, false },
		{ 0, U64_MAX_, 0, U64_MAX_, true },		/* the DMA MR */
		{ 0, U64_MAX_, U64_MAX_, 0, true },
		{ 0, U64_MAX_, U64_MAX_, 1, false },
		{ 0, U64_MAX_, 1, U64_MAX_, false },
		{ U64_MAX_ - 0xfff, 0x1000, U64_MAX_ - 0xfff, 0x1000, true },
		{ U64_MAX_ - 0xfff, 0x1000, U64_MAX_, 1, true },
		{ U64_MAX_ - 0xfff, 0x1000, U64_MAX_, 2, false },
		{ 0x1000, 0, 0x1000, 0, true },			/* empty region */
		{ 0x1000, 0, 0x1000, 1, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_range_in(t[i].start, t[i].size, t[i].iova,
				      t[i].len) == t[i].in, "case %zu", i);
}

static void test_sge_piece(void)
{
	u64 skip, at = 0;
	u32 n;

	/* skipped whole, with what is left to skip */
	skip = 100;
	CHECK(sroce_sge_piece(0x1000, 64, &skip, 10, &at, &n));
	CHECK_EQ(n, 0u);
	CHECK_EQ(skip, 36u);
	/* starts inside, takes what is wanted */
	skip = 10;
	CHECK(sroce_sge_piece(0x1000, 64, &skip, 20, &at, &n));
	CHECK_EQ(n, 20u);
	CHECK_EQ(at, 0x100aull);
	CHECK_EQ(skip, 0u);
	/* or the rest of the SGE */
	skip = 10;
	CHECK(sroce_sge_piece(0x1000, 64, &skip, 100, &at, &n));
	CHECK_EQ(n, 54u);
	/* an empty SGE gives nothing and skips nothing */
	skip = 0;
	CHECK(sroce_sge_piece(0x1000, 0, &skip, 100, &at, &n));
	CHECK_EQ(n, 0u);
	/* the last byte of the address space is fine, one more is not */
	skip = 0;
	CHECK(sroce_sge_piece(U64_MAX_ - 9, 10, &skip, 10, &at, &n));
	CHECK_EQ(n, 10u);
	skip = 0;
	CHECK(!sroce_sge_piece(U64_MAX_ - 9, 11, &skip, 11, &at, &n));
	/* a start that wraps */
	skip = 20;
	CHECK(!sroce_sge_piece(U64_MAX_ - 9, 40, &skip, 1, &at, &n));
	/* the largest SGE, all of it */
	skip = 0;
	CHECK(sroce_sge_piece(0x1000, 0xffffffffu, &skip, 0xffffffffu, &at,
			      &n));
	CHECK_EQ(n, 0xffffffffu);
}

/* A small generator (splitmix64), seeded per run, printed on failure. */
static u64 rng;

static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define MAXSGE	8

/*
 * A walk over [off, off + len) of a random SGE list, against a model that
 * lists the message's bytes one by one: the same addresses in the same
 * order, "short" when the list ends first, "broken" when a byte it takes
 * lies past the end of the address space.
 */
static bool walk_matches_model(void)
{
	u64 addr[MAXSGE], *bytes, skip, at = 0, want_at;
	u32 length[MAXSGE], num = rnd() % (MAXSGE + 1), i, n, want, got = 0;
	u64 total = 0, off, len, b;
	bool model_short, model_broken = false, ok = true, broken = false;

	for (i = 0; i < num; i++) {
		length[i] = rnd() % 40;
		/* now and then an SGE at the very top of the space */
		addr[i] = rnd() % 4 ? rnd() % 4096 : U64_MAX_ - rnd() % 64;
		total += length[i];
	}
	off = rnd() % (total + 8);
	len = rnd() % (total + 8);
	bytes = calloc(total + 1, sizeof(*bytes));
	if (!bytes)
		return false;
	/* The model: every byte's address; and which of them wrap. */
	for (i = 0, b = 0; i < num; i++) {
		u32 j;

		for (j = 0; j < length[i]; j++, b++) {
			bytes[b] = addr[i] + j;
			if (b >= off && b < off + len && bytes[b] < addr[i])
				model_broken = true;
		}
	}
	model_short = len && off + len > total;

	skip = off;
	want = (u32)len;
	for (i = 0; i < num && want; i++) {
		if (!sroce_sge_piece(addr[i], length[i], &skip, want, &at, &n)) {
			broken = true;
			break;
		}
		for (want_at = at; n && ok; n--, want_at++, got++, want--)
			ok = off + got < total && bytes[off + got] == want_at;
	}
	free(bytes);
	if (broken)
		return model_broken;
	if (model_broken)
		return false;
	return ok && (want != 0) == model_short;
}

static void test_walk_model(void)
{
	u64 seed = rng;
	int i;

	for (i = 0; i < 200000; i++) {
		u64 before = rng;

		if (!CHECKF(walk_matches_model(),
			    "seed 0x%llx, walk %d (state 0x%llx)",
			    (unsigned long long)seed, i,
			    (unsigned long long)before))
			return;
	}
}

static void test_page_span(void)
{
	CHECK_EQ(sroce_page_span(0, 10, 4096), 10u);
	CHECK_EQ(sroce_page_span(4090, 10, 4096), 6u);
	CHECK_EQ(sroce_page_span(4096, 10, 4096), 10u);
	CHECK_EQ(sroce_page_span(4095, 1, 4096), 1u);
	CHECK_EQ(sroce_page_span(4095, 2, 4096), 1u);
	CHECK_EQ(sroce_page_span(8191, 0xffffffffu, 4096), 1u);
	CHECK_EQ(sroce_page_span(U64_MAX_, 5, 4096), 1u);
	CHECK_EQ(sroce_page_span(12288 + 100, 4096, 4096), 3996u);
}

static const struct ktap_case cases[] = {
	{ "sgl_range_in_at_the_edges", test_range_in },
	{ "sgl_sge_piece", test_sge_piece },
	{ "sgl_walk_matches_a_byte_model", test_walk_model },
	{ "sgl_page_span", test_page_span },
};

int main(void)
{
	rng = (u64)time(NULL) * 0x2545f4914f6cdd1dULL;
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
