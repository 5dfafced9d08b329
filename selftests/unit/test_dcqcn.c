// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN arithmetic (kernel/core/dcqcn.c). The trajectories are worked out
 * by hand from the equations in Documentation/dcqcn.rst, each expected
 * number a literal with its arithmetic beside it. test_dcqcn_model.c
 * plays seeded random runs against a naive model.
 *
 * Notation in the comments: x·a>>11 is floor(x·a/2048); ⌈(a+b)/2⌉ is the
 * rounded-up mean the increase uses; times are ns from T0.
 */
#include "ktap.h"
#include "dcqcn.h"

#define T0	1000000ull	/* the RP's birth, ns */
#define US	1000ull
#define MS	1000000ull
#define LINE	10000000u	/* 10 Gbit/s in kbit/s */
#define EINVAL_	(-22)

static struct sroce_dcqcn_params defaults(void)
{
	struct sroce_dcqcn_params p;

	sroce_dcqcn_defaults(&p);
	return p;
}

/* -- parameters --------------------------------------------------------- */

static void test_defaults(void)
{
	struct sroce_dcqcn_params p;

	memset(&p, 0xa5, sizeof(p));
	sroce_dcqcn_defaults(&p);
	CHECK_EQ(p.rpg_time_reset, 300);
	CHECK_EQ(p.rpg_byte_reset, 32767);
	CHECK_EQ(p.rpg_threshold, 1);
	CHECK_EQ(p.rpg_ai_rate, 5);
	CHECK_EQ(p.rpg_hai_rate, 50);
	CHECK_EQ(p.rpg_gd, 11);
	CHECK_EQ(p.rpg_min_dec_fac, 50);
	CHECK_EQ(p.rpg_min_rate, 1);
	CHECK_EQ(p.rpg_max_rate, 0);
	CHECK_EQ(p.rate_to_set_on_first_cnp, 0);
	CHECK_EQ(p.clamp_tgt_rate, 0);
	CHECK_EQ(p.clamp_tgt_rate_after_time_inc, 1);
	CHECK_EQ(p.dce_tcp_g, 1019);
	CHECK_EQ(p.dce_tcp_rtt, 1);
	CHECK_EQ(p.rate_reduce_monitor_period, 4);
	CHECK_EQ(p.initial_alpha_value, 1023);
	CHECK_EQ(p.min_time_between_cnps, 4);
	CHECK_EQ(p.cnp_dscp, 48);
	CHECK_EQ(p.cnp_802p_prio, 6);
}

/* Names, places and bounds, as Documentation/dcqcn.rst lists them. */
static const struct {
	const char *name;
	size_t off;
	u32 min, max;
} params[] = {
#define P(f, lo, hi) { #f, offsetof(struct sroce_dcqcn_params, f), lo, hi }
	P(rpg_time_reset, 1, 1000000),
	P(rpg_byte_reset, 1, 0x80000000u),
	P(rpg_threshold, 1, 31),
	P(rpg_ai_rate, 1, 400000),
	P(rpg_hai_rate, 1, 400000),
	P(rpg_gd, 1, 15),
	P(rpg_min_dec_fac, 1, 100),
	P(rpg_min_rate, 1, 400000),
	P(rpg_max_rate, 0, 400000),
	P(rate_to_set_on_first_cnp, 0, 400000),
	P(clamp_tgt_rate, 0, 1),
	P(clamp_tgt_rate_after_time_inc, 0, 1),
	P(dce_tcp_g, 0, 1023),
	P(dce_tcp_rtt, 1, 1000000),
	P(rate_reduce_monitor_period, 0, 1000000),
	P(initial_alpha_value, 0, 1024),
	P(min_time_between_cnps, 0, 1000000),
	P(cnp_dscp, 0, 63),
	P(cnp_802p_prio, 0, 7),
#undef P
};

static void test_param_info(void)
{
	struct sroce_dcqcn_params p = defaults();
	size_t i;

	CHECK_EQ(ARRAY_SIZE(params), SROCE_DCQCN_NPARAMS);
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		const struct sroce_dcqcn_param_info *in =
			&sroce_dcqcn_param_info[i];

		CHECKF(in->name && !strcmp(in->name, params[i].name),
		       "param %zu is %s, want %s", i, in->name,
		       params[i].name);
		CHECKF(in->min == params[i].min && in->max == params[i].max,
		       "%s: [%u, %u], want [%u, %u]", params[i].name, in->min,
		       in->max, params[i].min, params[i].max);
		CHECKF(sroce_dcqcn_param(&p, i) ==
		       (u32 *)((u8 *)&p + params[i].off),
		       "%s: wrong field", params[i].name);
	}
	CHECK(!sroce_dcqcn_param(&p, SROCE_DCQCN_NPARAMS));
	CHECK(!sroce_dcqcn_param(&p, (enum sroce_dcqcn_param)-1));
	*sroce_dcqcn_param(&p, SROCE_DCQCN_RPG_GD) = 7;
	CHECK_EQ(p.rpg_gd, 7);
}

