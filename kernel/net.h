/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * net.h: the RoCEv2 UDP sockets (port 4791), one pair per network namespace
 * that holds at least one sroce device.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

struct net;
struct sroce_net;

struct in6_addr;

struct sroce_net *sroce_net_get(struct net *net);
void sroce_net_put(struct sroce_net *sn);
int sroce_net_mc(struct sroce_net *sn, int ifindex,
		 const struct in6_addr *group, bool join);

int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* SROCE_NET_H */
