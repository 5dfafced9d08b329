/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dcqcn.h: DCQCN congestion control arithmetic, in the NVIDIA ConnectX
 * firmware form (timer driven, α in 1/1024), with mlx5's parameter names.
 * Documentation/dcqcn.rst gives every parameter, its unit and range, and
 * where the paper form (Zhu et al., SIGCOMM 2015) differs.
 *
 * Pure: time is passed in as a value (ns, any monotonic clock), nothing
 * here sleeps, locks or allocates. The glue (kernel/cc.c) owns one
 * struct sroce_dcqcn_rp per QP and calls in with the QP's send lock held.
 * Timers are not needed for the arithmetic: every periodic event (α update,
 * rate-increase timer, deferred cut) that fell due before @now is played,
 * in time order, by the next call that passes @now; the glue only needs a
 * timer to send paced packets.
 *
 * Rates are in kbit/s (u32: up to 4.29 Tbit/s); the parameters that are
 * rates are in Mbit/s, as mlx5's.
 */
#ifndef SROCE_CORE_DCQCN_H
#define SROCE_CORE_DCQCN_H

#include "core_types.h"

#define SROCE_DCQCN_ALPHA_ONE	1024	/* α = 1.0 */

/* The knobs, as mlx5 names them (units in the comments). */
struct sroce_dcqcn_params {
	u32 rpg_time_reset;		/* µs: the rate-increase timer */
	u32 rpg_byte_reset;		/* bytes: the byte counter */
	u32 rpg_threshold;		/* F: events per stage */
	u32 rpg_ai_rate;		/* Mbit/s: additive increase */
	u32 rpg_hai_rate;		/* Mbit/s: hyper increase */
	u32 rpg_gd;			/* cut = R_C·α >> rpg_gd */
	u32 rpg_min_dec_fac;		/* %: a cut leaves at least this */
	u32 rpg_min_rate;		/* Mbit/s: the floor */
	u32 rpg_max_rate;		/* Mbit/s: the cap, 0 = line rate */
	u32 rate_to_set_on_first_cnp;	/* Mbit/s, 0 = just cut */
	u32 clamp_tgt_rate;		/* 0/1: R_T = R_C on every cut */
	u32 clamp_tgt_rate_after_time_inc; /* 0/1: ... once the timer raised */
	u32 dce_tcp_g;			/* α gain: α·g/1024 (+ 1024 − g) */
	u32 dce_tcp_rtt;		/* µs: the α update period */
	u32 rate_reduce_monitor_period;	/* µs: at most one cut per period */
	u32 initial_alpha_value;	/* α on the first CNP, of 1024 */
	u32 min_time_between_cnps;	/* µs: NP: one CNP per QP per this */
	u32 cnp_dscp;			/* NP: DSCP of the CNPs sent */
	u32 cnp_802p_prio;		/* NP: priority of the CNPs sent */
};

/* Which parameter, for sroce_dcqcn_param_range() and the sysfs files. */
enum sroce_dcqcn_param {
	SROCE_DCQCN_RPG_TIME_RESET,
	SROCE_DCQCN_RPG_BYTE_RESET,
	SROCE_DCQCN_RPG_THRESHOLD,
	SROCE_DCQCN_RPG_AI_RATE,
	SROCE_DCQCN_RPG_HAI_RATE,
	SROCE_DCQCN_RPG_GD,
	SROCE_DCQCN_RPG_MIN_DEC_FAC,
	SROCE_DCQCN_RPG_MIN_RATE,
	SROCE_DCQCN_RPG_MAX_RATE,
	SROCE_DCQCN_RATE_TO_SET_ON_FIRST_CNP,
	SROCE_DCQCN_CLAMP_TGT_RATE,
	SROCE_DCQCN_CLAMP_TGT_RATE_AFTER_TIME_INC,
	SROCE_DCQCN_DCE_TCP_G,
	SROCE_DCQCN_DCE_TCP_RTT,
	SROCE_DCQCN_RATE_REDUCE_MONITOR_PERIOD,
	SROCE_DCQCN_INITIAL_ALPHA_VALUE,
	SROCE_DCQCN_MIN_TIME_BETWEEN_CNPS,
	SROCE_DCQCN_CNP_DSCP,
	SROCE_DCQCN_CNP_802P_PRIO,
	SROCE_DCQCN_NPARAMS
};