static void test_param_check(void)
{
	struct sroce_dcqcn_params p = defaults();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(params); i++) {
		u32 lo = params[i].min, hi = params[i].max;

		CHECKF(sroce_dcqcn_param_check(&p, i, lo) == 0, "%s = %u",
		       params[i].name, lo);
		CHECKF(sroce_dcqcn_param_check(&p, i, hi) == 0, "%s = %u",
		       params[i].name, hi);
		if (lo)
			CHECKF(sroce_dcqcn_param_check(&p, i, lo - 1) ==
			       EINVAL_, "%s = %u", params[i].name, lo - 1);
		CHECKF(sroce_dcqcn_param_check(&p, i, hi + 1) == EINVAL_,
		       "%s = %u", params[i].name, hi + 1);
		CHECKF(sroce_dcqcn_param_check(&p, i, 0xffffffffu) == EINVAL_,
		       "%s = 2^32 - 1", params[i].name);
	}
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_NPARAMS, 0),
		 EINVAL_);

	/* the floor may not be above a cap */
	p.rpg_max_rate = 1000;
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MIN_RATE, 1000),
		 0);
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MIN_RATE, 1001),
		 EINVAL_);
	p.rpg_max_rate = 0;		/* line rate: any floor */
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MIN_RATE,
					 400000), 0);
	p.rpg_min_rate = 500;
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MAX_RATE, 499),
		 EINVAL_);
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MAX_RATE, 500),
		 0);
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_MAX_RATE, 0), 0);
	/* the rate for the first CNP is not held to [min, max] */
	p.rpg_max_rate = 1000;
	CHECK_EQ(sroce_dcqcn_param_check(&p,
					 SROCE_DCQCN_RATE_TO_SET_ON_FIRST_CNP,
					 5000), 0);
	CHECK_EQ(sroce_dcqcn_param_check(&p,
					 SROCE_DCQCN_RATE_TO_SET_ON_FIRST_CNP,
					 100), 0);
	/* other knobs are not tied to the rates */
	CHECK_EQ(sroce_dcqcn_param_check(&p, SROCE_DCQCN_RPG_AI_RATE, 400000),
		 0);
}

/* -- init and the first cut --------------------------------------------- */

static void test_init(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	memset(&rp, 0x5a, sizeof(rp));
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.line, LINE);
	CHECK_EQ(rp.alpha, 0);
	CHECK(!rp.limited && !rp.cnp_in_period && !rp.cut_pending);
	CHECK_EQ(rp.tc, 0);
	CHECK_EQ(rp.bc, 0);
	CHECK_EQ(rp.bytes, 0);
	CHECK_EQ(rp.cuts, 0);
	CHECK_EQ(rp.increases, 0);
	CHECK_EQ(rp.t_alpha, T0 + 1 * US);	/* dce_tcp_rtt */
	CHECK_EQ(rp.t_cut, T0);			/* may cut at once */
	CHECK_EQ(sroce_dcqcn_rp_rate(&rp), 0);	/* unpaced */

	/* rpg_max_rate below the line rate is the line */
	p.rpg_max_rate = 2000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK_EQ(rp.line, 2000000);
	CHECK_EQ(rp.rc, 2000000);
	CHECK_EQ(rp.rt, 2000000);
	/* above it, no effect */
	p.rpg_max_rate = 40000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK_EQ(rp.line, LINE);
	/* a line rate of 0 is taken as 1 kbit/s */
	p.rpg_max_rate = 0;
	sroce_dcqcn_rp_init(&rp, &p, 0, T0);
	CHECK_EQ(rp.line, 1);
}

