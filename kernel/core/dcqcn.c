// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcqcn.c: the reaction point (RP) of DCQCN in the NVIDIA ConnectX firmware
 * form, with mlx5's parameter names and defaults, and the pacer that turns
 * its rate into send times. Documentation/dcqcn.rst is the long form.
 *
 * Units: rates in the state are kbit/s (u32), rate parameters Mbit/s (so
 * ×1000, in u64); α is in 1/1024 (SROCE_DCQCN_ALPHA_ONE = 1.0); time is ns,
 * time parameters µs (so ×1000).
 *
 * State and events of one RP:
 *
 * - Init: R_C = R_T = line, where line = min(rpg_max_rate, the line rate)
 *   (rpg_max_rate 0 = the line rate); α = 0; not limited (unpaced).
 * - α period, every dce_tcp_rtt: α = α·g/1024 + (1024 − g) if a CNP came in
 *   the period just ended, else α = α·g/1024 (g = dce_tcp_g, floor, at most
 *   1024). It runs whether or not the QP is limited.
 * - CNP: marks the α period. If the previous cut is at least
 *   rate_reduce_monitor_period old, cut now; else remember it, and cut once
 *   when the period ends (more CNPs meanwhile make no further cut).
 * - Cut at t: the first cut (QP not limited) sets α = initial_alpha_value
 *   and, if rate_to_set_on_first_cnp != 0, R_C = min(it, line). R_T = R_C
 *   on the first cut, or if clamp_tgt_rate, or if
 *   clamp_tgt_rate_after_time_inc and the timer raised the rate since the
 *   last cut (T_c > 0). Then R_C −= min(R_C·α >> rpg_gd,
 *   R_C·(100 − rpg_min_dec_fac)/100); R_C = max(R_C, rpg_min_rate), at most
 *   line; R_T is raised to R_C if below it. The QP is limited; T_c, BC and
 *   the byte count restart; the increase timer next fires at t +
 *   rpg_time_reset; the next cut may come at t + rate_reduce_monitor_period.
 * - Increase event (limited QPs only): the timer, every rpg_time_reset
 *   after the last cut or timer event, or the byte counter, every
 *   rpg_byte_reset bytes sent. With T_c and BC as they are before this
 *   event is counted and F = rpg_threshold: hyper increase if min(T_c, BC)
 *   > F (R_T += rpg_hai_rate), else additive if max(T_c, BC) >= F (R_T +=
 *   rpg_ai_rate), else fast recovery (R_T unchanged); R_T at most line;
 *   R_C = (R_T + R_C)/2 rounded up, so that R_C reaches R_T; then T_c or BC
 *   counts the event. Once R_C reaches line the QP is no longer limited.
 *
 * Events are played lazily, in time order, by the call that passes a @now
 * at or after them; at equal times the α update comes first, then a
 * deferred cut (which restarts the increase timer, so a timer event due at
 * the same time is not played). Catching up after a long idle is bounded:
 * α without a CNP falls by at least 1 per period until it is 0 (or stays,
 * for g = 1024) and is then skipped to @now at once; increase events are
 * played one by one only until the stage and the gap R_T − R_C settle,
 * after which R_T and R_C move by the same step per event and a run of
 * events up to the line is one multiplication.
 */
#include "dcqcn.h"

#define DCQCN_EINVAL	22
#define KBPS_PER_MBPS	1000ull
#define NS_PER_US	1000ull

/*
 * sysfs names: mlx5's, the struct's field names. The bounds: rates up to
 * 400 Gbit/s, times up to 1 s; rpg_time_reset, rpg_byte_reset and
 * dce_tcp_rtt at least 1 (0 would be an event at every instant),
 * rpg_min_rate too (a floor of 0 would let R_C reach 0, which reads as
 * unpaced).
 */
