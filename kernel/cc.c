// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cc.c: DCQCN glue (Documentation/dcqcn.rst).
 *
 * ECN: every packet a QP sends carries the ECN codepoint of the `ecn` knob
 * (ECT(0) by default) with the DSCP of its traffic class.
 *
 * Notification point: a CE-marked packet for a connected QP that has a
 * peer makes the QP send a CNP to its peer QP, at most one per
 * min_time_between_cnps; from the softirq that received the packet.
 *
 * Reaction point: a CNP for an RC or UC QP in RTR, RTS or SQD cuts the
 * QP's rate (core/dcqcn.c, under the QP's cc.lock). One schedule paces all
 * the data a QP sends, as a NIC's per-QP rate limiter does: the requester
 * asks sroce_cc_may_send() before each request packet, the responder
 * sroce_cc_resp_may_send() before each READ response, and both tell
 * sroce_cc_sent() the size after. While the QP is limited, packets are
 * spaced at its rate; a soft hrtimer (holding a QP reference) resumes the
 * requester when the next one may go, and the responder's own timer its
 * tasklet. ACKs, NAKs and atomic responses are not paced.
 *
 * Knobs: /sys/class/infiniband/<dev>/cc/, one file per parameter; a write
 * is checked whole, then the device's configuration is replaced by a
 * copy (RCU), so a reader sees either the old or the new one.
 */
#include <linux/ethtool.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib_mad.h>
#include <rdma/restrack.h>

#include "av.h"
#include "cc.h"
#include "core/hdr.h"
#include "core/icrc.h"
#include "counters.h"
#include "device.h"
#include "qp.h"
#include "req.h"
#include "xmit.h"

#define CREATE_TRACE_POINTS
#include "cc_trace.h"

/* When the netdev does not say. */
#define SROCE_CC_DEFAULT_LINE_KBPS	(10U * 1000 * 1000)

/*
 * How far behind its schedule a paced QP may catch up at once: timers fire
 * late (a virtual machine's by milliseconds), and a pacer that forgot the
 * lost time would run below its rate. At most 16 KiB: more, and a few
 * QPs catching up at once fill a switch queue.
 */
#define SROCE_CC_BURST_BYTES	(16 * 1024)

/*
 * CNPs a device sends to UD sources, a second at most. A UD datagram's
 * source address and QP are whatever its sender wrote: answered without
 * a bound, CE-marked datagrams with forged sources would aim the
 * device's CNPs at any host (min_time_between_cnps spaces one QP's, and
 * may be 0).
 */
#define SROCE_CC_UD_CNPS	1000

static struct sroce_cc_conf *sroce_cc_conf(struct sroce_dev *sdev)
{
	return rcu_dereference(sdev->cc.conf);
}

int sroce_cc_dev_init(struct sroce_dev *sdev)
{
	struct sroce_cc_conf *conf = kzalloc(sizeof(*conf), GFP_KERNEL);

	mutex_init(&sdev->cc.lock);
	sdev->cc.line_kbps = SROCE_CC_DEFAULT_LINE_KBPS;
	ratelimit_state_init(&sdev->cc.ud_cnps, HZ, SROCE_CC_UD_CNPS);
	ratelimit_set_flags(&sdev->cc.ud_cnps, RATELIMIT_MSG_ON_RELEASE);
	if (!conf)
		return -ENOMEM;
	conf->rp = true;
	conf->np = true;
	conf->ecn = SROCE_CC_ECN_ECT0;
	sroce_dcqcn_defaults(&conf->p);
	RCU_INIT_POINTER(sdev->cc.conf, conf);
	return 0;
}

/* No reader is left. */
void sroce_cc_dev_fini(struct sroce_dev *sdev)
{
	kfree(rcu_dereference_protected(sdev->cc.conf, true));
	RCU_INIT_POINTER(sdev->cc.conf, NULL);
	mutex_destroy(&sdev->cc.lock);
}

