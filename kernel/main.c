// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: a soft RoCEv2 NIC. `rdma link add NAME type sroce netdev DEV`
 * turns an Ethernet netdev into an RDMA device.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "dbfile.h"
#include "device.h"
#include "doorbell.h"
#include "net.h"
#include "poll.h"

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int __init sroce_init(void)
{
	int err;

	err = sroce_net_init();
	if (err)
		return err;
	err = sroce_device_init();
	if (err)
		goto err_net;
	err = sroce_poll_init();
	if (err)
		goto err_device;
	err = sroce_doorbell_init();
	if (err)
		goto err_poll;
	err = sroce_dbfile_init();
	if (err)
		goto err_doorbell;
	rdma_link_register(&sroce_link_ops);
	return 0;

err_doorbell:
	sroce_doorbell_exit();
err_poll:
	sroce_poll_exit();
err_device:
	sroce_device_exit();
err_net:
	sroce_net_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	sroce_device_exit();
	sroce_dbfile_exit();
	sroce_doorbell_exit();
	sroce_poll_exit();
	sroce_net_exit();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("Soft RoCEv2 RDMA device on any Ethernet netdev");
MODULE_AUTHOR("The sroce authors");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