const struct sroce_dcqcn_param_info
sroce_dcqcn_param_info[SROCE_DCQCN_NPARAMS] = {
	[SROCE_DCQCN_RPG_TIME_RESET] = { "rpg_time_reset", 1, 1000000 },
	[SROCE_DCQCN_RPG_BYTE_RESET] = { "rpg_byte_reset", 1, 0x80000000u },
	[SROCE_DCQCN_RPG_THRESHOLD] = { "rpg_threshold", 1, 31 },
	[SROCE_DCQCN_RPG_AI_RATE] = { "rpg_ai_rate", 1, 400000 },
	[SROCE_DCQCN_RPG_HAI_RATE] = { "rpg_hai_rate", 1, 400000 },
	[SROCE_DCQCN_RPG_GD] = { "rpg_gd", 1, 15 },
	[SROCE_DCQCN_RPG_MIN_DEC_FAC] = { "rpg_min_dec_fac", 1, 100 },
	[SROCE_DCQCN_RPG_MIN_RATE] = { "rpg_min_rate", 1, 400000 },
	[SROCE_DCQCN_RPG_MAX_RATE] = { "rpg_max_rate", 0, 400000 },
	[SROCE_DCQCN_RATE_TO_SET_ON_FIRST_CNP] = {
		"rate_to_set_on_first_cnp", 0, 400000 },
	[SROCE_DCQCN_CLAMP_TGT_RATE] = { "clamp_tgt_rate", 0, 1 },
	[SROCE_DCQCN_CLAMP_TGT_RATE_AFTER_TIME_INC] = {
		"clamp_tgt_rate_after_time_inc", 0, 1 },
	[SROCE_DCQCN_DCE_TCP_G] = { "dce_tcp_g", 0, 1023 },
	[SROCE_DCQCN_DCE_TCP_RTT] = { "dce_tcp_rtt", 1, 1000000 },
	[SROCE_DCQCN_RATE_REDUCE_MONITOR_PERIOD] = {
		"rate_reduce_monitor_period", 0, 1000000 },
	[SROCE_DCQCN_INITIAL_ALPHA_VALUE] = {
		"initial_alpha_value", 0, SROCE_DCQCN_ALPHA_ONE },
	[SROCE_DCQCN_MIN_TIME_BETWEEN_CNPS] = {
		"min_time_between_cnps", 0, 1000000 },
	[SROCE_DCQCN_CNP_DSCP] = { "cnp_dscp", 0, 63 },
	[SROCE_DCQCN_CNP_802P_PRIO] = { "cnp_802p_prio", 0, 7 },
};

#define OFF(f) offsetof(struct sroce_dcqcn_params, f)

static const size_t dcqcn_offset[SROCE_DCQCN_NPARAMS] = {
	[SROCE_DCQCN_RPG_TIME_RESET] = OFF(rpg_time_reset),
	[SROCE_DCQCN_RPG_BYTE_RESET] = OFF(rpg_byte_reset),
	[SROCE_DCQCN_RPG_THRESHOLD] = OFF(rpg_threshold),
	[SROCE_DCQCN_RPG_AI_RATE] = OFF(rpg_ai_rate),
	[SROCE_DCQCN_RPG_HAI_RATE] = OFF(rpg_hai_rate),
	[SROCE_DCQCN_RPG_GD] = OFF(rpg_gd),
	[SROCE_DCQCN_RPG_MIN_DEC_FAC] = OFF(rpg_min_dec_fac),
	[SROCE_DCQCN_RPG_MIN_RATE] = OFF(rpg_min_rate),
	[SROCE_DCQCN_RPG_MAX_RATE] = OFF(rpg_max_rate),
	[SROCE_DCQCN_RATE_TO_SET_ON_FIRST_CNP] = OFF(rate_to_set_on_first_cnp),
	[SROCE_DCQCN_CLAMP_TGT_RATE] = OFF(clamp_tgt_rate),
	[SROCE_DCQCN_CLAMP_TGT_RATE_AFTER_TIME_INC] =
		OFF(clamp_tgt_rate_after_time_inc),
	[SROCE_DCQCN_DCE_TCP_G] = OFF(dce_tcp_g),
	[SROCE_DCQCN_DCE_TCP_RTT] = OFF(dce_tcp_rtt),
	[SROCE_DCQCN_RATE_REDUCE_MONITOR_PERIOD] =
		OFF(rate_reduce_monitor_period),
	[SROCE_DCQCN_INITIAL_ALPHA_VALUE] = OFF(initial_alpha_value),
	[SROCE_DCQCN_MIN_TIME_BETWEEN_CNPS] = OFF(min_time_between_cnps),
	[SROCE_DCQCN_CNP_DSCP] = OFF(cnp_dscp),
	[SROCE_DCQCN_CNP_802P_PRIO] = OFF(cnp_802p_prio),
};

/**
 * sroce_dcqcn_defaults() - mlx5's defaults
 * @p: the parameters to fill
 *
 * The values ConnectX firmware ships with (Documentation/dcqcn.rst).
 */
