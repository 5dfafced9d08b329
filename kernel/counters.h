/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * counters.h: per-device counters, shown by `rdma statistic show link`.
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

enum sroce_counter {
	SROCE_CNT_RX_PACKETS,		/* well formed, ICRC good */
	SROCE_CNT_RX_SHORT,		/* shorter than its headers */
	SROCE_CNT_RX_BAD_TVER,		/* transport version not 0 */
	SROCE_CNT_RX_BAD_OPCODE,	/* opcode we do not know */
	SROCE_CNT_RX_BAD_LENGTH,	/* payload and pad do not add up */
	SROCE_CNT_RX_BAD_IP,		/* IPv4 options, IPv6 extensions,
					 * IP fragments
					 */
	SROCE_CNT_RX_BAD_PKEY,		/* not the default partition */
	SROCE_CNT_RX_ICRC_ERR,		/* ICRC mismatch */
	SROCE_CNT_RX_NO_QP,		/* no such QP, or not of that type */
	SROCE_CNT_RX_QP_STATE,		/* QP not ready to receive */
	SROCE_CNT_RX_QKEY,		/* UD: Q_Key violation */
	SROCE_CNT_RX_NO_WQE,		/* no receive WQE posted */
	SROCE_CNT_RX_MAD_LENGTH,	/* QP1: longer than a MAD */
	SROCE_CNT_RX_UD_LENGTH,		/* UD: longer than the path MTU */
	SROCE_CNT_RX_UNHANDLED,		/* valid, but not handled yet */
	SROCE_CNT_RX_BAD_ADDR,		/* connected QP: not from its peer */
	SROCE_CNT_RX_BACKLOG,		/* responder busy, its queue full */
	SROCE_CNT_TX_PACKETS,		/* handed to the network */
	SROCE_CNT_RC_TIMEOUTS,		/* local ACK timer expired */
	SROCE_CNT_RC_ACK_PROBES,	/* unasked tails resent, asking */
	SROCE_CNT_RC_SEQ_NAK_RCVD,	/* NAK PSN sequence error received */
	SROCE_CNT_RC_RNR_NAK_RCVD,	/* RNR NAK received */
	SROCE_CNT_RC_SEQ_NAK_SENT,	/* NAK PSN sequence error sent */
	SROCE_CNT_RC_RNR_NAK_SENT,	/* RNR NAK sent */
	SROCE_CNT_RC_DUP_REQ,		/* duplicate requests answered */
	SROCE_CNT_RC_RETRY_EXC,		/* WQEs failed: retries exhausted */
	SROCE_CNT_NP_ECN_MARKED,	/* CE-marked packets received */
	SROCE_CNT_NP_CNP_SENT,		/* CNPs sent */
	SROCE_CNT_NP_CNP_LIMITED,	/* not sent: too many to UD sources */
	SROCE_CNT_RP_CNP_HANDLED,	/* CNPs that reached a rate control */
	SROCE_CNT_RP_CNP_IGNORED,	/* CNPs for no rate control */
	SROCE_CNT_RP_RATE_CUTS,		/* rate cuts made */
	SROCE_CNT_RP_RATE_INCREASES,	/* rate increase events */
	SROCE_CNT_RP_PACED,		/* the pacer held a QP back */
	SROCE_CNT_LOOP_HANDOFFS,	/* packets left to the polling CPU */
	SROCE_CNT_LOOP_DROPS,		/* loopback queue full: dropped */
	SROCE_NUM_COUNTERS
};

/*
 * Each CPU counts in its own set, with no atomic and no shared cache line;
 * a reader sums them (sroce_get_hw_stats()).
 */
struct sroce_counter_set {
	u64 val[SROCE_NUM_COUNTERS];
};

struct sroce_counters {
	struct sroce_counter_set __percpu *cpu;
};

/* Any context. */
static inline void sroce_count_add(struct sroce_counters *c,
				   enum sroce_counter i, u64 n)
{
	this_cpu_add(c->cpu->val[i], n);
}

static inline void sroce_count(struct sroce_counters *c, enum sroce_counter i)
{
	this_cpu_inc(c->cpu->val[i]);
}

int sroce_counters_init(struct sroce_counters *c);
void sroce_counters_fini(struct sroce_counters *c);

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_COUNTERS_H */
