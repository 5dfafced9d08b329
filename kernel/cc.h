/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cc.h: DCQCN congestion control glue: ECN marking, the notification point
 * (CNPs for CE-marked packets), the reaction point (per-QP rate, paced by
 * a high-resolution timer) and the knobs under
 * /sys/class/infiniband/<dev>/cc/. The arithmetic is in core/dcqcn.c.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>

#include "core/dcqcn.h"

struct sroce_dev;
struct sroce_qp;
struct sroce_av;

/* ECN codepoints for the `ecn` knob (RFC 3168). */
#define SROCE_CC_ECN_AS_GIVEN	0	/* the traffic class's own bits */
#define SROCE_CC_ECN_ECT1	1
#define SROCE_CC_ECN_ECT0	2

/* One device's knobs; replaced whole (RCU) on every write. */
struct sroce_cc_conf {
	struct rcu_head rcu;
	bool rp;			/* enable_rp */
	bool np;			/* enable_np */
	u8 ecn;				/* ECN bits of the packets sent */
	struct sroce_dcqcn_params p;
};

struct sroce_cc_dev {
	struct sroce_cc_conf __rcu *conf;
	struct mutex lock;		/* writers of conf */
	u32 line_kbps;			/* the netdev's speed; RTNL writes */
	struct ratelimit_state ud_cnps;	/* CNPs to UD sources */
};

/*
 * One QP's congestion control. The reaction point and the pacer's
 * schedule are shared by the requester (requests) and the responder (READ
 * responses), under @lock, a leaf lock taken with bottom halves off. The
 * requester's timer and @armed are under qp->sq_lock; the responder has
 * its own timer (rcresp.h). The notification point is lock-free.
 */
struct sroce_cc_qp {
	spinlock_t lock;		/* rp, next_ns */
	struct sroce_dcqcn_rp rp;
	u64 next_ns;			/* the pacer: earliest next packet */
	struct hrtimer pacer;		/* armed: holds a QP reference */
	bool armed;
	atomic64_t last_cnp_ns;		/* NP: when this QP last sent one */
};

extern const struct attribute_group sroce_cc_group;

int sroce_cc_dev_init(struct sroce_dev *sdev);
void sroce_cc_dev_fini(struct sroce_dev *sdev);
void sroce_cc_line_update(struct sroce_dev *sdev);
u8 sroce_cc_tclass(struct sroce_dev *sdev, u8 traffic_class);

void sroce_cc_qp_init(struct sroce_qp *qp);
void sroce_cc_qp_start(struct sroce_qp *qp);
void sroce_cc_qp_stop(struct sroce_qp *qp);
bool sroce_cc_may_send(struct sroce_qp *qp);
bool sroce_cc_resp_may_send(struct sroce_qp *qp, u64 *when);
void sroce_cc_sent(struct sroce_qp *qp, const struct sroce_av *av,
		   unsigned int len);

void sroce_cc_rcv_ce(struct sroce_dev *sdev, struct sroce_qp *qp);
void sroce_cc_rcv_ce_ud(struct sroce_dev *sdev, struct sroce_qp *qp,
			const struct sk_buff *skb, u32 sqpn);
void sroce_cc_rcv_cnp(struct sroce_dev *sdev, struct sroce_qp *qp);
bool sroce_cc_skb_ce(const struct sk_buff *skb);

int sroce_cc_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp);

#endif /* SROCE_CC_H */