static void test_first_cut(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.alpha, 1023);		/* initial_alpha_value */
	CHECK_EQ(rp.rt, LINE);			/* R_T = R_C, first cut */
	/*
	 * min(10000000·1023>>11 = 10230000000/2048 = 4995117.19 → 4995117,
	 *     10000000·50/100 = 5000000) = 4995117
	 */
	CHECK_EQ(rp.rc, 5004883);		/* 10000000 − 4995117 */
	CHECK_EQ(sroce_dcqcn_rp_rate(&rp), 5004883);
	CHECK(rp.limited && rp.cnp_in_period && !rp.cut_pending);
	CHECK_EQ(rp.cuts, 1);
	CHECK_EQ(rp.t_cut, T0 + 4 * US);
	CHECK_EQ(rp.t_inc, T0 + 300 * US);

	/* rpg_max_rate below line: the cut starts from it */
	p.rpg_max_rate = 2000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	/* 2000000 − 2000000·1023>>11 (= 2046000000/2048 = 999023.4) */
	CHECK_EQ(rp.rc, 1000977);
	CHECK_EQ(rp.rt, 2000000);
}

/* -- cuts ---------------------------------------------------------------- */

static void test_monitor_period(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rc, 5004883);
	/* 2 µs later: inside the 4 µs monitor period, no cut */
	CHECK(!sroce_dcqcn_rp_cnp(&rp, &p, T0 + 2 * US));
	CHECK(rp.cut_pending);
	CHECK_EQ(rp.rc, 5004883);
	CHECK_EQ(rp.cuts, 1);
	/*
	 * α: T0+1µs CNP in period: 1023·1019>>10 = 1042437/1024 → 1018, + 5
	 * = 1023; T0+2µs none (the CNP at T0+2µs is in the next period):
	 * 1018; T0+3µs CNP: 1018·1019>>10 = 1037342/1024 → 1013, + 5 = 1018
	 */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 4 * US - 1);
	CHECK_EQ(rp.cuts, 1);
	CHECK_EQ(rp.rc, 5004883);
	CHECK_EQ(rp.alpha, 1018);
	/*
	 * T0+4µs: α first, no CNP: 1018·1019>>10 = 1013; then the deferred
	 * cut: not clamped (T_c = 0), R_C −= min(5004883·1013>>11 =
	 * 5069946479/2048 → 2475559, 5004883·50/100 = 2502441)
	 */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 4 * US);
	CHECK_EQ(rp.alpha, 1013);
	CHECK_EQ(rp.cuts, 2);
	CHECK(!rp.cut_pending);
	CHECK_EQ(rp.rc, 2529324);		/* 5004883 − 2475559 */
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.t_cut, T0 + 8 * US);
	CHECK_EQ(rp.t_inc, T0 + 304 * US);

	/* a CNP exactly at t_cut cuts at once */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 8 * US));
	CHECK_EQ(rp.cuts, 3);

	/* monitor period 0: every CNP cuts */
	p.rate_reduce_monitor_period = 0;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 1));
	CHECK_EQ(rp.cuts, 3);
}

/*
 * A CNP every µs, at 0.5 µs into each α period, against a 4 µs monitor
 * period: a cut at 0.5, deferred cuts at 4.5 and 8.5, α rising between.
 * g = 768, so α' = α·768>>10 + 256 with a CNP in the period.
 */
static void test_cnp_train(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;
	static const u32 alpha[] = {
		448,	/* 1µs: 256·768>>10 = 192, + 256 */
		592,	/* 2µs: 448·768>>10 = 336, + 256 */
		700,	/* 3µs: 592·768>>10 = 444, + 256 */
		781,	/* 4µs: 700·768>>10 = 525, + 256 */
		841,	/* 5µs: 781·768>>10 = 599808/1024 → 585, + 256 */
		886,	/* 6µs: 841·768>>10 = 645888/1024 → 630, + 256 */
		920,	/* 7µs: 886·768>>10 = 680448/1024 → 664, + 256 */
		946,	/* 8µs: 920·768>>10 = 706560/1024 = 690, + 256 */
	};
	u64 t;
	int k;

	p.dce_tcp_g = 768;
	p.initial_alpha_value = 256;
	p.rpg_gd = 10;			/* cut = R_C·α/1024 */
	p.rpg_min_dec_fac = 1;		/* up to 99 % */
	sroce_dcqcn_rp_init(&rp, &p, 1000000, 0);

	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, 500));
	CHECK_EQ(rp.alpha, 256);
	/* 1000000 − min(1000000·256>>10 = 250000, 990000) */
	CHECK_EQ(rp.rc, 750000);
	for (k = 1; k <= 8; k++) {
		t = k * US + 500;
		CHECK_EQ(sroce_dcqcn_rp_cnp(&rp, &p, t), false);
		CHECKF(rp.alpha == alpha[k - 1], "α at %d µs = %u, want %u",
		       k, rp.alpha, alpha[k - 1]);
		if (k == 4) {
			/*
			 * the cut deferred from 1.5 µs, at 4.5 µs, α 781:
			 * 750000·781>>10 = 585750000/1024 → 572021
			 * (< 750000·99/100 = 742500); R_T not clamped
			 */
			CHECK_EQ(rp.cuts, 2);
			CHECK_EQ(rp.rc, 177979);	/* 750000 − 572021 */
			CHECK_EQ(rp.rt, 1000000);
			CHECK(rp.cut_pending);	/* the CNP at 4.5 µs */
		}
	}
	/*
	 * 8.5 µs, α 946: 177979·946>>10 = 168368134/1024 → 164422
	 * (< 177979·99/100 → 176199)
	 */
	CHECK_EQ(rp.cuts, 3);
	CHECK_EQ(rp.rc, 13557);			/* 177979 − 164422 */
	CHECK(rp.cut_pending);
	CHECK_EQ(rp.t_cut, 12 * US + 500);
	/* nothing more until 12.5 µs, then one cut for all */
	sroce_dcqcn_rp_advance(&rp, &p, 12 * US + 499);
	CHECK_EQ(rp.cuts, 3);
	sroce_dcqcn_rp_advance(&rp, &p, 12 * US + 500);
	CHECK_EQ(rp.cuts, 4);
	CHECK(!rp.cut_pending);
}