void sroce_dcqcn_defaults(struct sroce_dcqcn_params *p)
{
	memset(p, 0, sizeof(*p));
	p->rpg_time_reset = 300;
	p->rpg_byte_reset = 32767;
	p->rpg_threshold = 1;
	p->rpg_ai_rate = 5;
	p->rpg_hai_rate = 50;
	p->rpg_gd = 11;
	p->rpg_min_dec_fac = 50;
	p->rpg_min_rate = 1;
	p->rpg_max_rate = 0;
	p->rate_to_set_on_first_cnp = 0;
	p->clamp_tgt_rate = 0;
	p->clamp_tgt_rate_after_time_inc = 1;
	p->dce_tcp_g = 1019;
	p->dce_tcp_rtt = 1;
	p->rate_reduce_monitor_period = 4;
	p->initial_alpha_value = 1023;
	p->min_time_between_cnps = 4;
	p->cnp_dscp = 48;
	p->cnp_802p_prio = 6;
}

/**
 * sroce_dcqcn_param() - one parameter, by number
 * @p: the parameters
 * @which: which one
 *
 * Return: the field of @p that @which names, NULL if @which is out of range.
 */
u32 *sroce_dcqcn_param(struct sroce_dcqcn_params *p,
		       enum sroce_dcqcn_param which)
{
	if ((u32)which >= SROCE_DCQCN_NPARAMS)
		return NULL;
	return (u32 *)((u8 *)p + dcqcn_offset[which]);
}

/**
 * sroce_dcqcn_param_check() - may @which be set to @val?
 * @p: the parameters as they are (assumed valid)
 * @which: the parameter to set
 * @val: its new value
 *
 * @val must lie within sroce_dcqcn_param_info[@which]'s bounds, and the
 * floor may not be above a cap: rpg_min_rate <= rpg_max_rate unless
 * rpg_max_rate is 0 (the line rate). rate_to_set_on_first_cnp is not held
 * to [rpg_min_rate, rpg_max_rate]: the cut that follows it keeps R_C within
 * both anyway.
 *
 * Return: 0 if it may, -22 (EINVAL) if not.
 */
int sroce_dcqcn_param_check(const struct sroce_dcqcn_params *p,
			    enum sroce_dcqcn_param which, u32 val)
{
	const struct sroce_dcqcn_param_info *info;

	if ((u32)which >= SROCE_DCQCN_NPARAMS)
		return -DCQCN_EINVAL;
	info = &sroce_dcqcn_param_info[which];
	if (val < info->min || val > info->max)
		return -DCQCN_EINVAL;
	if (which == SROCE_DCQCN_RPG_MIN_RATE && p->rpg_max_rate &&
	    val > p->rpg_max_rate)
		return -DCQCN_EINVAL;
	if (which == SROCE_DCQCN_RPG_MAX_RATE && val &&
	    p->rpg_min_rate > val)
		return -DCQCN_EINVAL;
	return 0;
}

/* A period in ns; periods that must not be 0 are taken as at least 1 µs. */
static u64 dcqcn_period(u32 us)
{
	return (us ? us : 1) * NS_PER_US;
}

