// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * net.c: per-network-namespace RoCEv2 UDP sockets.
 *
 * RoCEv2 rides on UDP port 4791. Each network namespace that holds a sroce
 * device gets its own pair of kernel sockets (IPv4 and, when the kernel has
 * IPv6, IPv6), so devices in two namespaces of one machine talk to each
 * other through real veth links, and sroce can run beside rdma_rxe, which
 * binds 4791 in the initial namespace only.
 *
 * Lifetime: the sockets are opened when the first device of a namespace is
 * created and closed when its last device goes away. A namespace can be
 * dismantled while a device's unregistration is still queued (the RDMA core
 * drops its netdev reference before it calls our dealloc_driver); the
 * pernet exit hook then closes the sockets itself, and the late device only
 * drops its reference on the (now socket-less) struct sroce_net. Sockets
 * are never tied to a namespace's lifetime by a counted reference: kernel
 * sockets must not keep their namespace alive.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <linux/igmp.h>
#include <linux/rtnetlink.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "device.h"
#include "net.h"
#include "recv.h"

#define SROCE_UDP_PORT	4791	/* IANA: RoCEv2 */

struct sroce_net {
	struct kref ref;		/* one per device */
	struct net *net;		/* NULL once the namespace is gone */
	struct socket *sock4;
	struct socket *sock6;
	struct rcu_head rcu;
};

struct sroce_pernet {
	struct sroce_net *sn;		/* under sroce_net_lock */
};

static unsigned int sroce_net_id __read_mostly;
static DEFINE_MUTEX(sroce_net_lock);

/*
 * Receive hook for both sockets, in softirq context. Returning 0 means the
 * skb is ours. A datagram that arrived on a netdev with no sroce device
 * has no device to count it against: it is dropped.
 */
static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(skb->dev);

	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	sroce_rcv(sdev, skb);
	ib_device_put(&sdev->ibdev);
	return 0;
}

static struct socket *sroce_udp_open(struct net *net, struct sroce_net *sn,
				     bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = sn,
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg ucfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(SROCE_UDP_PORT),
		.ipv6_v6only = 1,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &ucfg, &sock);
	if (err) {
		if (err == -EADDRINUSE)
			pr_err("UDP port %u (IPv%d) is already in use in this network namespace (rdma_rxe?)\n",
			       SROCE_UDP_PORT, ipv6 ? 6 : 4);
		else
			pr_err("cannot open the IPv%d RoCEv2 socket: %d\n",
			       ipv6 ? 6 : 4, err);
		return ERR_PTR(err);
	}
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

/* Close both sockets; sroce_net_lock held. */
static void sroce_net_close(struct sroce_net *sn)
{
	if (sn->sock6)
		udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		udp_tunnel_sock_release(sn->sock4);
	sn->sock6 = NULL;
	sn->sock4 = NULL;
	sn->net = NULL;
}

static struct sroce_net *sroce_net_create(struct net *net)
{
	struct sroce_net *sn;
	struct socket *sock;

	sn = kzalloc(sizeof(*sn), GFP_KERNEL);
	if (!sn)
		return ERR_PTR(-ENOMEM);
	kref_init(&sn->ref);
	sn->net = net;

	sock = sroce_udp_open(net, sn, false);
	if (IS_ERR(sock))
		goto err_free;
	sn->sock4 = sock;

	if (ipv6_mod_enabled()) {
		sock = sroce_udp_open(net, sn, true);
		if (IS_ERR(sock))
			goto err_close;
		sn->sock6 = sock;
	}
	return sn;

err_close:
	sroce_net_close(sn);
err_free:
	kfree(sn);
	return ERR_CAST(sock);
}

/**
 * sroce_net_get() - take a reference on the sockets of a namespace
 * @net: the namespace of the device's netdev
 *
 * Opens the namespace's sockets if this is its first device.
 * Return: the per-namespace state, or an ERR_PTR.
 */
struct sroce_net *sroce_net_get(struct net *net)
{
	struct sroce_pernet *pn = net_generic(net, sroce_net_id);
	struct sroce_net *sn;

	mutex_lock(&sroce_net_lock);
	sn = pn->sn;
	if (sn) {
		kref_get(&sn->ref);
	} else {
		sn = sroce_net_create(net);
		if (!IS_ERR(sn))
			pn->sn = sn;
	}
	mutex_unlock(&sroce_net_lock);
	return sn;
}

static void sroce_net_release(struct kref *ref)
{
	struct sroce_net *sn = container_of(ref, struct sroce_net, ref);
	struct sroce_pernet *pn;

	if (sn->net) {
		pn = net_generic(sn->net, sroce_net_id);
		pn->sn = NULL;
		sroce_net_close(sn);
	}
	mutex_unlock(&sroce_net_lock);
	/* Receivers may still hold sn from sk_user_data under RCU. */
	kfree_rcu(sn, rcu);
}

/**
 * sroce_net_put() - drop a device's reference; the last one closes
 * @sn: from sroce_net_get()
 */
void sroce_net_put(struct sroce_net *sn)
{
	kref_put_mutex(&sn->ref, sroce_net_release, &sroce_net_lock);
}

/**
 * sroce_net_mc() - join or leave an IP multicast group on a netdev
 * @sn: the namespace's sockets
 * @ifindex: the netdev
 * @group: the group (IPv4 as v4-mapped)
 * @join: join, or leave
 *
 * The IP layer only accepts multicast datagrams for groups some socket has
 * joined; the namespace's RoCEv2 socket joins for the devices' QPs.
 * Process context. Return: 0 or a negative errno.
 */
int sroce_net_mc(struct sroce_net *sn, int ifindex,
		 const struct in6_addr *group, bool join)
{
	int err = -ENODEV;

	mutex_lock(&sroce_net_lock);
	rtnl_lock();
	if (ipv6_addr_v4mapped(group) && sn->sock4) {
		struct ip_mreqn mreq = {
			.imr_multiaddr.s_addr = group->s6_addr32[3],
			.imr_ifindex = ifindex,
		};

		lock_sock(sn->sock4->sk);
		err = join ? ip_mc_join_group(sn->sock4->sk, &mreq) :
			     ip_mc_leave_group(sn->sock4->sk, &mreq);
		release_sock(sn->sock4->sk);
	} else if (!ipv6_addr_v4mapped(group) && sn->sock6 && ipv6_stub) {
		lock_sock(sn->sock6->sk);
		err = join ? ipv6_stub->ipv6_sock_mc_join(sn->sock6->sk, ifindex,
							  group) :
			     ipv6_stub->ipv6_sock_mc_drop(sn->sock6->sk, ifindex,
							  group);
		release_sock(sn->sock6->sk);
	}
	rtnl_unlock();
	mutex_unlock(&sroce_net_lock);
	return err;
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_pernet *pn = net_generic(net, sroce_net_id);

	mutex_lock(&sroce_net_lock);
	if (pn->sn) {
		sroce_net_close(pn->sn);
		pn->sn = NULL;
	}
	mutex_unlock(&sroce_net_lock);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_pernet),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
