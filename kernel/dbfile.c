// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dbfile.c: the doorbell file (uapi/rdma/sroce-abi.h). A process gets one
 * per context from SROCE_METHOD_DOORBELL_ALLOC and rings its QPs'
 * doorbells with an ioctl() on it, which reaches sroce_req_doorbell()
 * without the verbs file's command path: that path cost more than the
 * doorbell itself (Documentation/performance.rst).
 *
 * The file is an ib_uverbs FD object of the context (so ib_uverbs destroys
 * it with the context, on close or disassociation); its file operations
 * are in sroce_dbfile.ko (dbfile_fops.c). A ring finds the QP by number,
 * with a reference, and refuses one of another context. Nothing here
 * excludes destroy_qp: it waits for our reference, as for any engine.
 */
#include <linux/rcupdate.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#define UVERBS_MODULE_NAME sroce_ib
#include <rdma/uverbs_named_ioctl.h>

#include "cq.h"
#include "dbfile.h"
#include "device.h"
#include "doorbell.h"
#include "qp.h"

struct sroce_dbfile {
	struct ib_uobject uobj;		/* first: ib_uverbs allocates us */
	struct sroce_dev __rcu *sdev;	/* NULL once destroyed */
	const struct ib_ucontext *ibuc;	/* compared, never dereferenced */
};

/* Arm a CQ of the file's context: its REQ_NOTIFY_CQ. */
static long sroce_dbfile_arm(struct sroce_dbfile *f, unsigned int cmd,
			     unsigned long arg)
{
	struct sroce_cq *cq = NULL;
	struct sroce_dev *sdev;

	rcu_read_lock();
	sdev = rcu_dereference(f->sdev);
	if (sdev && arg && arg <= U32_MAX)
		cq = sroce_cq_get(sdev, arg);
	if (cq && cq->ibuc != f->ibuc) {
		sroce_cq_put(cq);
		cq = NULL;
	}
	rcu_read_unlock();
	if (!sdev)
		return -EIO;
	if (!cq)
		return -EINVAL;
	sroce_req_notify_cq(&cq->ibcq, cmd == SROCE_DOORBELL_CQ_NEXT ?
				       IB_CQ_NEXT_COMP : IB_CQ_SOLICITED);
	sroce_cq_put(cq);
	return 0;
}

static long sroce_dbfile_ring(struct ib_uobject *uobj, unsigned int cmd,
			      unsigned long arg)
{
	struct sroce_dbfile *f = container_of(uobj, struct sroce_dbfile, uobj);
	struct sroce_qp *qp = NULL;
	struct sroce_dev *sdev;

	if (cmd == SROCE_DOORBELL_CQ_NEXT || cmd == SROCE_DOORBELL_CQ_SOLICITED)
		return sroce_dbfile_arm(f, cmd, arg);
	if (cmd != SROCE_DOORBELL_SQ && cmd != SROCE_DOORBELL_RQ)
		return -ENOTTY;
	/*
	 * Under RCU the file's context, if not destroyed, is alive: it is
	 * freed after sroce_dbfile_destroy() waits for us. So a QP of the
	 * same address is of the same context.
	 */
	rcu_read_lock();
	sdev = rcu_dereference(f->sdev);
	if (sdev && arg <= SROCE_QPN_MAX)
		qp = sroce_qp_get(sdev, arg);
	if (qp && qp->ibuc != f->ibuc) {
		sroce_qp_put(qp);
		qp = NULL;
	}
	rcu_read_unlock();
	if (!sdev)
		return -EIO;
	if (!qp)
		return -EINVAL;

	if (cmd == SROCE_DOORBELL_SQ)
		sroce_req_doorbell(qp);
	else
		sroce_rq_doorbell(qp);
	sroce_qp_put(qp);
	return 0;
}

static const struct sroce_dbfile_ops sroce_dbfile_ops = {
	.ring = sroce_dbfile_ring,
};

/*
 * ib_uverbs destroys the object when the context goes, or when the file is
 * closed first; the file may stay open, dead.
 */
static void sroce_dbfile_destroy(struct ib_uobject *uobj,
				 enum rdma_remove_reason why)
{
	struct sroce_dbfile *f = container_of(uobj, struct sroce_dbfile, uobj);

	RCU_INIT_POINTER(f->sdev, NULL);
	/* Rings that found the device end, or hold a QP reference. */
	synchronize_rcu();
}

static int
UVERBS_HANDLER(SROCE_METHOD_DOORBELL_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	struct sroce_dbfile *f;

	uobj = uverbs_attr_get_uobject(attrs, SROCE_ATTR_DOORBELL_ALLOC_HANDLE);
	f = container_of(uobj, struct sroce_dbfile, uobj);
	f->ibuc = uobj->context;
	rcu_assign_pointer(f->sdev, to_sdev(uobj->context->device));
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(SROCE_METHOD_DOORBELL_ALLOC,
			    UVERBS_ATTR_FD(SROCE_ATTR_DOORBELL_ALLOC_HANDLE,
					   SROCE_OBJECT_DOORBELL,
					   UVERBS_ACCESS_NEW, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(SROCE_OBJECT_DOORBELL,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct sroce_dbfile),
						 sroce_dbfile_destroy,
						 &sroce_dbfile_fops,
						 "[sroce_doorbell]", O_RDONLY),
			    &UVERBS_METHOD(SROCE_METHOD_DOORBELL_ALLOC));

const struct uapi_definition sroce_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(SROCE_OBJECT_DOORBELL),
	{}
};

int sroce_dbfile_init(void)
{
	return sroce_dbfile_register(&sroce_dbfile_ops);
}

/* After the devices are gone: waits for the rings in progress. */
void sroce_dbfile_exit(void)
{
	sroce_dbfile_unregister(&sroce_dbfile_ops);
}