/* The netdev's speed is the QPs' line rate; under RTNL. */
void sroce_cc_line_update(struct sroce_dev *sdev)
{
	struct ethtool_link_ksettings ks = {};
	u32 kbps = SROCE_CC_DEFAULT_LINE_KBPS;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(sdev->ndev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed &&
	    ks.base.speed <= U32_MAX / 1000)
		kbps = ks.base.speed * 1000;
	WRITE_ONCE(sdev->cc.line_kbps, kbps);
}

/**
 * sroce_cc_tclass() - the IP traffic class of a QP's packet
 * @sdev: the device
 * @traffic_class: the address vector's (DSCP and ECN bits)
 *
 * Bottom halves off, as for every packet sent: that is an RCU read-side
 * section, for which kfree_rcu() of the old knobs waits, without the two
 * calls of rcu_read_lock() and rcu_read_unlock() per packet.
 *
 * Return: the DSCP as given, with the ECN bits of the `ecn` knob.
 */
u8 sroce_cc_tclass(struct sroce_dev *sdev, u8 traffic_class)
{
	u8 ecn = rcu_dereference_bh(sdev->cc.conf)->ecn;

	if (ecn == SROCE_CC_ECN_AS_GIVEN)
		return traffic_class;
	return (traffic_class & ~INET_ECN_MASK) | ecn;
}

/* Bytes a packet takes on the link: ICRC, UDP, IP and Ethernet added. */
static u32 sroce_cc_wire_bytes(const struct sroce_av *av, unsigned int len)
{
	return len + SROCE_ICRC_BYTES + sizeof(struct udphdr) +
	       (av->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       ETH_HLEN;
}

/*
 * The rate to pace a QP at, kbit/s, 0 for none: its DCQCN rate while cut,
 * else rpg_max_rate when that is below the line rate.
 */
static u32 sroce_cc_rate(struct sroce_dev *sdev,
			 const struct sroce_dcqcn_rp *rp)
{
	u32 rate = sroce_dcqcn_rp_rate(rp);

	if (!rate && rp->line < READ_ONCE(sdev->cc.line_kbps))
		rate = rp->line;
	return rate;
}

/*
 * Has the QP nothing to pace or count: at its line rate, no cut waiting?
 * Then a packet needs neither cq->lock nor the clock (which the test VM
 * reads from an emulated HPET). Read without the lock: a CNP racing with
 * it takes effect from the next packet on, as it would a moment later
 * anyway. α catches up when next needed: core/dcqcn.c plays every event
 * due, however long ago.
 */
static bool sroce_cc_at_line(struct sroce_dev *sdev,
			     const struct sroce_cc_qp *cq)
{
	return !READ_ONCE(cq->rp.limited) && !READ_ONCE(cq->rp.cut_pending) &&
	       READ_ONCE(cq->rp.line) >= READ_ONCE(sdev->cc.line_kbps);
}

/* May the QP send a packet now? If not, *@when is when it may. */
static bool sroce_cc_pace_ok(struct sroce_dev *sdev, struct sroce_cc_qp *cq,
			     u64 *when)
{
	bool ok = true;

	if (sroce_cc_at_line(sdev, cq))
		return true;
	spin_lock(&cq->lock);
	if (sroce_cc_rate(sdev, &cq->rp)) {
		rcu_read_lock();
		ok = !sroce_cc_conf(sdev)->rp || ktime_get_ns() >= cq->next_ns;
		rcu_read_unlock();
		*when = cq->next_ns;
	}
	spin_unlock(&cq->lock);
	return ok;
}

static enum hrtimer_restart sroce_cc_pacer_fire(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, cc.pacer);
	bool failed = false;

	spin_lock(&qp->sq_lock);
	qp->cc.armed = false;
	if (!qp->req.dying && READ_ONCE(qp->state) == IB_QPS_RTS)
		failed = sroce_req_resume(qp);
	spin_unlock(&qp->sq_lock);
	if (failed)
		sroce_qp_error(qp);
	sroce_qp_put(qp);
	return HRTIMER_NORESTART;
}

