/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * recv.h: the receive path, from the UDP socket to the engines.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/types.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;

void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_rcv_local(struct sroce_dev *sdev, struct sk_buff *skb, bool more);

int sroce_skb_copy(struct sk_buff *skb, unsigned int off, void *to,
		   unsigned int len, u32 *crc);
bool sroce_rcv_crc_late(struct sroce_dev *sdev, struct sk_buff *skb,
			const struct sroce_pkt *pkt);
bool sroce_rcv_crc_end(struct sroce_dev *sdev, struct sk_buff *skb,
		       unsigned int off, u32 crc);
u32 sroce_rcv_crc_payload(struct sk_buff *skb, const struct sroce_pkt *pkt);

#endif /* SROCE_RECV_H */
