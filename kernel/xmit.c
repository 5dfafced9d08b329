// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xmit.c: wraps a transport packet (BTH onwards) in UDP and IPv4 or IPv6,
 * appends the ICRC and sends it by the route to the destination. The IP
 * header is built here, not by the IP layer, because the ICRC covers it
 * (the IPv4 identification included). A packet to a local address goes
 * to loop.c instead of the IP layer.
 *
 * Every packet a QP sends goes through sroce_qp_xmit(), which gives it the
 * QP's UDP source port and the device's ECN bits; the requester paces
 * (cc.c) before it builds a packet. Packets leave only through the
 * device's own netdev (the route's output interface is pinned to it, as
 * the RDMA core pins its address resolution to the GID's netdev), and
 * never to a broadcast address. A connected QP keeps its route (the
 * kernel's per-CPU dst_cache, as tunnels do): a route to a local address
 * is not cached by the IP layer, and looking it up allocated and freed
 * a dst for every packet.
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/dst_cache.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include "av.h"
#include "cc.h"
#include "core/icrc.h"
#include "core/hdr.h"
#include "counters.h"
#include "device.h"
#include "loop.h"
#include "qp.h"
#include "recv.h"
#include "xmit.h"

/*
 * An skb whose data is @len bytes, with room in front for UDP, IP and the
 * link layer and behind for the ICRC; its data a page fragment if @frag.
 */
static struct sk_buff *sroce_skb_new(struct sroce_dev *sdev,
				     const struct sroce_av *av,
				     unsigned int len, gfp_t gfp, bool frag)
{
	struct net_device *ndev = sdev->ndev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + sizeof(struct udphdr) +
			    (av->ipv6 ? sizeof(struct ipv6hdr) :
			     sizeof(struct iphdr));
	unsigned int size = head + len + SROCE_ICRC_BYTES +
			    ndev->needed_tailroom;
	unsigned int fsize = SKB_DATA_ALIGN(size) +
			     SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	bool napi = sroce_skb_napi_ok();
	struct sk_buff *skb;
	void *data;

	if (frag && fsize <= PAGE_SIZE && napi) {
		data = napi_alloc_frag(fsize);
		if (!data)
			return NULL;
		skb = napi_build_skb(data, fsize);
		if (!skb) {
			skb_free_frag(data);
			return NULL;
		}
	} else if (napi) {
		/*
		 * Where NAPI's cache may be used, the sk_buff comes from it
		 * instead of the slab: a message's packets are mostly
		 * allocated and freed on one CPU (the loopback drain gives
		 * theirs back, sroce_rcv_one()), and the slab's fast path is
		 * slow under emulation.
		 */
		skb = __alloc_skb(size, gfp, SKB_ALLOC_NAPI, NUMA_NO_NODE);
	} else {
		skb = alloc_skb(size, gfp);
	}
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, len);
	return skb;
}

/**
 * sroce_skb_alloc() - an skb for one packet
 * @sdev: the sending device
 * @av: where it goes (for the IP header size)
 * @len: bytes of transport headers, payload and pad
 * @gfp: allocation flags
 *
 * Return: an skb whose data is @len bytes for the caller to fill, with room
 * in front for UDP, IP and the link layer and behind for the ICRC.
 */
struct sk_buff *sroce_skb_alloc(struct sroce_dev *sdev,
				const struct sroce_av *av, unsigned int len,
				gfp_t gfp)
{
	return sroce_skb_new(sdev, av, len, gfp, false);
}

/**
 * sroce_qp_skb_alloc() - an skb for one packet of a QP to its own AV
 * @qp: an RC or UC QP; bottom halves off
 * @len: as for sroce_skb_alloc()
 *
 * As sroce_skb_alloc(), GFP_ATOMIC. While the QP's packets stay in this
 * host (loop.c), their data is a page fragment from NAPI's cache, not
 * kmalloc memory: a kernel that zeroes what it allocates (INIT_ON_ALLOC,
 * Debian's default) zeroes a fragment's page once, when it gets the page,
 * and each kmalloc'd head on every allocation, which costs more than the
 * rest of the allocation under emulation. The kernel gives a small head
 * that goes to the network kmalloc memory on purpose (a fragment held in
 * a socket's queue pins its page, uncounted); a looped-back packet never
 * reaches a socket, and is freed when it is received. Every byte the
 * packet sends is written by its builder.
 */
