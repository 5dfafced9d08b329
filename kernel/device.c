// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * device.c: sroce devices: creation by `rdma link add`, removal, the port
 * and its state, and the device attributes.
 *
 * Every device is on sroce_devices, and that list holds a reference on the
 * device's struct device. The RDMA core frees a device after calling our
 * dealloc_driver; keeping our own reference until a later, separate call of
 * ib_unregister_device() (which waits for any unregistration in progress to
 * finish) fences dealloc_driver before the module can go away.
 *
 * Lock order: sroce_dev_lock is never held across calls into the RDMA core,
 * which takes RTNL; the netdev notifier runs under RTNL and finds devices
 * under RCU.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/sroce-abi.h>

#include "av.h"
#include "cq.h"
#include "device.h"
#include "mcast.h"
#include "mr.h"
#include "net.h"
#include "qp.h"
#include "srq.h"
#include "verbs.h"
#include "xmit.h"

#define SROCE_NAME_PREFIX	"sroce"
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI: software */
#define SROCE_GID_TBL_LEN	128
#define SROCE_MAX_MSG_SZ	0x80000000u	/* 2 GiB, the IBTA limit */

/*
 * Bytes a RoCEv2 packet adds around its payload, worst case: IPv6 (40),
 * UDP (8), BTH (12), RETH + ImmDt (20) and the ICRC (4). The active MTU is
 * the largest IB MTU whose packets still fit in the netdev's MTU.
 */
#define SROCE_MAX_OVERHEAD	(40 + 8 + 12 + 20 + 4)

static LIST_HEAD(sroce_devices);
static DEFINE_MUTEX(sroce_dev_lock);

static void sroce_reap(struct work_struct *work);
static DECLARE_WORK(sroce_reap_work, sroce_reap);

static enum ib_port_state sroce_netdev_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

enum ib_mtu sroce_active_mtu(struct net_device *ndev)
{
	int room = READ_ONCE(ndev->mtu) - SROCE_MAX_OVERHEAD;

	return ib_mtu_int_to_enum(room);
}

int sroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->sys_image_guid = ibdev->node_guid;
	/*
	 * What holds, each checked by t-caps.py: RNR NAKs, port events, the
	 * system image GUID, fast registration and invalidation (mr.c),
	 * windows (mw.c), SRQ resize (srq.c).
	 */
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_SRQ_RESIZE;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	attr->max_pkeys = 1;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->atomic_cap = IB_ATOMIC_HCA;	/* atomic against other QPs */
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP *
					  SROCE_MAX_MCAST_QP_ATTACH;
	return 0;
}

int sroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct net_device *ndev = to_sdev(ibdev)->ndev;
	int err;

	/* The core zeroes *attr. */
	attr->state = sroce_netdev_state(ndev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_active_mtu(ndev);
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SZ;
	attr->max_vl_num = 1;
	attr->lmc = 0;

	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	return err;
}

