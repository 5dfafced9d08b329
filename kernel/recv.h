/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * recv.h: the receive path, from the UDP socket to the engines.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

struct sk_buff;
struct sroce_dev;

void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_rcv_local(struct sroce_dev *sdev, struct sk_buff *skb, bool more);

#endif /* SROCE_RECV_H */