/* A new QP. */
void sroce_cc_qp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->cc.lock);
	hrtimer_init(&qp->cc.pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.pacer.function = sroce_cc_pacer_fire;
	atomic64_set(&qp->cc.last_cnp_ns, 0);
}

/**
 * sroce_cc_qp_start() - an RC, UC or UD QP enters RTR: unlimited
 * @qp: the QP; qp->lock held
 *
 * From RTR on, an RC QP may send READ responses, which its rate paces.
 */
void sroce_cc_qp_start(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

	spin_lock(&qp->cc.lock);
	rcu_read_lock();
	sroce_dcqcn_rp_init(&qp->cc.rp, &sroce_cc_conf(sdev)->p,
			    READ_ONCE(sdev->cc.line_kbps), ktime_get_ns());
	rcu_read_unlock();
	qp->cc.next_ns = 0;
	spin_unlock(&qp->cc.lock);
}

/**
 * sroce_cc_qp_stop() - the QP is being destroyed: stop the pacer for good
 * @qp: the QP; qp->req.dying is set (no more arming); no lock held
 */
void sroce_cc_qp_stop(struct sroce_qp *qp)
{
	if (hrtimer_cancel(&qp->cc.pacer))
		sroce_qp_put(qp);
}

/**
 * sroce_cc_may_send() - may the requester send its next packet now?
 * @qp: an RC, UC or UD QP; sq_lock held
 *
 * Return: true, or false with the pacer armed to resume the requester.
 */
bool sroce_cc_may_send(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_cc_qp *cq = &qp->cc;
	u64 when;

	if (sroce_cc_pace_ok(sdev, cq, &when))
		return true;
	if (!cq->armed && !qp->req.dying) {
		cq->armed = true;
		kref_get(&qp->ref);
		hrtimer_start(&cq->pacer, ns_to_ktime(when),
			      HRTIMER_MODE_ABS_SOFT);
		sroce_count(&sdev->counters, SROCE_CNT_RP_PACED);
	}
	return false;
}

/**
 * sroce_cc_resp_may_send() - may the responder send its next READ response?
 * @qp: an RC QP; resp_lock held
 * @when: set, when the answer is no, to when it may
 *
 * Return: true, or false; the responder then arms its own timer.
 */
bool sroce_cc_resp_may_send(struct sroce_qp *qp, u64 *when)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

	if (sroce_cc_pace_ok(sdev, &qp->cc, when))
		return true;
	sroce_count(&sdev->counters, SROCE_CNT_RP_PACED);
	return false;
}

static void sroce_cc_trace_rate(struct sroce_qp *qp, u32 old_rc,
				bool was_limited, bool cut)
{
	const struct sroce_dcqcn_rp *rp = &qp->cc.rp;

	if (rp->rc != old_rc || rp->limited != was_limited)
		trace_sroce_cc_rate(dev_name(&qp->ibqp.device->dev),
				    qp->ibqp.qp_num, rp, cut);
}

/**
 * sroce_cc_sent() - a request packet or a READ response left the QP
 * @qp: the QP; sq_lock or resp_lock held
 * @av: its address vector
 * @len: its transport bytes (BTH to pad)
 */