struct sk_buff *sroce_qp_skb_alloc(struct sroce_qp *qp, unsigned int len)
{
	return sroce_skb_new(to_sdev(qp->ibqp.device), &qp->av, len,
			     GFP_ATOMIC, READ_ONCE(qp->looped));
}

/**
 * sroce_skb_frag_append() - add a fragment of new memory to a packet
 * @skb: the packet, with room for one more fragment
 * @n: bytes, at most a page
 *
 * Return: where the caller writes the fragment's @n bytes, or NULL.
 */
u8 *sroce_skb_frag_append(struct sk_buff *skb, unsigned int n)
{
	struct page *page;
	u8 *buf;

	buf = netdev_alloc_frag(n);
	if (!buf)
		return NULL;
	page = virt_to_head_page(buf);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   buf - (u8 *)page_address(page), n);
	skb_len_add(skb, n);
	return buf;
}

/**
 * sroce_skb_add_page() - add part of a page to a packet by reference
 * @skb: the packet
 * @page: the page
 * @off: first byte in @page
 * @n: bytes
 *
 * Adds a fragment holding a reference to @page, or extends the last
 * fragment when the bytes continue it. One fragment is always left for
 * the trailer (sroce_skb_end_frags()).
 * Return: 0 or -E2BIG.
 */
int sroce_skb_add_page(struct sk_buff *skb, struct page *page,
		       unsigned int off, unsigned int n)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	int i = sh->nr_frags;

	if (skb_can_coalesce(skb, i, page, off)) {
		skb_frag_size_add(&sh->frags[i - 1], n);
	} else if (i < MAX_SKB_FRAGS - 1) {
		get_page(page);
		skb_fill_page_desc(skb, i, page, off, n);
	} else {
		return -E2BIG;
	}
	skb_len_add(skb, n);
	return 0;
}

/**
 * sroce_kva_page() - the page under a kernel address, if a packet may hold it
 * @va: the address
 *
 * A packet may hold a page of the direct map by reference, not slab
 * memory: sendpage_ok(), which the socket layer and nvme-tcp ask too
 * before they send a page by reference.
 * Return: the page, or NULL.
 */
struct page *sroce_kva_page(const void *va)
{
	struct page *page;

	if (!virt_addr_valid(va))
		return NULL;
	page = virt_to_page(va);
	return sendpage_ok(page) ? page : NULL;
}

/**
 * sroce_skb_end_frags() - end a packet whose payload is in page fragments
 * @skb: from sroce_skb_alloc() with only the headers in its data, then
 *	 the payload added as fragments, one fragment left
 * @pad: pad bytes after the payload
 *
 * Adds the pad and the room for the ICRC as a last fragment of their own.
 * Return: 0 or -ENOMEM.
 */
int sroce_skb_end_frags(struct sk_buff *skb, unsigned int pad)
{
	unsigned int n = pad + SROCE_ICRC_BYTES;
	u8 *t = sroce_skb_frag_append(skb, n);

	if (!t)
		return -ENOMEM;
	memset(t, 0, n);
	return 0;
}

/* Where the ICRC of a packet goes: its last four bytes. */
static u8 *sroce_skb_icrc(struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	const skb_frag_t *f;

	if (!skb_is_nonlinear(skb))
		return skb_tail_pointer(skb) - SROCE_ICRC_BYTES;
	f = &sh->frags[sh->nr_frags - 1];
	return (u8 *)skb_frag_address(f) + skb_frag_size(f) - SROCE_ICRC_BYTES;
}

/* One piece: fed into @crc, and copied to @to unless it is NULL. */
static u32 sroce_crc_piece(u32 crc, u8 *to, const u8 *p, unsigned int n)
{
	return to ? sroce_icrc_copy(crc, to, p, n) :
		    sroce_icrc_update(crc, p, n);
}

