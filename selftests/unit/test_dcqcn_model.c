// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN arithmetic (kernel/core/dcqcn.c) against a model: a seeded run of
 * random CNP/sent/advance events, checked for invariants and against a
 * deliberately naive model that plays every event one at a time.
 * test_dcqcn.c has the hand-worked trajectories.
 */
#include <string.h>

#include "ktap.h"
#include "dcqcn.h"

#define US	1000ull
#define MS	1000000ull

/* The naive model: every event played one at a time, no shortcuts. */
struct ref {
	u64 rc, rt, line, alpha, tc, bc, bytes;
	bool limited, flag, pending;
	u64 ta, ti, tcut, cuts, incs;
};

static void ref_init(struct ref *r, const struct sroce_dcqcn_params *p,
		     u32 line, u64 now)
{
	memset(r, 0, sizeof(*r));
	r->line = line;
	if (p->rpg_max_rate && p->rpg_max_rate * 1000ull < line)
		r->line = p->rpg_max_rate * 1000ull;
	r->rc = r->line;
	r->rt = r->line;
	r->ta = now + p->dce_tcp_rtt * US;
	r->ti = now + p->rpg_time_reset * US;
	r->tcut = now;
}

static void ref_cut(struct ref *r, const struct sroce_dcqcn_params *p,
		    u64 t)
{
	bool first = !r->limited;
	u64 a, b, floor = p->rpg_min_rate * 1000ull;

	if (floor > r->line)
		floor = r->line;
	if (first) {
		r->alpha = p->initial_alpha_value;
		if (p->rate_to_set_on_first_cnp) {
			r->rc = p->rate_to_set_on_first_cnp * 1000ull;
			if (r->rc > r->line)
				r->rc = r->line;
		}
	}
	if (first || p->clamp_tgt_rate ||
	    (p->clamp_tgt_rate_after_time_inc && r->tc > 0))
		r->rt = r->rc;
	a = (r->rc * r->alpha) >> p->rpg_gd;
	b = r->rc * (100 - p->rpg_min_dec_fac) / 100;
	r->rc -= a < b ? a : b;
	if (r->rc < floor)
		r->rc = floor;
	if (r->rt < r->rc)
		r->rt = r->rc;
	r->limited = true;
	r->tc = 0;
	r->bc = 0;
	r->bytes = 0;
	r->ti = t + p->rpg_time_reset * US;
	r->tcut = t + p->rate_reduce_monitor_period * US;
	r->cuts++;
}

static void ref_inc(struct ref *r, const struct sroce_dcqcn_params *p,
		    bool timer)
{
	u64 lo = r->tc < r->bc ? r->tc : r->bc;
	u64 hi = r->tc < r->bc ? r->bc : r->tc;

	if (lo > p->rpg_threshold)
		r->rt += p->rpg_hai_rate * 1000ull;
	else if (hi >= p->rpg_threshold)
		r->rt += p->rpg_ai_rate * 1000ull;
	if (r->rt > r->line)
		r->rt = r->line;
	r->rc = (r->rt + r->rc + 1) / 2;
	if (timer)
		r->tc++;
	else
		r->bc++;
	r->incs++;
	if (r->rc >= r->line)
		r->limited = false;
}

static void ref_advance(struct ref *r, const struct sroce_dcqcn_params *p,
			u64 now)
{
	for (;;) {
		bool a = r->ta <= now;
		bool c = r->pending && r->tcut <= now;
		bool i = r->limited && r->ti <= now;

		if (a && (!c || r->ta <= r->tcut) && (!i || r->ta <= r->ti)) {
			r->alpha = r->alpha * p->dce_tcp_g / 1024;
			if (r->flag)
				r->alpha += 1024 - p->dce_tcp_g;
			if (r->alpha > 1024)
				r->alpha = 1024;
			r->flag = false;
			r->ta += p->dce_tcp_rtt * US;
		} else if (c && (!i || r->tcut <= r->ti)) {
			r->pending = false;
			ref_cut(r, p, r->tcut);
		} else if (i) {
			ref_inc(r, p, true);
			r->ti += p->rpg_time_reset * US;
		} else {
			break;
		}
	}
}

static void ref_cnp(struct ref *r, const struct sroce_dcqcn_params *p,
		    u64 now)
{
	ref_advance(r, p, now);
	r->flag = true;
	if (now < r->tcut)
		r->pending = true;
	else
		ref_cut(r, p, now);
}

static void ref_sent(struct ref *r, const struct sroce_dcqcn_params *p,
		     u32 bytes, u64 now)
{
	ref_advance(r, p, now);
	if (!r->limited)
		return;
	r->bytes += bytes;
	while (r->bytes >= p->rpg_byte_reset) {
		r->bytes -= p->rpg_byte_reset;
		if (r->limited)
			ref_inc(r, p, false);
	}
}

static u32 rnd(u32 lo, u32 hi)
{
	return lo + ktap_rand() % (hi - lo + 1);
}