static void test_min_rate_floor(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.rpg_min_rate = 4000;		/* 4 Gbit/s */
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rc, 5004883);
	/*
	 * α 1023 (CNP), 1018, 1013, 1008 (1013·1019>>10 = 1032247/1024) at
	 * T0+1..4µs; the cut: 5004883·1008>>11 = 5044922064/2048 → 2463340;
	 * 5004883 − 2463340 = 2541543, below the floor 4000000
	 */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 4 * US));
	CHECK_EQ(rp.alpha, 1008);
	CHECK_EQ(rp.rc, 4000000);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 8 * US));
	CHECK_EQ(rp.rc, 4000000);
	CHECK_EQ(rp.cuts, 3);

	/* a floor above the line is the line: cut to nothing, still paced */
	p.rpg_min_rate = 1000;
	sroce_dcqcn_rp_init(&rp, &p, 500000, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rc, 500000);
	CHECK(rp.limited);
	CHECK_EQ(sroce_dcqcn_rp_rate(&rp), 500000);
	/* ... until the first increase event */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US);
	CHECK(!rp.limited);
	CHECK_EQ(sroce_dcqcn_rp_rate(&rp), 0);
}

/*
 * With dce_tcp_rtt at 1 s no α update falls inside the test: α stays at
 * initial_alpha_value, 1023.
 */
static void test_clamp(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.dce_tcp_rtt = 1000000;

	/* defaults: clamp only after the timer raised the rate */
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US);
	CHECK_EQ(rp.tc, 1);
	CHECK_EQ(rp.rc, 7502442);	/* ⌈(10000000 + 5004883)/2⌉ */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 400 * US));
	CHECK_EQ(rp.rt, 7502442);	/* clamped: T_c was 1 */
	/* 7502442·1023>>11 = 7674998166/2048 → 3747557 (< 3751221) */
	CHECK_EQ(rp.rc, 3754885);	/* 7502442 − 3747557 */
	CHECK_EQ(rp.tc, 0);
	/* T_c is 0 again: not clamped */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 500 * US));
	CHECK_EQ(rp.rt, 7502442);
	/* 3754885·1023>>11 = 3841247355/2048 → 1875609 */
	CHECK_EQ(rp.rc, 1879276);	/* 3754885 − 1875609 */

	/* clamp_tgt_rate: every cut */
	p.clamp_tgt_rate = 1;
	p.clamp_tgt_rate_after_time_inc = 0;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 10 * US));
	CHECK_EQ(rp.rt, 5004883);
	/* 5004883·1023>>11 = 5119995309/2048 → 2499997 */
	CHECK_EQ(rp.rc, 2504886);	/* 5004883 − 2499997 */

	/* neither: R_T stays, even after a timer increase */
	p.clamp_tgt_rate = 0;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 400 * US));
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.rc, 3754885);
}

static void test_first_cnp_rate(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.rate_to_set_on_first_cnp = 1000;	/* 1 Gbit/s */
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rt, 1000000);
	/* 1000000·1023>>11 = 1023000000/2048 → 499511 */
	CHECK_EQ(rp.rc, 500489);
	/* only the first cut: the second starts from R_C */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 4 * US));
	CHECK(rp.rc < 500489);
	CHECK_EQ(rp.rt, 1000000);

	/* above the line: the line */
	p.rate_to_set_on_first_cnp = 20000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.rc, 5004883);

	/* below the floor: the floor */
	p.rate_to_set_on_first_cnp = 1;
	p.rpg_min_rate = 1;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	/* 1000 − 1000·1023>>11 (= 499) = 501, below 1000 */
	CHECK_EQ(rp.rc, 1000);
	CHECK_EQ(rp.rt, 1000);
}