void sroce_cc_sent(struct sroce_qp *qp, const struct sroce_av *av,
		   unsigned int len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_cc_qp *cq = &qp->cc;
	u32 bytes = sroce_cc_wire_bytes(av, len);
	u32 old_rc, old_inc, rate;
	bool was_limited;
	u64 now;

	if (sroce_cc_at_line(sdev, cq))
		return;
	rcu_read_lock();
	if (!sroce_cc_conf(sdev)->rp) {
		rcu_read_unlock();
		return;
	}
	spin_lock(&cq->lock);
	old_rc = cq->rp.rc;
	old_inc = cq->rp.increases;
	was_limited = cq->rp.limited;
	now = ktime_get_ns();
	sroce_dcqcn_rp_sent(&cq->rp, &sroce_cc_conf(sdev)->p, bytes, now);
	rate = sroce_cc_rate(sdev, &cq->rp);
	if (rate) {
		u64 credit = SROCE_CC_BURST_BYTES * 8ULL * 1000000 / rate;

		cq->next_ns = sroce_dcqcn_pace(cq->next_ns,
					       now - min(now, credit), bytes,
					       rate);
	}
	if (cq->rp.increases != old_inc)
		sroce_count_add(&sdev->counters, SROCE_CNT_RP_RATE_INCREASES,
				cq->rp.increases - old_inc);
	sroce_cc_trace_rate(qp, old_rc, was_limited, false);
	spin_unlock(&cq->lock);
	rcu_read_unlock();
}

/* Does the IP header say Congestion Experienced? */
bool sroce_cc_skb_ce(const struct sk_buff *skb)
{
	u8 ds = skb->protocol == htons(ETH_P_IPV6) ?
		ipv6_get_dsfield(ipv6_hdr(skb)) : ip_hdr(skb)->tos;

	return INET_ECN_is_ce(ds);
}

static void sroce_cc_send_cnp(struct sroce_dev *sdev, struct sroce_qp *qp,
			      const struct sroce_av *to, u32 dqpn,
			      const struct sroce_cc_conf *conf)
{
	struct sroce_av av = *to;
	struct sk_buff *skb;
	u8 ecn;

	skb = sroce_skb_alloc(sdev, &av, SROCE_CNP_BYTES, GFP_ATOMIC);
	if (!skb)
		return;
	sroce_cnp_build(skb->data, IB_DEFAULT_PKEY_FULL, dqpn);
	ecn = conf->ecn ? conf->ecn : (av.traffic_class & INET_ECN_MASK);
	av.traffic_class = (conf->p.cnp_dscp << 2) | ecn;
	skb->priority = conf->p.cnp_802p_prio;
	if (sroce_xmit(sdev, &av, av.traffic_class,
		       sroce_sport(qp->ibqp.qp_num), NULL, skb, NULL))
		return;
	sroce_count(&sdev->counters, SROCE_CNT_NP_CNP_SENT);
	trace_sroce_cnp_sent(dev_name(&sdev->ibdev.dev), qp->ibqp.qp_num,
			     dqpn);
}

/*
 * The notification point of @qp: send QP @dqpn at @to a CNP unless @qp
 * sent one less than min_time_between_cnps ago, or, for a UD source
 * (@ud: nobody checked @to), the device sent its SROCE_CC_UD_CNPS of the
 * last second. Softirq.
 */
static void sroce_cc_np(struct sroce_dev *sdev, struct sroce_qp *qp,
			const struct sroce_av *to, u32 dqpn, bool ud)
{
	struct sroce_cc_conf *conf;
	u64 now, last;

	rcu_read_lock();
	conf = sroce_cc_conf(sdev);
	if (!conf->np)
		goto out;
	now = ktime_get_ns();
	last = atomic64_read(&qp->cc.last_cnp_ns);
	if (last && !sroce_dcqcn_np_may_send(last, true, now, &conf->p))
		goto out;
	if (atomic64_cmpxchg(&qp->cc.last_cnp_ns, last, now) != last)
		goto out;	/* another CPU sends this one */
	if (ud && !__ratelimit(&sdev->cc.ud_cnps))
		sroce_count(&sdev->counters, SROCE_CNT_NP_CNP_LIMITED);
	else
		sroce_cc_send_cnp(sdev, qp, to, dqpn, conf);
out:
	rcu_read_unlock();
}

