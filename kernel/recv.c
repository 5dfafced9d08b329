// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * recv.c: checks every received RoCEv2 packet, in the softirq that
 * received it: the IP header sroce can compute an ICRC over, the packet's
 * structure (core/pkt.c) and its ICRC (core/icrc.c; not for a packet the
 * device looped back in memory, loop.c; for an RDMA WRITE's middle and
 * last packets and READ responses, as their payload is copied: below).
 * Each refusal is counted. A packet that passes every check is counted
 * as received and goes to the engine for its opcode: UD sends to resp.c
 * (or mcast.c), RC and UC requests to rcresp.c, RC responses to comp.c,
 * CNPs to cc.c.
 * A connected QP takes packets only from its peer's address, to its own;
 * a CE-marked one makes it send a CNP (cc.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "core/icrc.h"
#include "core/opcode.h"
#include "core/pkt.h"
#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "mcast.h"
#include "qp.h"
#include "rcresp.h"
#include "recv.h"
#include "resp.h"
#include "xmit.h"

/*
 * The ICRC covers the IP header as the core knows it: IPv4 without
 * options, IPv6 without extension headers, directly followed by UDP. And
 * a RoCE packet is never fragmented (its senders set DF, and no RoCE NIC
 * reassembles): one the IP layer put together from fragments (@net: it
 * came from the network, whose IP layer noted that) is refused too.
 */
static bool sroce_rcv_ip_ok(struct sk_buff *skb, bool ipv6, bool net)
{
	unsigned int want = ipv6 ? sizeof(struct ipv6hdr) :
			    sizeof(struct iphdr);

	if (skb_transport_header(skb) - skb_network_header(skb) != want)
		return false;
	if (net && (ipv6 ? IP6CB(skb)->frag_max_size :
			   IPCB(skb)->frag_max_size))
		return false;
	return ipv6 ? ipv6_hdr(skb)->nexthdr == IPPROTO_UDP :
		      ip_hdr(skb)->ihl == 5;
}

/*
 * Is the packet's destination one of the device's own addresses (a RoCE
 * v2 GID of its port), or a multicast group? The IP layer delivers to the
 * port whatever arrives for any address of the host; a connected QP
 * checks its own (sroce_rcv_addr_ok()), a UD QP has none to check.
 */
static bool sroce_rcv_dst_ours(struct sroce_dev *sdev,
			       const struct sk_buff *skb)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;

	if (skb->protocol == htons(ETH_P_IPV6))
		memcpy(&gid, &ipv6_hdr(skb)->daddr, sizeof(gid));
	else
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)&gid);
	if (rdma_is_multicast_addr((struct in6_addr *)&gid))
		return true;
	attr = rdma_find_gid_by_port(&sdev->ibdev, &gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

static enum sroce_counter sroce_pkt_counter(enum sroce_pkt_err err)
{
	switch (err) {
	case SROCE_PKT_BAD_TVER:
		return SROCE_CNT_RX_BAD_TVER;
	case SROCE_PKT_BAD_OPCODE:
		return SROCE_CNT_RX_BAD_OPCODE;
	case SROCE_PKT_BAD_LENGTH:
		return SROCE_CNT_RX_BAD_LENGTH;
	case SROCE_PKT_BAD_PKEY:
		return SROCE_CNT_RX_BAD_PKEY;
	default:
		return SROCE_CNT_RX_SHORT;
	}
}

/*
 * Is the packet from the connected QP's peer, to its own address? Only a
 * QP with a path (RTR on) is asked: before that, the engines drop the
 * packet for the QP's state. modify_qp sets the path at INIT to RTR
 * before it publishes the new state (sroce_modify_qp()), so a packet that
 * sees RTR sees the path. A path changed later (in SQD) may be read half
 * old, half new by a packet racing with the change: that packet alone is
 * refused, or passed on to the engines, which check it as any other.
 */
static bool sroce_rcv_addr_ok(const struct sk_buff *skb,
			      const struct sroce_qp *qp)
{
	const struct sroce_av *av = &qp->av;
	enum ib_qp_state state;

	/* Pairs with the release in sroce_modify_qp(). */
	state = smp_load_acquire(&qp->state);

	if (state == IB_QPS_RESET || state == IB_QPS_INIT)
		return true;
	if (skb->protocol == htons(ETH_P_IPV6))
		return av->ipv6 &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr) &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &av->saddr);
	return !av->ipv6 && ipv6_addr_v4mapped(&av->daddr) &&
	       ip_hdr(skb)->saddr == av->daddr.s6_addr32[3] &&
	       ip_hdr(skb)->daddr == av->saddr.s6_addr32[3];
}