static u32 dcqcn_min32(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* The floor, in kbit/s: rpg_min_rate, but never above line nor 0. */
static u32 dcqcn_floor(const struct sroce_dcqcn_rp *rp,
		       const struct sroce_dcqcn_params *p)
{
	u32 f = dcqcn_min32(p->rpg_min_rate * KBPS_PER_MBPS, rp->line);

	return f ? f : 1;
}

/**
 * sroce_dcqcn_rp_init() - a fresh reaction point
 * @rp: the RP to set up
 * @p: the parameters
 * @line_kbps: the QP's line rate, kbit/s (0 is taken as 1)
 * @now: now, ns
 *
 * The RP starts unlimited at line = @line_kbps, or rpg_max_rate if that is
 * lower and not 0; line stays what it is now for the RP's life. α starts at
 * 0: the first cut sets it to initial_alpha_value.
 */
void sroce_dcqcn_rp_init(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_params *p, u32 line_kbps,
			 u64 now)
{
	u32 line = line_kbps ? line_kbps : 1;

	memset(rp, 0, sizeof(*rp));
	if (p->rpg_max_rate)
		line = dcqcn_min32(p->rpg_max_rate * KBPS_PER_MBPS, line);
	rp->line = line;
	rp->rc = line;
	rp->rt = line;
	rp->t_alpha = now + dcqcn_period(p->dce_tcp_rtt);
	rp->t_inc = now + dcqcn_period(p->rpg_time_reset);
	rp->t_cut = now;
}

/*
 * Play the α periods that end at or before @t. Without a CNP to count, α
 * only falls (by at least 1 a period while g < 1024), so this loops at
 * most ALPHA_ONE + 1 times before α is fixed and the rest is skipped.
 */
static void dcqcn_alpha_to(struct sroce_dcqcn_rp *rp,
			   const struct sroce_dcqcn_params *p, u64 t)
{
	u64 period = dcqcn_period(p->dce_tcp_rtt);
	u32 g = dcqcn_min32(p->dce_tcp_g, SROCE_DCQCN_ALPHA_ONE);
	u64 a;

	while (rp->t_alpha <= t) {
		if (!rp->cnp_in_period &&
		    (!rp->alpha || g == SROCE_DCQCN_ALPHA_ONE)) {
			/* α stays as it is: to the first period after @t */
			rp->t_alpha += ((t - rp->t_alpha) / period + 1) * period;
			return;
		}
		a = ((u64)rp->alpha * g) >> 10;
		if (rp->cnp_in_period)
			a += SROCE_DCQCN_ALPHA_ONE - g;
		rp->alpha = dcqcn_min32(a, SROCE_DCQCN_ALPHA_ONE);
		rp->cnp_in_period = false;
		rp->t_alpha += period;
	}
}

/* The cut at @t (the α periods up to @t already played). */
static void dcqcn_cut(struct sroce_dcqcn_rp *rp,
		      const struct sroce_dcqcn_params *p, u64 t)
{
	bool first = !rp->limited;
	u32 gd = dcqcn_min32(p->rpg_gd, 63);
	u32 keep = dcqcn_min32(p->rpg_min_dec_fac, 100);
	u64 by_alpha, by_fac;
	u32 floor = dcqcn_floor(rp, p);

	if (first) {
		rp->alpha = dcqcn_min32(p->initial_alpha_value,
					SROCE_DCQCN_ALPHA_ONE);
		if (p->rate_to_set_on_first_cnp)
			rp->rc = dcqcn_min32(p->rate_to_set_on_first_cnp *
					     KBPS_PER_MBPS, rp->line);
	}
	if (first || p->clamp_tgt_rate ||
	    (p->clamp_tgt_rate_after_time_inc && rp->tc > 0))
		rp->rt = rp->rc;
	by_alpha = ((u64)rp->rc * rp->alpha) >> gd;
	by_fac = (u64)rp->rc * (100 - keep) / 100;
	rp->rc -= dcqcn_min32(by_alpha, by_fac);
	if (rp->rc < floor)
		rp->rc = floor;
	if (rp->rc > rp->line)
		rp->rc = rp->line;
	if (rp->rt < rp->rc)
		rp->rt = rp->rc;
	rp->limited = true;
	rp->tc = 0;
	rp->bc = 0;
	rp->bytes = 0;
	rp->t_inc = t + dcqcn_period(p->rpg_time_reset);
	rp->t_cut = t + (u64)p->rate_reduce_monitor_period * NS_PER_US;
	rp->cuts++;
}

/* T_c and BC stop at U32_MAX rather than wrap to a lower stage. */
static void dcqcn_count(u32 *c, u64 n)
{
	u64 v = *c + n;

	*c = v > 0xffffffffull ? 0xffffffffu : v;
}

/*
 * Play up to @n increase events of one kind (@timer: the timer, else the
 * byte counter), while the RP stays limited. Return: how many were played.
 *
 * Once this kind's counter is above F the stage no longer changes, so each
 * event adds the same step d to R_T; the gap e = R_T − R_C then goes to
 * floor((e + d)/2), which within ~32 events reaches a fixed point (d or
 * d − 1). From there on, as long as R_T + d stays within line, an event
 * moves R_T and R_C up by d each: a run of them is played at once.
 */
static u64 dcqcn_increase(struct sroce_dcqcn_rp *rp,
			  const struct sroce_dcqcn_params *p, bool timer,
			  u64 n)
{
	u32 *own = timer ? &rp->tc : &rp->bc;
	u32 other = timer ? rp->bc : rp->tc;
	u32 f = p->rpg_threshold;
	u64 done = 0, d, e, j;

	while (done < n && rp->limited) {
		if ((*own < other ? *own : other) > f)
			d = p->rpg_hai_rate * KBPS_PER_MBPS;
		else if ((*own > other ? *own : other) >= f)
			d = p->rpg_ai_rate * KBPS_PER_MBPS;
		else
			d = 0;
		e = rp->rt - rp->rc;
		if (*own > f && e == (e + d) / 2) {
			/* settled: a run of events that stay within line */
			j = d ? (rp->line - rp->rt) / d : n - done;
			if (j > n - done)
				j = n - done;
			if (j) {
				rp->rt += j * d;
				rp->rc = rp->rt - e;
				dcqcn_count(own, j);
				rp->increases += j;
				done += j;
				if (rp->rc >= rp->line)
					rp->limited = false;
				continue;
			}
		}
		rp->rt = dcqcn_min32(rp->rt + d, rp->line);
		rp->rc = ((u64)rp->rt + rp->rc + 1) / 2;
		dcqcn_count(own, 1);
		rp->increases++;
		done++;
		if (rp->rc >= rp->line)
			rp->limited = false;
	}
	return done;
}

/**
 * sroce_dcqcn_rp_advance() - play the events due
 * @rp: the RP
 * @p: the parameters
 * @now: now, ns
 *
 * Plays, in time order, every α update, deferred cut and increase-timer
 * event due at or before @now. The work is bounded whatever the gap since
 * the last call.
 */
void sroce_dcqcn_rp_advance(struct sroce_dcqcn_rp *rp,
			    const struct sroce_dcqcn_params *p, u64 now)
{
	u64 period = dcqcn_period(p->rpg_time_reset);
	bool cut_due, inc_due;
	u64 end, n;

	for (;;) {
		cut_due = rp->cut_pending && rp->t_cut <= now;
		inc_due = rp->limited && rp->t_inc <= now;
		if (cut_due && (!inc_due || rp->t_cut <= rp->t_inc)) {
			dcqcn_alpha_to(rp, p, rp->t_cut);
			rp->cut_pending = false;
			dcqcn_cut(rp, p, rp->t_cut);
			continue;
		}
		if (!inc_due)
			break;
		/* the timer events before the deferred cut, or up to @now */
		end = cut_due ? rp->t_cut - 1 : now;
		n = (end - rp->t_inc) / period + 1;
		rp->t_inc += dcqcn_increase(rp, p, true, n) * period;
	}
	dcqcn_alpha_to(rp, p, now);
}

/**
 * sroce_dcqcn_rp_cnp() - a CNP for this QP
 * @rp: the RP
 * @p: the parameters
 * @now: when it came, ns
 *
 * Advances to @now, marks the current α period, and cuts the rate if the
 * last cut is rate_reduce_monitor_period old; otherwise the cut is made
 * once, by a later call, when that period ends.
 *
 * Return: true if the rate was cut now.
 */
bool sroce_dcqcn_rp_cnp(struct sroce_dcqcn_rp *rp,
			const struct sroce_dcqcn_params *p, u64 now)
{
	sroce_dcqcn_rp_advance(rp, p, now);
	rp->cnp_in_period = true;
	if (now < rp->t_cut) {
		rp->cut_pending = true;
		return false;
	}
	dcqcn_cut(rp, p, now);
	return true;
}

/**
 * sroce_dcqcn_rp_sent() - bytes left the QP
 * @rp: the RP
 * @p: the parameters
 * @bytes: how many (on the wire)
 * @now: when, ns
 *
 * Advances to @now; then, if the QP is limited, counts @bytes and plays a
 * byte-counter event for every rpg_byte_reset of them. Bytes sent while
 * unlimited are not counted.
 */
void sroce_dcqcn_rp_sent(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_params *p, u32 bytes,
			 u64 now)
{
	u32 b = p->rpg_byte_reset ? p->rpg_byte_reset : 1;
	u64 total;

	sroce_dcqcn_rp_advance(rp, p, now);
	if (!rp->limited)
		return;
	total = (u64)rp->bytes + bytes;
	rp->bytes = total % b;
	dcqcn_increase(rp, p, false, total / b);
}

/**
 * sroce_dcqcn_pace() - the pacer: when may the next packet leave?
 * @next: the QP's earliest send time for the packet after this one (ns)
 * @now: now (ns)
 * @bytes: this packet's bytes on the wire
 * @kbps: the rate; 0 = unpaced
 *
 * A packet of @bytes takes d = @bytes·8·10^6 / @kbps ns, rounded up so
 * that the rate is never exceeded. A QP that was idle may count at most one
 * packet's time of the past as credit: the packet starts at max(@next,
 * @now − d), 0 if d is more than @now.
 *
 * Return: that start + d (at most U64_MAX); @now when @kbps is 0.
 */
u64 sroce_dcqcn_pace(u64 next, u64 now, u32 bytes, u32 kbps)
{
	u64 d, start;

	if (!kbps)
		return now;
	d = ((u64)bytes * 8 * 1000000 + kbps - 1) / kbps;
	start = now > d ? now - d : 0;
	if (next > start)
		start = next;
	return start > ~0ull - d ? ~0ull : start + d;
}