/* -- increase ------------------------------------------------------------ */

/*
 * From R_T 1000000, R_C 500489 (rate_to_set_on_first_cnp 1000), F = 1:
 * timer events, then byte-counter events into hyper increase.
 */
static void test_recovery_stages(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.rate_to_set_on_first_cnp = 1000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rc, 500489);

	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US - 1);
	CHECK_EQ(rp.increases, 0);
	/* T_c 0, BC 0: fast recovery, ⌈(1000000 + 500489)/2⌉ */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US);
	CHECK_EQ(rp.rt, 1000000);
	CHECK_EQ(rp.rc, 750245);
	CHECK_EQ(rp.tc, 1);
	CHECK_EQ(rp.t_inc, T0 + 600 * US);
	/* T_c 1 >= F: additive, R_T + 5000, ⌈(1005000 + 750245)/2⌉ */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 600 * US);
	CHECK_EQ(rp.rt, 1005000);
	CHECK_EQ(rp.rc, 877623);
	/* T_c 2, BC 0: min 0, additive: ⌈(1010000 + 877623)/2⌉ */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 900 * US);
	CHECK_EQ(rp.rt, 1010000);
	CHECK_EQ(rp.rc, 943812);
	CHECK_EQ(rp.tc, 3);

	/* bytes: one short of rpg_byte_reset, then the one */
	sroce_dcqcn_rp_sent(&rp, &p, 32766, T0 + 901 * US);
	CHECK_EQ(rp.bc, 0);
	CHECK_EQ(rp.bytes, 32766);
	sroce_dcqcn_rp_sent(&rp, &p, 1, T0 + 902 * US);
	CHECK_EQ(rp.bc, 1);
	CHECK_EQ(rp.bytes, 0);
	/* T_c 3, BC 0: additive, ⌈(1015000 + 943812)/2⌉ = 979406 */
	CHECK_EQ(rp.rt, 1015000);
	CHECK_EQ(rp.rc, 979406);
	/*
	 * two events in one call (+ 5 bytes left over):
	 * T_c 3, BC 1: min 1, not > F: additive, ⌈(1020000 + 979406)/2⌉
	 * = 999703; T_c 3, BC 2: min 2 > F: hyper, R_T + 50000,
	 * ⌈(1070000 + 999703)/2⌉ = ⌈1034851.5⌉
	 */
	sroce_dcqcn_rp_sent(&rp, &p, 2 * 32767 + 5, T0 + 903 * US);
	CHECK_EQ(rp.bc, 3);
	CHECK_EQ(rp.bytes, 5);
	CHECK_EQ(rp.rt, 1070000);
	CHECK_EQ(rp.rc, 1034852);
	/* the timer, T_c 3, BC 3: hyper, ⌈(1120000 + 1034852)/2⌉ */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 1200 * US);
	CHECK_EQ(rp.rt, 1120000);
	CHECK_EQ(rp.rc, 1077426);
	CHECK_EQ(rp.tc, 4);
	CHECK_EQ(rp.increases, 7);
	CHECK_EQ(rp.cuts, 1);
}

/* F = 3: three rounds of fast recovery before additive increase. */
static void test_fast_recovery(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;
	static const u32 rc[] = {
		750245,		/* ⌈(1000000 + 500489)/2⌉ */
		875123,		/* ⌈(1000000 + 750245)/2⌉ = ⌈875122.5⌉ */
		937562,		/* ⌈(1000000 + 875123)/2⌉ = ⌈937561.5⌉ */
		971281,		/* T_c 3 = F: ⌈(1005000 + 937562)/2⌉ */
		990641,		/* ⌈(1010000 + 971281)/2⌉ = ⌈990640.5⌉ */
	};
	static const u32 rt[] = {
		1000000, 1000000, 1000000, 1005000, 1010000,
	};
	size_t k;

	p.rate_to_set_on_first_cnp = 1000;
	p.rpg_threshold = 3;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	for (k = 0; k < ARRAY_SIZE(rc); k++) {
		sroce_dcqcn_rp_advance(&rp, &p, T0 + (k + 1) * 300 * US);
		CHECKF(rp.rc == rc[k] && rp.rt == rt[k],
		       "event %zu: R_C %u R_T %u, want %u %u", k + 1, rp.rc,
		       rp.rt, rc[k], rt[k]);
	}
	CHECK_EQ(rp.tc, 5);
}