/* An RC or UC packet: to the responder or the completer of its QP. */
static void sroce_rcv_connected(struct sroce_dev *sdev, struct sk_buff *skb,
				const struct sroce_pkt *pkt)
{
	u8 transport = pkt->bth.opcode & SROCE_OPCODE_TRANSPORT_MASK;
	struct sroce_qp *qp = sroce_qp_get(sdev, pkt->bth.dqpn);
	enum ib_qp_type want;

	want = transport == SROCE_OPCODE_RC ? IB_QPT_RC : IB_QPT_UC;
	/* A refused packet is counted as refused only if intact. */
	if (!qp || qp->ibqp.qp_type != want) {
		if (sroce_rcv_crc_late(sdev, skb, pkt))
			sroce_count(&sdev->counters, SROCE_CNT_RX_NO_QP);
	} else if (!sroce_rcv_addr_ok(skb, qp)) {
		if (sroce_rcv_crc_late(sdev, skb, pkt))
			sroce_count(&sdev->counters, SROCE_CNT_RX_BAD_ADDR);
	} else {
		if (sroce_cc_skb_ce(skb))
			sroce_cc_rcv_ce(sdev, qp);
		if (pkt->flags & SROCE_OPF_RESP)
			sroce_comp_rcv(sdev, qp, skb, pkt);
		else
			sroce_rcresp_rcv(sdev, qp, skb, pkt);
	}
	if (qp)
		sroce_qp_put(qp);
}

/* A CNP: to the rate control of the QP it names. */
static void sroce_rcv_cnp(struct sroce_dev *sdev, struct sk_buff *skb,
			  const struct sroce_pkt *pkt)
{
	struct sroce_qp *qp = sroce_qp_get(sdev, pkt->bth.dqpn);

	if (!qp)
		sroce_count(&sdev->counters, SROCE_CNT_RX_NO_QP);
	else if (sroce_qp_connected(qp) ? !sroce_rcv_addr_ok(skb, qp) :
		 !sroce_rcv_dst_ours(sdev, skb))
		sroce_count(&sdev->counters, SROCE_CNT_RX_BAD_ADDR);
	else
		sroce_cc_rcv_cnp(sdev, qp);
	if (qp)
		sroce_qp_put(qp);
}

/*
 * A UD SEND ONLY (with immediate): no longer than the port's path MTU (no
 * RoCE port receives more, and a QP posting receive buffers of that size,
 * as IPoIB-style users do, must never see one that does not fit), to an
 * address of the device's, to one QP or a multicast group.
 */
static void sroce_rcv_ud(struct sroce_dev *sdev, struct sk_buff *skb,
			 const struct sroce_pkt *pkt)
{
	u32 mtu = ib_mtu_enum_to_int(sroce_active_mtu(sdev->ndev));

	if (pkt->paylen > mtu)
		sroce_count(&sdev->counters, SROCE_CNT_RX_UD_LENGTH);
	else if (!sroce_rcv_dst_ours(sdev, skb))
		sroce_count(&sdev->counters, SROCE_CNT_RX_BAD_ADDR);
	else if (pkt->bth.dqpn == SROCE_MCAST_QPN)
		sroce_mcast_rcv(sdev, skb, pkt);
	else
		sroce_resp_ud(sdev, skb, pkt);
}

/*
 * The rest of a packet's ICRC: bytes from @off (from the UDP header) up to
 * the ICRC field, fed into @crc, against the ICRC the packet carries.
 */
static bool sroce_rcv_icrc_rest(struct sk_buff *skb, unsigned int off,
				u32 crc)
{
	__le32 wire;

	crc = sroce_skb_crc(skb, off, skb->len - off - SROCE_ICRC_BYTES, crc);
	return !skb_copy_bits(skb, skb->len - SROCE_ICRC_BYTES, &wire,
			      sizeof(wire)) &&
	       sroce_icrc_final(crc) == le32_to_cpu(wire);
}