int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void sroce_port_event(struct sroce_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/* Report a port state change once; RTNL held. */
static void sroce_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_netdev_state(sdev->ndev);

	ASSERT_RTNL();
	sroce_cc_line_update(sdev);
	if (state == sdev->port_state)
		return;
	sdev->port_state = state;
	sroce_port_event(sdev, state == IB_PORT_ACTIVE ?
			 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

/**
 * sroce_dev_get_by_netdev() - the registered device bound to a netdev
 * @ndev: the netdev
 *
 * Any context. Return: the device with a registration reference (drop it
 * with ib_device_put()), or NULL.
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(sdev, &sroce_devices, list) {
		if (sdev->ndev == ndev && !READ_ONCE(sdev->dead) &&
		    ib_device_try_get(&sdev->ibdev)) {
			found = sdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(ndev);

	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Not here: unregistering takes RTNL, which we hold. */
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_port_update(sdev);
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

/* Last driver callback for a device, from the RDMA core. */
void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_loop_fini(sdev);
	if (sdev->sn)
		sroce_net_put(sdev->sn);
	sdev->sn = NULL;
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	/* The core destroyed every object before calling us. */
	WARN_ON_ONCE(!xa_empty(&sdev->qp_xa) || !xa_empty(&sdev->mr_xa) ||
		     !xa_empty(&sdev->ah_xa) || !xa_empty(&sdev->cq_xa) ||
		     !list_empty(&sdev->mcgs));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	xa_destroy(&sdev->ah_xa);
	xa_destroy(&sdev->cq_xa);
	sroce_cc_dev_fini(sdev);
	sroce_counters_fini(&sdev->counters);

	mutex_lock(&sroce_dev_lock);
	WRITE_ONCE(sdev->dead, true);
	mutex_unlock(&sroce_dev_lock);
	queue_work(system_wq, &sroce_reap_work);
}

/*
 * Drop the list's reference of one device taken off the list. The
 * ib_unregister_device() call does nothing to a dead device except wait
 * until whoever is unregistering it has returned from our callbacks.
 */
static void sroce_dev_release(struct sroce_dev *sdev)
{
	ib_unregister_device(&sdev->ibdev);
	put_device(&sdev->ibdev.dev);
}

static void sroce_reap(struct work_struct *work)
{
	struct sroce_dev *sdev, *found;

	for (;;) {
		found = NULL;
		mutex_lock(&sroce_dev_lock);
		list_for_each_entry(sdev, &sroce_devices, list) {
			if (sdev->dead) {
				list_del_rcu(&sdev->list);
				found = sdev;
				break;
			}
		}
		mutex_unlock(&sroce_dev_lock);
		if (!found)
			return;
		sroce_dev_release(found);
	}
}

static struct sroce_dev *sroce_find_locked(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_dev_lock);
	list_for_each_entry(sdev, &sroce_devices, list)
		if (sdev->ndev == ndev && !sdev->dead)
			return sdev;
	return NULL;
}

static int sroce_check_link(const char *name, struct net_device *ndev)
{
	struct ib_device *other;

	if (strncmp(name, SROCE_NAME_PREFIX, strlen(SROCE_NAME_PREFIX))) {
		pr_err("%s: device names must start with \"%s\" (the provider matches on it)\n",
		       name, SROCE_NAME_PREFIX);
		return -EINVAL;
	}
	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s: %s is not an Ethernet device\n", name, ndev->name);
		return -EOPNOTSUPP;
	}
	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_err("%s: an RDMA device of that name exists\n", name);
		return -EEXIST;
	}
	return 0;
}

/* Claim @ndev for @sdev; fails if another sroce device already has it. */
static int sroce_dev_list_add(struct sroce_dev *sdev, const char *name)
{
	struct sroce_dev *other;
	int err = 0;

	mutex_lock(&sroce_dev_lock);
	other = sroce_find_locked(sdev->ndev);
	if (other) {
		pr_err("%s: %s already has sroce device %s\n",
		       name, sdev->ndev->name,
		       dev_name(&other->ibdev.dev));
		err = -EEXIST;
	} else {
		get_device(&sdev->ibdev.dev);
		list_add_tail_rcu(&sdev->list, &sroce_devices);
	}
	mutex_unlock(&sroce_dev_lock);
	return err;
}

static void sroce_dev_init(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct ib_device *ibdev = &sdev->ibdev;

	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&sdev->list);
	sdev->port_state = IB_PORT_NOP;
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->cq_xa, XA_FLAGS_ALLOC);
	mutex_init(&sdev->mcast_lock);
	INIT_LIST_HEAD(&sdev->mcgs);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	sroce_set_device_ops(ibdev);
}