/*
 * After one cut at line: R_T = line; additive is capped, so the gap
 * e = line − R_C halves (rounded down) per event: 4995117, 2497558,
 * 1248779, 624389, 312194, 156097, 78048, 39024, 19512, 9756, 4878, 2439,
 * 1219, 609, 304, 152, 76, 38, 19, 9, 4, 2, 1, 0: at the 23rd event R_C
 * is line and the QP unlimited.
 */
static void test_line_cap(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 300 * US);
	CHECK_EQ(rp.rc, 7502442);	/* 10000000 − 2497558 */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 600 * US);
	CHECK_EQ(rp.rt, LINE);		/* 10005000 capped */
	CHECK_EQ(rp.rc, 8751221);	/* 10000000 − 1248779 */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 22 * 300 * US);
	CHECK_EQ(rp.rc, 9999999);
	CHECK(rp.limited);
	CHECK_EQ(rp.increases, 22);
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 23 * 300 * US);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.rt, LINE);
	CHECK(!rp.limited);
	CHECK_EQ(sroce_dcqcn_rp_rate(&rp), 0);
	CHECK_EQ(rp.increases, 23);
	/* unlimited: no more events, bytes not counted */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 100 * 300 * US);
	sroce_dcqcn_rp_sent(&rp, &p, 1000000, T0 + 100 * 300 * US);
	CHECK_EQ(rp.increases, 23);
	CHECK_EQ(rp.bytes, 0);
	CHECK_EQ(rp.bc, 0);
	/* the next CNP is a first cut again: α = initial_alpha_value */
	CHECK(rp.alpha < 1023);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0 + 101 * 300 * US));
	CHECK_EQ(rp.alpha, 1023);
	CHECK_EQ(rp.rc, 5004883);

	/* the byte counter alone gets there too */
	p.rpg_time_reset = 1000000;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	sroce_dcqcn_rp_sent(&rp, &p, 22 * 32767, T0 + 1);
	CHECK_EQ(rp.rc, 9999999);
	CHECK_EQ(rp.bc, 22);
	sroce_dcqcn_rp_sent(&rp, &p, 32767 + 100, T0 + 2);
	CHECK(!rp.limited);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.increases, 23);
}

/* -- α and long idles ---------------------------------------------------- */

static void test_alpha_decay(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	sroce_dcqcn_rp_init(&rp, &p, LINE, 0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, 500));
	sroce_dcqcn_rp_advance(&rp, &p, 1 * US);
	CHECK_EQ(rp.alpha, 1023);	/* 1023·1019>>10 = 1018, + 5 */
	CHECK(!rp.cnp_in_period);
	sroce_dcqcn_rp_advance(&rp, &p, 2 * US);
	CHECK_EQ(rp.alpha, 1018);	/* 1042437/1024 → 1018 */
	sroce_dcqcn_rp_advance(&rp, &p, 3 * US + 999);
	CHECK_EQ(rp.alpha, 1013);	/* 1037342/1024 → 1013 */
	sroce_dcqcn_rp_advance(&rp, &p, 4 * US);
	CHECK_EQ(rp.alpha, 1008);	/* 1032247/1024 → 1008 */
	CHECK_EQ(rp.t_alpha, 5 * US);
	/*
	 * 10 ms idle: α falls by at least 1 a period, so it is 0 long
	 * before 10000 periods; the increase timer meanwhile took the QP
	 * back to line (23 events, 6.9 ms)
	 */
	sroce_dcqcn_rp_advance(&rp, &p, 4 * US + 10 * MS);
	CHECK_EQ(rp.alpha, 0);
	CHECK_EQ(rp.t_alpha, 5 * US + 10 * MS);
	CHECK(!rp.limited);
	CHECK_EQ(rp.increases, 23);
	/* from 0, skipped at once: 2^50 ns is 2^50/1000 periods */
	sroce_dcqcn_rp_advance(&rp, &p, 1ull << 50);
	CHECK_EQ(rp.alpha, 0);
	/* the first period boundary after 2^50 (a multiple of 1000 ns) */
	CHECK_EQ(rp.t_alpha, (1ull << 50) - (1ull << 50) % 1000 + 1000);

	/* g = 1023: α falls by exactly 1 a period from 1024 down */
	p.dce_tcp_g = 1023;
	p.initial_alpha_value = 1024;
	sroce_dcqcn_rp_init(&rp, &p, LINE, 0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, 500));
	/* 1µs: 1024·1023>>10 = 1023, + 1 = 1024; then −1 each period */
	sroce_dcqcn_rp_advance(&rp, &p, 101 * US);
	CHECK_EQ(rp.alpha, 924);	/* 1024 − 100 */
	sroce_dcqcn_rp_advance(&rp, &p, 1 * 1000 * MS);
	CHECK_EQ(rp.alpha, 0);
	/* stays at 1024 under CNPs: 1024·1023>>10 + 1 */
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, 1000 * MS + 500));
	sroce_dcqcn_rp_advance(&rp, &p, 1000 * MS + 1 * US);
	CHECK_EQ(rp.alpha, 1024);

	/* g = 0: α is 1024 after a period with a CNP, else 0 */
	p.dce_tcp_g = 0;
	p.initial_alpha_value = 512;
	sroce_dcqcn_rp_init(&rp, &p, LINE, 0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, 500));
	CHECK_EQ(rp.alpha, 512);
	sroce_dcqcn_rp_advance(&rp, &p, 1 * US);
	CHECK_EQ(rp.alpha, 1024);
	sroce_dcqcn_rp_advance(&rp, &p, 2 * US);
	CHECK_EQ(rp.alpha, 0);
}