/*
 * May the ICRC check wait for the payload's copy? An RDMA WRITE's middle
 * or last packet (no RETH, no immediate data) is written where its
 * message's first packet, checked, pointed: at the responder's cursor,
 * inside the range the message rewrites whole before it completes, and
 * never past it (core/rc.c checks each packet's length against what is
 * left). A SEND's middle or last packet (no immediate data, no IETH) is
 * written at the cursor in the receive WQE that its first packet, checked,
 * took, and never past that WQE's buffers. A READ response is written
 * into the READ's own buffers, at the place of its PSN, and only when it
 * is the very PSN the requester waits for (comp.c). A corrupted packet
 * that gets that far writes bytes that are undefined until the operation
 * completes (and, for a SEND, past the message's end: design.rst), and is
 * dropped before it changes anything else. So the engine checks the ICRC
 * as it copies: one pass over the payload instead of two (design.rst,
 * "Receive checks"). Every other packet is checked before anything looks
 * at it.
 */
static bool sroce_rcv_crc_may_wait(const struct sroce_pkt *pkt)
{
	u32 f = pkt->flags;

	if (!pkt->paylen)
		return false;
	if ((f & SROCE_OPF_REQ) && (f & (SROCE_OPF_WRITE | SROCE_OPF_SEND)) &&
	    !(f & (SROCE_OPF_FIRST | SROCE_OPF_IMMDT | SROCE_OPF_IETH)))
		return true;
	return (f & (SROCE_OPF_READ | SROCE_OPF_RESP)) ==
	       (SROCE_OPF_READ | SROCE_OPF_RESP);
}

/**
 * sroce_rcv_crc_payload() - a late ICRC, fed up to the payload
 * @skb: the packet
 * @pkt: what was parsed, with pkt->crc_due
 *
 * Return: pkt->crc fed with the extension headers after the BTH, to go on
 * with the payload from sizeof(struct udphdr) + pkt->hdr_len.
 */
u32 sroce_rcv_crc_payload(struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	return sroce_skb_crc(skb, sizeof(struct udphdr) + SROCE_BTH_BYTES,
			     pkt->hdr_len - SROCE_BTH_BYTES, pkt->crc);
}

static bool sroce_rcv_crc_verdict(struct sroce_dev *sdev, bool ok)
{
	sroce_count(&sdev->counters, ok ? SROCE_CNT_RX_PACKETS :
				      SROCE_CNT_RX_ICRC_ERR);
	return ok;
}

/**
 * sroce_rcv_crc_late() - check an ICRC that was left to the engine
 * @sdev: the device
 * @skb: the packet, as the engine got it
 * @pkt: what was parsed; nothing to do unless pkt->crc_due
 *
 * For an engine that does not copy the payload after all (the packet is
 * not the next in line, or is refused): checks the whole ICRC before the
 * packet is acted on, and counts the packet received, or corrupt.
 * Return: false to drop the packet.
 */
bool sroce_rcv_crc_late(struct sroce_dev *sdev, struct sk_buff *skb,
			const struct sroce_pkt *pkt)
{
	if (!pkt->crc_due)
		return true;
	return sroce_rcv_crc_verdict(sdev, sroce_rcv_icrc_rest(skb,
			sizeof(struct udphdr) + SROCE_BTH_BYTES, pkt->crc));
}

/**
 * sroce_rcv_crc_end() - finish an ICRC check after the payload's copy
 * @sdev: the device
 * @skb: the packet
 * @off: the first byte not fed into @crc yet (from the UDP header)
 * @crc: pkt->crc fed with every byte from the BTH's end to @off
 *
 * Counts the packet received, or corrupt. Return: false to drop it.
 */
bool sroce_rcv_crc_end(struct sroce_dev *sdev, struct sk_buff *skb,
		       unsigned int off, u32 crc)
{
	return sroce_rcv_crc_verdict(sdev, sroce_rcv_icrc_rest(skb, off, crc));
}

/**
 * sroce_skb_copy() - copy bytes of an skb, feeding a CRC on the way
 * @skb: the source
 * @off: first byte, from skb->data
 * @to: the destination
 * @len: bytes
 * @crc: NULL for a plain copy, else a CRC register fed with the bytes
 *
 * Return: 0, or -EFAULT when @skb is shorter than that.
 */
