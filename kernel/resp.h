/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * resp.h: the responder: received requests into memory and completions.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;
struct sroce_rwqe;

bool sroce_resp_take(struct sroce_qp *qp, struct sroce_rwqe *r);

void sroce_resp_ud(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_pkt *pkt);
void sroce_resp_ud_qp(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb, const struct sroce_pkt *pkt);

#endif /* SROCE_RESP_H */