/*
 * A slow climb from 1 Mbit/s to a 400 Gbit/s line by 1 Mbit/s steps,
 * all in one advance: first cut R_C = R_T = 1000 (rate_to_set_on_first_cnp
 * 1, cut to 501, floored at 1000); event 1 fast recovery; from event 2
 * additive, R_T = 1000·k at event k. The gap e = R_T − R_C goes
 * ⌊(e + 1000)/2⌋: 500, 750, 875, 937, 968, 984, 992, 996, 998, 999, 999...
 * R_T reaches the line at event 400000 (R_C = 399999001); then e halves:
 * 499, 249, 124, 62, 31, 15, 7, 3, 1, 0 — unlimited at event 400010.
 */
static void test_long_climb(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.rate_to_set_on_first_cnp = 1;
	p.rpg_ai_rate = 1;
	p.rpg_hai_rate = 1;
	sroce_dcqcn_rp_init(&rp, &p, 400000000, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	CHECK_EQ(rp.rc, 1000);
	CHECK_EQ(rp.rt, 1000);
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 11 * 300 * US);
	CHECK_EQ(rp.rt, 11000);
	CHECK_EQ(rp.rc, 10001);		/* 11000 − 999 */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 400000 * 300 * US);
	CHECK_EQ(rp.rt, 400000000);
	CHECK_EQ(rp.rc, 399999001);
	CHECK_EQ(rp.increases, 400000);
	/* 400009 · 300 µs = 120002700000 ns */
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 120002700000ull);
	CHECK_EQ(rp.rc, 399999999);
	CHECK(rp.limited);
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 120003000000ull);
	CHECK(!rp.limited);
	CHECK_EQ(rp.rc, 400000000);
	CHECK_EQ(rp.increases, 400010);
	CHECK_EQ(rp.tc, 400010);
	CHECK_EQ(rp.t_inc, T0 + 400011 * 300 * US);
}

/*
 * Unchecked parameters (increase rates of 0) still terminate: R_C = R_T
 * = 1000 forever, one event per 300 µs for a day: 86400 s / 300 µs =
 * 288000000 events, each only counted.
 */
static void test_stuck_day(void)
{
	struct sroce_dcqcn_params p = defaults();
	struct sroce_dcqcn_rp rp;

	p.rate_to_set_on_first_cnp = 1;
	p.rpg_ai_rate = 0;
	p.rpg_hai_rate = 0;
	sroce_dcqcn_rp_init(&rp, &p, LINE, T0);
	CHECK(sroce_dcqcn_rp_cnp(&rp, &p, T0));
	sroce_dcqcn_rp_advance(&rp, &p, T0 + 86400ull * 1000 * MS);
	CHECK_EQ(rp.rc, 1000);
	CHECK_EQ(rp.rt, 1000);
	CHECK(rp.limited);
	CHECK_EQ(rp.tc, 288000000);
	CHECK_EQ(rp.increases, 288000000);
	CHECK_EQ(rp.t_inc, T0 + 288000001ull * 300 * US);
	/* 2^32 bytes a byte at a time would be 2^32 events: one call */
	p.rpg_byte_reset = 1;
	sroce_dcqcn_rp_sent(&rp, &p, 0xffffffffu, T0 + 86400ull * 1000 * MS);
	CHECK_EQ(rp.bc, 0xffffffffu);
	CHECK_EQ(rp.bytes, 0);
	sroce_dcqcn_rp_sent(&rp, &p, 10, T0 + 86400ull * 1000 * MS);
	CHECK_EQ(rp.bc, 0xffffffffu);	/* saturated, not wrapped */
}

