// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * counters.c: the device's counters as RDMA hw stats (port 1), summed over
 * the CPUs that count them.
 */
#include "counters.h"
#include "device.h"

static const struct rdma_stat_desc sroce_counter_desc[] = {
	[SROCE_CNT_RX_PACKETS].name = "rx_packets",
	[SROCE_CNT_RX_SHORT].name = "rx_drop_short",
	[SROCE_CNT_RX_BAD_TVER].name = "rx_drop_bad_tver",
	[SROCE_CNT_RX_BAD_OPCODE].name = "rx_drop_bad_opcode",
	[SROCE_CNT_RX_BAD_LENGTH].name = "rx_drop_bad_length",
	[SROCE_CNT_RX_BAD_IP].name = "rx_drop_bad_ip",
	[SROCE_CNT_RX_BAD_PKEY].name = "rx_drop_bad_pkey",
	[SROCE_CNT_RX_ICRC_ERR].name = "rx_icrc_errors",
	[SROCE_CNT_RX_NO_QP].name = "rx_drop_no_qp",
	[SROCE_CNT_RX_QP_STATE].name = "rx_drop_qp_state",
	[SROCE_CNT_RX_QKEY].name = "rx_drop_qkey",
	[SROCE_CNT_RX_NO_WQE].name = "rx_drop_no_wqe",
	[SROCE_CNT_RX_MAD_LENGTH].name = "rx_drop_mad_length",
	[SROCE_CNT_RX_UD_LENGTH].name = "rx_drop_ud_length",
	[SROCE_CNT_RX_UNHANDLED].name = "rx_drop_unhandled",
	[SROCE_CNT_RX_BAD_ADDR].name = "rx_drop_bad_addr",
	[SROCE_CNT_RX_BACKLOG].name = "rx_drop_resp_busy",
	[SROCE_CNT_TX_PACKETS].name = "tx_packets",
	[SROCE_CNT_RC_TIMEOUTS].name = "rc_ack_timeouts",
	[SROCE_CNT_RC_ACK_PROBES].name = "rc_ack_probes",
	[SROCE_CNT_RC_SEQ_NAK_RCVD].name = "rc_seq_naks_rcvd",
	[SROCE_CNT_RC_RNR_NAK_RCVD].name = "rc_rnr_naks_rcvd",
	[SROCE_CNT_RC_SEQ_NAK_SENT].name = "rc_seq_naks_sent",
	[SROCE_CNT_RC_RNR_NAK_SENT].name = "rc_rnr_naks_sent",
	[SROCE_CNT_RC_DUP_REQ].name = "rc_duplicate_requests",
	[SROCE_CNT_RC_RETRY_EXC].name = "rc_retry_exceeded",
	[SROCE_CNT_NP_ECN_MARKED].name = "np_ecn_marked_roce_packets",
	[SROCE_CNT_NP_CNP_SENT].name = "np_cnp_sent",
	[SROCE_CNT_NP_CNP_LIMITED].name = "np_cnp_limited",
	[SROCE_CNT_RP_CNP_HANDLED].name = "rp_cnp_handled",
	[SROCE_CNT_RP_CNP_IGNORED].name = "rp_cnp_ignored",
	[SROCE_CNT_RP_RATE_CUTS].name = "rp_rate_cuts",
	[SROCE_CNT_RP_RATE_INCREASES].name = "rp_rate_increases",
	[SROCE_CNT_RP_PACED].name = "rp_paced",
	[SROCE_CNT_LOOP_HANDOFFS].name = "loop_handoffs",
	[SROCE_CNT_LOOP_DROPS].name = "loop_drops",
};

static_assert(ARRAY_SIZE(sroce_counter_desc) == SROCE_NUM_COUNTERS);

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_desc,
					  SROCE_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_counters *c = &to_sdev(ibdev)->counters;
	int cpu, i;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = 0;
	for_each_possible_cpu(cpu) {
		const struct sroce_counter_set *set = per_cpu_ptr(c->cpu, cpu);

		for (i = 0; i < SROCE_NUM_COUNTERS; i++)
			stats->value[i] += READ_ONCE(set->val[i]);
	}
	return SROCE_NUM_COUNTERS;
}

/* A new device's counters, all zero. Return: 0 or -ENOMEM. */
int sroce_counters_init(struct sroce_counters *c)
{
	c->cpu = alloc_percpu(struct sroce_counter_set);
	return c->cpu ? 0 : -ENOMEM;
}

/* Free them, once nothing of the device counts any more. */
void sroce_counters_fini(struct sroce_counters *c)
{
	free_percpu(c->cpu);
	c->cpu = NULL;
}
