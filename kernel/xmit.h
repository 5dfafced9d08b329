/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xmit.h: RoCEv2 encapsulation and transmission.
 */
#ifndef SROCE_XMIT_H
#define SROCE_XMIT_H

#include <linux/hash.h>
#include <linux/preempt.h>
#include <linux/skbuff.h>

struct dst_cache;
struct sroce_av;
struct sroce_dev;
struct sroce_qp;

struct sk_buff *sroce_skb_alloc(struct sroce_dev *sdev,
				const struct sroce_av *av, unsigned int len,
				gfp_t gfp);
struct sk_buff *sroce_qp_skb_alloc(struct sroce_qp *qp, unsigned int len);

/*
 * Bottom halves are off (a doorbell, the loopback drain, the polling
 * thread) or this is a softirq: the per-CPU skb head cache of NAPI may be
 * used, as threaded NAPI does from its kthread.
 */
static inline bool sroce_skb_napi_ok(void)
{
	return in_softirq() && !in_hardirq();
}

/* Payloads from this size on go as an MR's pages rather than a copy. */
#define SROCE_ZEROCOPY_MIN	256
/* SGEs one such packet may touch: two fragments each, and the trailer's */
#define SROCE_ZEROCOPY_SGES	((MAX_SKB_FRAGS - 1) / 2)

u8 *sroce_skb_frag_append(struct sk_buff *skb, unsigned int n);
int sroce_skb_add_page(struct sk_buff *skb, struct page *page,
		       unsigned int off, unsigned int n);
struct page *sroce_kva_page(const void *va);
int sroce_skb_end_frags(struct sk_buff *skb, unsigned int pad);
u32 sroce_skb_crc_copy(struct sk_buff *skb, unsigned int off,
		       unsigned int len, void *to, u32 crc);

/* Feed bytes of an skb, wherever they are, into a CRC register. */
static inline u32 sroce_skb_crc(struct sk_buff *skb, unsigned int off,
				unsigned int len, u32 crc)
{
	return sroce_skb_crc_copy(skb, off, len, NULL, crc);
}

int sroce_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u8 tclass,
	       u16 sport, struct dst_cache *route, struct sk_buff *skb,
	       bool *looped);
int sroce_qp_xmit(struct sroce_qp *qp, const struct sroce_av *av,
		  struct sk_buff *skb);
int sroce_route_init(struct sroce_qp *qp);
void sroce_route_reset(struct sroce_qp *qp);
void sroce_route_fini(struct sroce_qp *qp);

/* UDP source port of a QP: flow entropy for ECMP, like hardware NICs. */
static inline u16 sroce_sport(u32 qpn)
{
	return 0xc000 | (hash_32(qpn, 14) & 0x3fff);
}

#endif /* SROCE_XMIT_H */
