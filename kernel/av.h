/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * av.h: address vectors (where RoCEv2 packets go) and address handles.
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <linux/in6.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* A resolved RoCEv2 path: IP addresses and header fields. */
struct sroce_av {
	bool ipv6;
	struct in6_addr saddr;		/* IPv4 as v4-mapped */
	struct in6_addr daddr;
	u8 traffic_class;		/* DSCP and ECN bits as given */
	u8 hop_limit;
	u32 flow_label;
	u8 dmac[ETH_ALEN];
};

/*
 * What a UD send needs of an AH: its PD and its path. The device's ah_xa
 * holds these, found by number under RCU only (sroce_ah_find()), from a
 * doorbell or from the pacer's softirq; they are freed a grace period
 * after the AH leaves the table. The AH itself the core frees as soon as
 * destroy_ah returns.
 */
struct sroce_ah_path {
	const struct ib_pd *pd;
	struct sroce_av av;
	struct rcu_head rcu;
};

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_ah_path *path;	/* in the device's ah_xa */
	u32 num;			/* its index there */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

#define SROCE_MAX_AH	0x10000

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr,
		       bool group_ok);
void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *attr);

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

struct sroce_dev;
bool sroce_ah_find(struct sroce_dev *sdev, u32 num, const struct ib_pd *pd,
		   struct sroce_av *av);

#endif /* SROCE_AV_H */