/**
 * sroce_skb_crc_copy() - feed bytes of an skb into a CRC register
 * @skb: the packet
 * @off: first byte, from skb->data
 * @len: bytes, wherever they are (data or fragments); the caller has
 *	 checked that @skb holds them
 * @to: NULL, or where to copy the bytes as they are fed (one pass)
 * @crc: the register (core/icrc.h)
 *
 * Return: the new register value.
 */
u32 sroce_skb_crc_copy(struct sk_buff *skb, unsigned int off,
		       unsigned int len, void *to, u32 crc)
{
	struct skb_seq_state st;
	unsigned int n, done = 0;
	const u8 *data;

	if (off + len <= skb_headlen(skb))
		return sroce_crc_piece(crc, to, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		/* A block may run past the upper bound we asked for. */
		n = min(n, len - done);
		crc = sroce_crc_piece(crc, to ? (u8 *)to + done : NULL, data,
				      n);
		done += n;
	}
	return crc;
}

static struct dst_entry *sroce_route4(struct net *net, struct sk_buff *skb,
				      const struct sroce_av *av, u8 tclass,
				      int oif, struct dst_cache *route,
				      bool *local)
{
	struct flowi4 fl = {
		.daddr = av->daddr.s6_addr32[3],
		.saddr = av->saddr.s6_addr32[3],
		.flowi4_oif = oif,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(tclass),
	};
	struct rtable *rt = NULL;
	struct iphdr *iph;
	__be32 saddr;

	if (route)
		rt = dst_cache_get_ip4(route, &saddr);
	if (!rt) {
		rt = ip_route_output_key(net, &fl);
		if (IS_ERR(rt))
			return ERR_CAST(rt);
		if (rt->rt_type == RTN_BROADCAST) {
			ip_rt_put(rt);
			return ERR_PTR(-ENETUNREACH);	/* one peer at a time */
		}
		if (route)
			dst_cache_set_ip4(route, &rt->dst, fl.saddr);
	}
	*local = rt->rt_type == RTN_LOCAL;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tclass;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	ip_select_ident(net, skb, NULL);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	return &rt->dst;
}

static struct dst_entry *sroce_route6(struct net *net, struct sk_buff *skb,
				      const struct sroce_av *av, u8 tclass,
				      int oif, struct dst_cache *route,
				      bool *local)
{
	struct flowi6 fl = {
		.daddr = av->daddr,
		.saddr = av->saddr,
		.flowi6_oif = oif,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(tclass, htonl(av->flow_label)),
	};
	struct dst_entry *dst = NULL;
	unsigned int paylen = skb->len;
	struct ipv6hdr *ip6h;
	struct in6_addr saddr;

	if (!ipv6_stub || !ipv6_stub->ipv6_dst_lookup_flow)
		return ERR_PTR(-EAFNOSUPPORT);
	if (route)
		dst = dst_cache_get_ip6(route, &saddr);
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl, NULL);
		if (IS_ERR(dst))
			return dst;
		/*
		 * With a source address, the output interface is only a
		 * preference to IPv6 (IPv4 holds to it): a route through
		 * another interface is not ours to take.
		 */
		if (dst->dev->ifindex != oif &&
		    !(dst->dev->flags & IFF_LOOPBACK)) {
			dst_release(dst);
			return ERR_PTR(-ENETUNREACH);
		}
		if (route)
			dst_cache_set_ip6(route, dst, &fl.saddr);
	}
	*local = dst->dev->flags & IFF_LOOPBACK;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tclass, htonl(av->flow_label));
	ip6h->payload_len = htons(paylen);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: ip6_dst_hoplimit(dst);
	ip6h->saddr = fl.saddr;
	ip6h->daddr = fl.daddr;
	skb->protocol = htons(ETH_P_IPV6);
	return dst;
}

/**
 * sroce_xmit() - encapsulate and send one packet
 * @sdev: the sending device
 * @av: addresses and header fields
 * @tclass: the IP traffic class (DSCP and ECN)
 * @sport: UDP source port
 * @route: the sender's cache of the route to @av (sroce_route_init()), or
 *	   NULL to look it up
 * @skb: from sroce_skb_alloc(), filled in; consumed
 * @looped: if not NULL, set to whether the packet went to a local address
 *	    (on success)
 *
 * Bottom halves off (softirq, or an engine's lock).
 * Return: 0, or a negative errno (no route, or the packet was dropped).
 */