/**
 * sroce_cc_rcv_ce() - a CE-marked packet for a connected QP
 * @sdev: the device
 * @qp: the QP, from the peer's address (checked)
 *
 * Softirq. Sends the peer QP a CNP unless this QP sent one less than
 * min_time_between_cnps ago. The peer's path is read under resp_lock,
 * under which modify_qp changes it.
 */
void sroce_cc_rcv_ce(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	enum ib_qp_state state;
	struct sroce_av av;
	u32 dqpn;

	spin_lock(&qp->resp_lock);
	state = READ_ONCE(qp->state);
	av = qp->av;
	dqpn = qp->dest_qpn;
	spin_unlock(&qp->resp_lock);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD)
		return;
	sroce_cc_np(sdev, qp, &av, dqpn, false);
}

/**
 * sroce_cc_rcv_ce_ud() - a CE-marked datagram that a UD QP accepted
 * @sdev: the device
 * @qp: the UD QP (RTR or RTS, the Q_Key right)
 * @skb: the datagram, at its UDP header
 * @sqpn: its source QP (DETH)
 *
 * Softirq. Sends the source QP, at the datagram's source address, a CNP
 * unless this QP sent one (to any source) less than min_time_between_cnps
 * ago, or the device sent SROCE_CC_UD_CNPS to UD sources in the last
 * second (counted in np_cnp_limited).
 */
void sroce_cc_rcv_ce_ud(struct sroce_dev *sdev, struct sroce_qp *qp,
			const struct sk_buff *skb, u32 sqpn)
{
	struct sroce_av av = {};

	if (skb->protocol == htons(ETH_P_IPV6)) {
		av.ipv6 = true;
		av.saddr = ipv6_hdr(skb)->daddr;
		av.daddr = ipv6_hdr(skb)->saddr;
	} else {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &av.saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &av.daddr);
	}
	sroce_cc_np(sdev, qp, &av, sqpn, true);
}

/**
 * sroce_cc_rcv_cnp() - a CNP for a QP
 * @sdev: the device
 * @qp: the QP it names, from its peer's address if connected (checked)
 *
 * Softirq. An RC, UC or UD QP in RTR, RTS or SQD (an RC QP answers READs
 * in RTR too) with the reaction point on cuts its rate; every other CNP
 * (the GSI QP's) is counted as ignored.
 */
void sroce_cc_rcv_cnp(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	struct sroce_cc_qp *cq = &qp->cc;
	bool handled = false, cut = false, was_limited;
	enum ib_qp_state state;
	u32 old_rc;

	rcu_read_lock();
	spin_lock(&cq->lock);
	state = READ_ONCE(qp->state);
	if (sroce_cc_conf(sdev)->rp && sroce_qp_has_cc(qp) &&
	    (state == IB_QPS_RTR || state == IB_QPS_RTS ||
	     state == IB_QPS_SQD) && !READ_ONCE(qp->dying)) {
		old_rc = cq->rp.rc;
		was_limited = cq->rp.limited;
		cut = sroce_dcqcn_rp_cnp(&cq->rp, &sroce_cc_conf(sdev)->p,
					 ktime_get_ns());
		handled = true;
		sroce_cc_trace_rate(qp, old_rc, was_limited, cut);
	}
	spin_unlock(&cq->lock);
	rcu_read_unlock();
	sroce_count(&sdev->counters, handled ? SROCE_CNT_RP_CNP_HANDLED :
		    SROCE_CNT_RP_CNP_IGNORED);
	if (cut)
		sroce_count(&sdev->counters, SROCE_CNT_RP_RATE_CUTS);
	trace_sroce_cnp_recv(dev_name(&sdev->ibdev.dev), qp->ibqp.qp_num,
			     handled);
}