/**
 * sroce_newlink() - `rdma link add NAME type sroce netdev NDEV`
 * @ibdev_name: NAME, which may hold a %d
 * @ndev: the netdev, held by the caller for the duration of the call
 *
 * Return: 0 or a negative errno, with one kernel message saying why.
 */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	struct sroce_net *sn;
	bool gone;
	int err;

	err = sroce_check_link(ibdev_name, ndev);
	if (err)
		return err;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	sroce_dev_init(sdev, ndev);
	/* From here on, ib_dealloc_device() undoes everything. */
	err = sroce_counters_init(&sdev->counters);
	if (err)
		goto err_dealloc;
	err = sroce_loop_init(sdev);
	if (err)
		goto err_dealloc;
	err = sroce_cc_dev_init(sdev);
	if (err)
		goto err_dealloc;

	err = sroce_dev_list_add(sdev, ibdev_name);
	if (err)
		goto err_dealloc;

	sn = sroce_net_get(dev_net(ndev));
	if (IS_ERR(sn)) {
		err = PTR_ERR(sn);
		goto err_dealloc;
	}
	sdev->sn = sn;

	err = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err) {
		pr_err("%s: registration failed: %d\n", ibdev_name, err);
		goto err_dealloc;
	}

	/*
	 * Anyone may unregister the device from now on; the list's reference
	 * keeps it in memory. If the netdev began to go away before the
	 * device was findable, its notifier missed us: undo.
	 */
	rtnl_lock();
	gone = ndev->reg_state != NETREG_REGISTERED;
	if (!gone)
		sroce_port_update(sdev);
	rtnl_unlock();
	if (gone) {
		pr_err("%s: %s went away while the device was created\n",
		       ibdev_name, ndev->name);
		ib_unregister_device(&sdev->ibdev);
		return -ENODEV;
	}
	return 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

/*
 * Removal under live processes. sroce implements disassociate_ucontext
 * (verbs.c), so unregistering a device (rdma link delete, the netdev
 * going away, rmmod) does not wait for the processes that have it open:
 * ib_uverbs destroys their objects and their later calls fail with EIO.
 * Their rings stay mapped, though, and a process that polls a CQ would
 * wait there forever for completions that nobody will write. So before
 * ib_uverbs takes the objects away, every user QP is moved to the error
 * state, which completes all it has posted with IB_WC_WR_FLUSH_ERR in its
 * CQs, and the process sees its work end, as with a ConnectX that died.
 *
 * ib_core removes clients from a device in the reverse order of their
 * registration, and sroce needs ib_uverbs (rdma_user_mmap_*), so ib_uverbs
 * registered its client before this one: sroce_client_remove() runs first.
 */
static int sroce_client_add(struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == sroce_dealloc_driver ?
		0 : -EOPNOTSUPP;
}

static void sroce_client_remove(struct ib_device *ibdev, void *client_data)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct sroce_qp *qp;
	unsigned long qpn;
	void *entry;

	xa_for_each(&sdev->qp_xa, qpn, entry) {
		qp = sroce_qp_get(sdev, qpn);
		if (!qp)
			continue;
		if (sroce_qp_is_user(qp))
			sroce_qp_error(qp);
		sroce_qp_put(qp);
		cond_resched();
	}
}

static struct ib_client sroce_client = {
	.name = "sroce",
	.no_kverbs_req = true,
	.add = sroce_client_add,
	.remove = sroce_client_remove,
};

int sroce_device_init(void)
{
	int err;

	err = ib_register_client(&sroce_client);
	if (err)
		return err;
	err = register_netdevice_notifier(&sroce_netdev_notifier);
	if (err)
		ib_unregister_client(&sroce_client);
	return err;
}

/* Remove every device; no new ones can be created any more. */
void sroce_device_exit(void)
{
	struct sroce_dev *sdev;

	for (;;) {
		mutex_lock(&sroce_dev_lock);
		sdev = list_first_entry_or_null(&sroce_devices,
						struct sroce_dev, list);
		if (sdev)
			list_del_rcu(&sdev->list);
		mutex_unlock(&sroce_dev_lock);
		if (!sdev)
			break;
		sroce_dev_release(sdev);
	}
	cancel_work_sync(&sroce_reap_work);
	unregister_netdevice_notifier(&sroce_netdev_notifier);
	ib_unregister_client(&sroce_client);
}