/* -- pacer and NP ---------------------------------------------------------- */

static void test_pace(void)
{
	static const struct { u64 next, now; u32 bytes, kbps; u64 want; } t[] = {
		/* 1500 B at 1 Gbit/s: 1500·8·10^6/10^6 = 12000 ns */
		/* idle: one packet's time of credit */
		{ 0, 1000000, 1500, 1000000, 1000000 },
		{ 2000000, 1000000, 1500, 1000000, 2012000 },	/* behind */
		{ 995000, 1000000, 1500, 1000000, 1007000 },	/* some credit */
		{ 988000, 1000000, 1500, 1000000, 1000000 },	/* exactly */
		{ 0, 5000, 1500, 1000000, 12000 },	/* now < d: from 0 */
		{ 0, 12000, 1500, 1000000, 12000 },	/* now == d */
		{ 0, 0, 1500, 1000000, 12000 },
		{ 123, 456, 1500, 0, 456 },		/* unpaced */
		{ 999, 456, 1500, 0, 456 },
		{ 7, 5, 0, 1000, 7 },			/* 0 bytes */
		{ 3, 5, 0, 1000, 5 },
		{ 0, 0, 1, 3, 2666667 },		/* ⌈8·10^6/3⌉ */
		{ 0, 0, 1500, 100000000, 120 },		/* 100 Gbit/s */
		/* 4294967295·8·10^6 = 34359738360000000 */
		{ 0, 0, 0xffffffffu, 1, 34359738360000000ull },
		{ ~0ull - 10, 0, 1500, 1000000, ~0ull },	/* saturates */
		{ 0, ~0ull, 1500, 1000000, ~0ull },
		{ ~0ull - 12000, 0, 1500, 1000000, ~0ull },
		{ ~0ull - 12001, 0, 1500, 1000000, ~0ull - 1 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		u64 got = sroce_dcqcn_pace(t[i].next, t[i].now, t[i].bytes,
					   t[i].kbps);

		CHECKF(got == t[i].want,
		       "pace(%llu, %llu, %u, %u) = %llu, want %llu",
		       (unsigned long long)t[i].next,
		       (unsigned long long)t[i].now, t[i].bytes, t[i].kbps,
		       (unsigned long long)got, (unsigned long long)t[i].want);
	}
}

/* Back to back at a steady rate: every 12 µs, from the first packet. */
static void test_pace_train(void)
{
	u64 next = 0, now = 5 * MS;
	int i;

	for (i = 0; i < 100; i++) {
		CHECK(now >= next);
		next = sroce_dcqcn_pace(next, now, 1500, 1000000);
		now = next;
	}
	/* the first went at 5 ms with next = 5 ms (its credit), then 99·12 */
	CHECK_EQ(next, 5 * MS + 99 * 12000);
}

static void test_np(void)
{
	struct sroce_dcqcn_params p = defaults();

	CHECK(sroce_dcqcn_np_may_send(0, false, 0, &p));
	CHECK(!sroce_dcqcn_np_may_send(T0, true, T0 + 3999, &p));
	CHECK(sroce_dcqcn_np_may_send(T0, true, T0 + 4000, &p));
	p.min_time_between_cnps = 0;
	CHECK(sroce_dcqcn_np_may_send(T0, true, T0, &p));
}

static const struct ktap_case cases[] = {
	{ "dcqcn_defaults", test_defaults },
	{ "dcqcn_param_info", test_param_info },
	{ "dcqcn_param_check", test_param_check },
	{ "dcqcn_init", test_init },
	{ "dcqcn_first_cut", test_first_cut },
	{ "dcqcn_monitor_period", test_monitor_period },
	{ "dcqcn_cnp_train", test_cnp_train },
	{ "dcqcn_min_rate_floor", test_min_rate_floor },
	{ "dcqcn_clamp", test_clamp },
	{ "dcqcn_first_cnp_rate", test_first_cnp_rate },
	{ "dcqcn_recovery_stages", test_recovery_stages },
	{ "dcqcn_fast_recovery", test_fast_recovery },
	{ "dcqcn_line_cap", test_line_cap },
	{ "dcqcn_alpha_decay", test_alpha_decay },
	{ "dcqcn_long_climb", test_long_climb },
	{ "dcqcn_stuck_day", test_stuck_day },
	{ "dcqcn_pace", test_pace },
	{ "dcqcn_pace_train", test_pace_train },
	{ "dcqcn_np_may_send", test_np },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