/* `rdma resource show qp`: the rate control of a QP. */
int sroce_cc_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct nlattr *table;
	u32 rc, rt, alpha;
	bool limited;

	if (!sroce_qp_has_cc(qp))
		return 0;
	spin_lock_bh(&qp->cc.lock);
	limited = qp->cc.rp.limited;
	rc = qp->cc.rp.rc;
	rt = qp->cc.rp.rt;
	alpha = qp->cc.rp.alpha;
	spin_unlock_bh(&qp->cc.lock);
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cc_limited", limited) ||
	    rdma_nl_put_driver_u32(msg, "cc_rate_kbps", rc) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_kbps", rt) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha", alpha)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/* The knobs. */

struct sroce_cc_attr {
	struct device_attribute attr;
	int which;		/* enum sroce_dcqcn_param, or below */
};

#define SROCE_CC_ENABLE_RP	(-1)
#define SROCE_CC_ENABLE_NP	(-2)
#define SROCE_CC_ECN		(-3)

static u32 sroce_cc_get(const struct sroce_cc_conf *conf, int which)
{
	switch (which) {
	case SROCE_CC_ENABLE_RP:
		return conf->rp;
	case SROCE_CC_ENABLE_NP:
		return conf->np;
	case SROCE_CC_ECN:
		return conf->ecn;
	default:
		return *sroce_dcqcn_param((struct sroce_dcqcn_params *)&conf->p,
					  which);
	}
}

static ssize_t sroce_cc_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(dev, struct sroce_dev,
							   ibdev);
	struct sroce_cc_attr *ca = container_of(a, struct sroce_cc_attr, attr);
	u32 val;

	rcu_read_lock();
	val = sroce_cc_get(sroce_cc_conf(sdev), ca->which);
	rcu_read_unlock();
	return sysfs_emit(buf, "%u\n", val);
}

/* Check @val for @which against @conf and set it there; 0 or -EINVAL. */
static int sroce_cc_set(struct sroce_cc_conf *conf, int which, u32 val)
{
	switch (which) {
	case SROCE_CC_ENABLE_RP:
	case SROCE_CC_ENABLE_NP:
		if (val > 1)
			return -EINVAL;
		if (which == SROCE_CC_ENABLE_RP)
			conf->rp = val;
		else
			conf->np = val;
		return 0;
	case SROCE_CC_ECN:
		if (val > SROCE_CC_ECN_ECT0)
			return -EINVAL;
		conf->ecn = val;
		return 0;
	default:
		if (sroce_dcqcn_param_check(&conf->p, which, val))
			return -EINVAL;
		*sroce_dcqcn_param(&conf->p, which) = val;
		return 0;
	}
}

static ssize_t sroce_cc_store(struct device *dev, struct device_attribute *a,
			      const char *buf, size_t count)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(dev, struct sroce_dev,
							   ibdev);
	struct sroce_cc_attr *ca = container_of(a, struct sroce_cc_attr, attr);
	struct sroce_cc_conf *old, *new;
	u32 val;
	int err;

	err = kstrtou32(buf, 0, &val);
	if (err)
		return err;
	mutex_lock(&sdev->cc.lock);
	old = rcu_dereference_protected(sdev->cc.conf,
					lockdep_is_held(&sdev->cc.lock));
	new = kmemdup(old, sizeof(*old), GFP_KERNEL);
	if (!new) {
		err = -ENOMEM;
		goto out;
	}
	err = sroce_cc_set(new, ca->which, val);
	if (err) {
		kfree(new);
		goto out;
	}
	rcu_assign_pointer(sdev->cc.conf, new);
	kfree_rcu(old, rcu);
out:
	mutex_unlock(&sdev->cc.lock);
	return err ?: count;
}

#define SROCE_CC_ATTR(_name, _which)					\
	static struct sroce_cc_attr sroce_cc_attr_##_name = {		\
		.attr = __ATTR(_name, 0644, sroce_cc_show, sroce_cc_store), \
		.which = _which,					\
	}