/* A parameter's name (the sysfs file), place and bounds. */
struct sroce_dcqcn_param_info {
	const char *name;
	u32 min, max;
};

/* The reaction point of one QP. */
struct sroce_dcqcn_rp {
	u32 rc;			/* kbit/s: the current rate R_C */
	u32 rt;			/* kbit/s: the target rate R_T */
	u32 line;		/* kbit/s: the cap (line rate or rpg_max_rate) */
	u32 alpha;		/* of 1024 */
	u32 tc;			/* increase events of the timer since the cut */
	u32 bc;			/* increase events of the byte counter */
	u32 bytes;		/* sent since the last byte-counter event */
	bool limited;		/* cut at least once and not yet back at line */
	bool cnp_in_period;	/* a CNP came in the current α period */
	bool cut_pending;	/* a CNP came too soon after a cut */
	u64 t_alpha;		/* ns: the next α update */
	u64 t_inc;		/* ns: the next increase-timer event */
	u64 t_cut;		/* ns: the earliest next cut */
	u32 cuts;		/* cuts made (statistics) */
	u32 increases;		/* increase events played (statistics) */
};

extern const struct sroce_dcqcn_param_info
	sroce_dcqcn_param_info[SROCE_DCQCN_NPARAMS];

/* mlx5's defaults (Documentation/dcqcn.rst). */
void sroce_dcqcn_defaults(struct sroce_dcqcn_params *p);

u32 *sroce_dcqcn_param(struct sroce_dcqcn_params *p,
		       enum sroce_dcqcn_param which);

/*
 * Would setting @which to @val leave @p valid (each value within its range,
 * rpg_min_rate <= rpg_max_rate unless the latter is 0)? 0 or -22 (EINVAL).
 */
int sroce_dcqcn_param_check(const struct sroce_dcqcn_params *p,
			    enum sroce_dcqcn_param which, u32 val);

/* A fresh, unlimited RP for a QP whose line rate is @line_kbps. */
void sroce_dcqcn_rp_init(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_params *p, u32 line_kbps,
			 u64 now);

/* Play every periodic event due at or before @now. */
void sroce_dcqcn_rp_advance(struct sroce_dcqcn_rp *rp,
			    const struct sroce_dcqcn_params *p, u64 now);

/*
 * A CNP for this QP at @now: advance, then cut (at most one cut per
 * rate_reduce_monitor_period; a CNP inside it makes one cut when the
 * period ends). Return: true if the rate was cut now.
 */
bool sroce_dcqcn_rp_cnp(struct sroce_dcqcn_rp *rp,
			const struct sroce_dcqcn_params *p, u64 now);

/* @bytes left the QP at @now: advance, byte-counter events. */
void sroce_dcqcn_rp_sent(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_params *p, u32 bytes,
			 u64 now);

/* The rate to pace at, kbit/s; 0 when the QP is not limited. */
static inline u32 sroce_dcqcn_rp_rate(const struct sroce_dcqcn_rp *rp)
{
	return rp->limited ? rp->rc : 0;
}

/*
 * sroce_dcqcn_pace() - the pacer: when may the next packet leave?
 * @next: the QP's earliest send time for the packet after this one (ns)
 * @now: now (ns)
 * @bytes: this packet's bytes on the wire
 * @kbps: the rate; 0 = unpaced
 *
 * Return: the new earliest send time: max(@next, @now − one packet's
 * slack) + @bytes at @kbps. The caller may send while @now >= next.
 */
u64 sroce_dcqcn_pace(u64 next, u64 now, u32 bytes, u32 kbps);

/* NP: may a QP that sent its last CNP at @last send one at @now? */
static inline bool sroce_dcqcn_np_may_send(u64 last, bool ever, u64 now,
					   const struct sroce_dcqcn_params *p)
{
	return !ever ||
	       now - last >= (u64)p->min_time_between_cnps * 1000;
}

#endif /* SROCE_CORE_DCQCN_H */