int sroce_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u8 tclass,
	       u16 sport, struct dst_cache *route, struct sk_buff *skb,
	       bool *looped)
{
	struct net *net = dev_net(sdev->ndev);
	struct dst_entry *dst;
	struct udphdr *uh;
	bool local = false;
	unsigned int l3;
	u32 crc;
	u8 *icrc;

	if (!skb_is_nonlinear(skb))
		skb_put(skb, SROCE_ICRC_BYTES);
	icrc = sroce_skb_icrc(skb);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(SROCE_ROCEV2_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;

	lockdep_assert_in_softirq();
	dst = av->ipv6 ?
	      sroce_route6(net, skb, av, tclass, sdev->ndev->ifindex, route,
			   &local) :
	      sroce_route4(net, skb, av, tclass, sdev->ndev->ifindex, route,
			   &local);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	if (local) {
		/*
		 * Receive it as if it had come in on our netdev. It never
		 * meets a wire, so, as the kernel's loopback device does with
		 * checksums, no ICRC is computed for it (nor checked: loop.c).
		 */
		dst_release(dst);
		memset(icrc, 0, SROCE_ICRC_BYTES);
		skb->dev = sdev->ndev;
		skb_pull(skb, skb_transport_offset(skb));
		sroce_loop_send(sdev, skb);
		if (looped)
			*looped = true;
		return 0;
	}
	if (looped)
		*looped = false;
	skb_dst_set(skb, dst);

	crc = sroce_icrc_begin(skb_network_header(skb), av->ipv6);
	l3 = sroce_icrc_hdr_bytes(av->ipv6);
	crc = sroce_skb_crc(skb, l3, skb->len - l3 - SROCE_ICRC_BYTES, crc);
	sroce_icrc_put(icrc, sroce_icrc_final(crc));
	skb->dev = dst->dev;
	if (av->ipv6)
		return ip6_local_out(net, NULL, skb) < 0 ? -EIO : 0;
	return ip_local_out(net, NULL, skb) < 0 ? -EIO : 0;
}

/**
 * sroce_qp_xmit() - the transmit gate of a QP
 * @qp: the sending QP
 * @av: where the packet goes (the QP's own, or a UD WQE's AH)
 * @skb: from sroce_skb_alloc(), filled in; consumed
 *
 * Every packet of a QP, requests and responses, leaves through here. The
 * UDP source port is the QP's (flow entropy per QP, one path per QP); the
 * ECN bits are the device's (cc.c).
 *
 * Return: as sroce_xmit().
 */
int sroce_qp_xmit(struct sroce_qp *qp, const struct sroce_av *av,
		  struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool own = av == &qp->av, looped;
	int err;

	sroce_count(&sdev->counters, SROCE_CNT_TX_PACKETS);
	err = sroce_xmit(sdev, av, sroce_cc_tclass(sdev, av->traffic_class),
			 sroce_sport(qp->ibqp.qp_num), own ? &qp->route : NULL,
			 skb, &looped);
	if (!err && own && READ_ONCE(qp->looped) != looped)
		WRITE_ONCE(qp->looped, looped);
	return err;
}

/**
 * sroce_route_init() - give a connected QP its route cache
 * @qp: a new RC or UC QP; a UD QP's stays empty and is never used
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_route_init(struct sroce_qp *qp)
{
	return dst_cache_init(&qp->route, GFP_KERNEL_ACCOUNT);
}

/**
 * sroce_route_reset() - the QP's address vector changed
 * @qp: the QP; qp->lock, sq_lock and resp_lock held
 *
 * What is cached is stale from now on (dst_cache counts a route cached in
 * the jiffy of the reset as stale too). The engines that use the cache
 * hold one of the locks, so none caches a route to the old address after.
 */
void sroce_route_reset(struct sroce_qp *qp)
{
	dst_cache_reset(&qp->route);
}

/* Free it, once the QP sends no more. */
void sroce_route_fini(struct sroce_qp *qp)
{
	dst_cache_destroy(&qp->route);
}