#define SROCE_CC_PARAM(_name, _enum)					\
	SROCE_CC_ATTR(_name, SROCE_DCQCN_##_enum)

SROCE_CC_ATTR(enable_rp, SROCE_CC_ENABLE_RP);
SROCE_CC_ATTR(enable_np, SROCE_CC_ENABLE_NP);
SROCE_CC_ATTR(ecn, SROCE_CC_ECN);
SROCE_CC_PARAM(rpg_time_reset, RPG_TIME_RESET);
SROCE_CC_PARAM(rpg_byte_reset, RPG_BYTE_RESET);
SROCE_CC_PARAM(rpg_threshold, RPG_THRESHOLD);
SROCE_CC_PARAM(rpg_ai_rate, RPG_AI_RATE);
SROCE_CC_PARAM(rpg_hai_rate, RPG_HAI_RATE);
SROCE_CC_PARAM(rpg_gd, RPG_GD);
SROCE_CC_PARAM(rpg_min_dec_fac, RPG_MIN_DEC_FAC);
SROCE_CC_PARAM(rpg_min_rate, RPG_MIN_RATE);
SROCE_CC_PARAM(rpg_max_rate, RPG_MAX_RATE);
SROCE_CC_PARAM(rate_to_set_on_first_cnp, RATE_TO_SET_ON_FIRST_CNP);
SROCE_CC_PARAM(clamp_tgt_rate, CLAMP_TGT_RATE);
SROCE_CC_PARAM(clamp_tgt_rate_after_time_inc, CLAMP_TGT_RATE_AFTER_TIME_INC);
SROCE_CC_PARAM(dce_tcp_g, DCE_TCP_G);
SROCE_CC_PARAM(dce_tcp_rtt, DCE_TCP_RTT);
SROCE_CC_PARAM(rate_reduce_monitor_period, RATE_REDUCE_MONITOR_PERIOD);
SROCE_CC_PARAM(initial_alpha_value, INITIAL_ALPHA_VALUE);
SROCE_CC_PARAM(min_time_between_cnps, MIN_TIME_BETWEEN_CNPS);
SROCE_CC_PARAM(cnp_dscp, CNP_DSCP);
SROCE_CC_PARAM(cnp_802p_prio, CNP_802P_PRIO);

static struct attribute *sroce_cc_attrs[] = {
	&sroce_cc_attr_enable_rp.attr.attr,
	&sroce_cc_attr_enable_np.attr.attr,
	&sroce_cc_attr_ecn.attr.attr,
	&sroce_cc_attr_rpg_time_reset.attr.attr,
	&sroce_cc_attr_rpg_byte_reset.attr.attr,
	&sroce_cc_attr_rpg_threshold.attr.attr,
	&sroce_cc_attr_rpg_ai_rate.attr.attr,
	&sroce_cc_attr_rpg_hai_rate.attr.attr,
	&sroce_cc_attr_rpg_gd.attr.attr,
	&sroce_cc_attr_rpg_min_dec_fac.attr.attr,
	&sroce_cc_attr_rpg_min_rate.attr.attr,
	&sroce_cc_attr_rpg_max_rate.attr.attr,
	&sroce_cc_attr_rate_to_set_on_first_cnp.attr.attr,
	&sroce_cc_attr_clamp_tgt_rate.attr.attr,
	&sroce_cc_attr_clamp_tgt_rate_after_time_inc.attr.attr,
	&sroce_cc_attr_dce_tcp_g.attr.attr,
	&sroce_cc_attr_dce_tcp_rtt.attr.attr,
	&sroce_cc_attr_rate_reduce_monitor_period.attr.attr,
	&sroce_cc_attr_initial_alpha_value.attr.attr,
	&sroce_cc_attr_min_time_between_cnps.attr.attr,
	&sroce_cc_attr_cnp_dscp.attr.attr,
	&sroce_cc_attr_cnp_802p_prio.attr.attr,
	NULL
};

const struct attribute_group sroce_cc_group = {
	.name = "cc",
	.attrs = sroce_cc_attrs,
};