static void random_params(struct sroce_dcqcn_params *p)
{
	sroce_dcqcn_defaults(p);
	p->rpg_time_reset = rnd(1, 60);
	p->rpg_byte_reset = rnd(1, 8000);
	p->rpg_threshold = rnd(1, 5);
	p->rpg_ai_rate = rnd(1, 100);
	p->rpg_hai_rate = rnd(1, 1000);
	p->rpg_gd = rnd(1, 15);
	p->rpg_min_dec_fac = rnd(1, 100);
	p->rpg_min_rate = rnd(1, 200);
	p->rpg_max_rate = rnd(0, 3) ? 0 : rnd(p->rpg_min_rate, 20000);
	p->rate_to_set_on_first_cnp = rnd(0, 2) ? 0 : rnd(1, 20000);
	p->clamp_tgt_rate = rnd(0, 1);
	p->clamp_tgt_rate_after_time_inc = rnd(0, 1);
	p->dce_tcp_g = rnd(0, 3) ? rnd(1000, 1023) : rnd(0, 1023);
	p->dce_tcp_rtt = rnd(1, 5);
	p->rate_reduce_monitor_period = rnd(0, 10);
	p->initial_alpha_value = rnd(0, 1024);
}

static bool cmp(const char *what, u64 got, u64 want, unsigned int seed,
		int step)
{
	return CHECKF(got == want, "seed %u step %d: %s %llu, model %llu",
		      seed, step, what, (unsigned long long)got,
		      (unsigned long long)want);
}

static bool same(const struct sroce_dcqcn_rp *rp, const struct ref *r,
		 unsigned int seed, int step)
{
	const struct { const char *what; u64 got, want; } f[] = {
		{ "rc", rp->rc, r->rc },
		{ "rt", rp->rt, r->rt },
		{ "alpha", rp->alpha, r->alpha },
		{ "tc", rp->tc, r->tc },
		{ "bc", rp->bc, r->bc },
		{ "bytes", rp->bytes, r->bytes },
		{ "limited", rp->limited, r->limited },
		{ "cnp_in_period", rp->cnp_in_period, r->flag },
		{ "cut_pending", rp->cut_pending, r->pending },
		{ "t_alpha", rp->t_alpha, r->ta },
		{ "t_inc", rp->t_inc, r->ti },
		{ "t_cut", rp->t_cut, r->tcut },
		{ "cuts", rp->cuts, r->cuts },
		{ "increases", rp->increases, r->incs },
	};
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(f); i++)
		ok &= cmp(f[i].what, f[i].got, f[i].want, seed, step);
	return ok;
}

/* The invariants, whatever happened. */
static bool sane(const struct sroce_dcqcn_rp *rp,
		 const struct sroce_dcqcn_params *p,
		 const struct sroce_dcqcn_rp *old, unsigned int seed, int step)
{
	u64 floor = p->rpg_min_rate * 1000ull;

	if (floor > rp->line)
		floor = rp->line;
	return CHECKF(rp->rc <= rp->rt && rp->rt <= rp->line,
		      "seed %u step %d: R_C %u R_T %u line %u", seed, step,
		      rp->rc, rp->rt, rp->line) &
	       CHECKF(!rp->limited || rp->rc >= floor,
		      "seed %u step %d: R_C %u below %llu", seed, step,
		      rp->rc, (unsigned long long)floor) &
	       CHECKF(rp->limited || rp->rc == rp->line,
		      "seed %u step %d: unlimited at %u", seed, step, rp->rc) &
	       CHECK(rp->alpha <= SROCE_DCQCN_ALPHA_ONE) &
	       CHECK((sroce_dcqcn_rp_rate(rp) != 0) == rp->limited) &
	       CHECK(rp->t_alpha >= old->t_alpha) &
	       CHECK(rp->t_inc >= old->t_inc) &
	       CHECK(rp->t_cut >= old->t_cut) &
	       CHECK(rp->cuts >= old->cuts) &
	       CHECK(rp->increases >= old->increases);
}

static void test_random(void)
{
	unsigned long long cuts = 0, incs = 0, unlimits = 0, steps = 0;
	unsigned int seed;
	int step, bad = 0;

	for (seed = 1; seed <= 150 && bad < 3; seed++) {
		struct sroce_dcqcn_params p;
		struct sroce_dcqcn_rp rp, old;
		struct ref r;
		u32 line;
		u64 now;

		ktap_rand_state = seed * 2654435761u;
		random_params(&p);
		line = rnd(0, 1) ? rnd(1000, 100000000) : rnd(1, 5000000);
		now = rnd(0, 1000000);
		sroce_dcqcn_rp_init(&rp, &p, line, now);
		ref_init(&r, &p, line, now);
		for (step = 0; step < 400; step++) {
			u32 what = rnd(0, 99);

			if (rnd(0, 9))
				now += rnd(0, 20 * US);
			else
				now += rnd(0, 3 * MS);
			old = rp;
			if (what < 25) {
				bool cut = sroce_dcqcn_rp_cnp(&rp, &p, now);
				u64 cuts = r.cuts;

				ref_cnp(&r, &p, now);
				CHECK(cut == (!r.pending && r.cuts > cuts));
			} else if (what < 80) {
				u32 b = rnd(0, 3) ? rnd(64, 4200) :
					rnd(0, 200000);

				sroce_dcqcn_rp_sent(&rp, &p, b, now);
				ref_sent(&r, &p, b, now);
			} else {
				sroce_dcqcn_rp_advance(&rp, &p, now);
				ref_advance(&r, &p, now);
			}
			steps++;
			unlimits += old.limited && !rp.limited;
			if (!sane(&rp, &p, &old, seed, step) |
			    !same(&rp, &r, seed, step)) {
				bad++;
				break;
			}
		}
		cuts += rp.cuts;
		incs += rp.increases;
	}
	ktap_diag("random: %llu steps, %llu cuts, %llu increases",
		  steps, cuts, incs);
	ktap_diag("random: %llu returns to line", unlimits);
}

static const struct ktap_case cases[] = {
	{ "dcqcn_random_vs_model", test_random },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