int sroce_skb_copy(struct sk_buff *skb, unsigned int off, void *to,
		   unsigned int len, u32 *crc)
{
	if (!crc)
		return skb_copy_bits(skb, off, to, len) ? -EFAULT : 0;
	if (off > skb->len || len > skb->len - off)
		return -EFAULT;
	*crc = sroce_skb_crc_copy(skb, off, len, to, *crc);
	return 0;
}

/*
 * Take one RoCEv2 datagram; check its ICRC unless it was looped back in
 * memory (@icrc false), where none was computed. @more: a request to the
 * same QP is received next (struct sroce_pkt).
 */
static void sroce_rcv_one(struct sroce_dev *sdev, struct sk_buff *skb,
			  bool icrc, bool more)
{
	struct sroce_counters *c = &sdev->counters;
	bool ipv6 = skb->protocol == htons(ETH_P_IPV6);
	const unsigned int udp = sizeof(struct udphdr);
	enum sroce_pkt_err err;
	struct sroce_pkt pkt;
	unsigned int len;
	bool ce;
	u32 crc;

	if (skb->len < udp + SROCE_BTH_BYTES + SROCE_ICRC_BYTES ||
	    !pskb_may_pull(skb, udp + SROCE_BTH_BYTES)) {
		sroce_count(c, SROCE_CNT_RX_SHORT);
		goto drop;
	}
	if (!sroce_rcv_ip_ok(skb, ipv6, icrc)) {
		sroce_count(c, SROCE_CNT_RX_BAD_IP);
		goto drop;
	}
	len = skb->len - udp;
	err = sroce_pkt_parse(skb->data + udp, len, &pkt);
	if (err != SROCE_PKT_OK) {
		sroce_count(c, sroce_pkt_counter(err));
		goto drop;
	}
	pkt.more = more;
	/* The headers in a row; the payload may stay where it is. */
	if (!pskb_may_pull(skb, udp + pkt.hdr_len)) {
		sroce_count(c, SROCE_CNT_RX_SHORT);
		goto drop;
	}

	ce = sroce_cc_skb_ce(skb);
	if (icrc) {
		crc = sroce_icrc_begin(skb_network_header(skb), ipv6);
		/* A CE mark makes a CNP, for an intact packet only. */
		if (sroce_rcv_crc_may_wait(&pkt) && !ce) {
			pkt.crc_due = true;
			pkt.crc = crc;
		} else if (!sroce_rcv_icrc_rest(skb, udp + SROCE_BTH_BYTES,
						crc)) {
			sroce_count(c, SROCE_CNT_RX_ICRC_ERR);
			goto drop;
		}
	}
	if (!pkt.crc_due)
		sroce_count(c, SROCE_CNT_RX_PACKETS);
	if (ce)
		sroce_count(c, SROCE_CNT_NP_ECN_MARKED);
	switch (pkt.bth.opcode) {
	case SROCE_UD_SEND_ONLY:
	case SROCE_UD_SEND_ONLY_IMM:
		sroce_rcv_ud(sdev, skb, &pkt);
		break;
	default:
		if (pkt.flags & SROCE_OPF_CNP)
			sroce_rcv_cnp(sdev, skb, &pkt);
		else
			sroce_rcv_connected(sdev, skb, &pkt);
		break;
	}
	/*
	 * A packet this device looped back is an skb of its own, with no
	 * page pool's pages: it goes back to NAPI's per-CPU cache, where
	 * sroce_skb_alloc() takes the next one.
	 */
	if (!icrc && sroce_skb_napi_ok())
		napi_consume_skb(skb, 1);
	else
		consume_skb(skb);
	return;

drop:
	kfree_skb(skb);
}

/**
 * sroce_rcv() - take one RoCEv2 datagram from the network
 * @sdev: the device of the netdev it arrived on
 * @skb: skb->data at the UDP header; the UDP layer has trimmed it to the
 *	 datagram's length. Consumed.
 */
void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_rcv_one(sdev, skb, true, false);
}

/**
 * sroce_rcv_local() - take one datagram the device looped back (loop.c)
 * @sdev: the device that sent it
 * @skb: as for sroce_rcv(), built by sroce_xmit() with no ICRC. Consumed.
 * @more: a request to the same QP is received next
 */
void sroce_rcv_local(struct sroce_dev *sdev, struct sk_buff *skb, bool more)
{
	sroce_rcv_one(sdev, skb, false, more);
}
