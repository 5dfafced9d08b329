/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * qp.h: queue pairs: creation, the state machine, attributes.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "av.h"
#include "cc.h"
#include "queue.h"
#include "rcresp.h"
#include "req.h"

#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_INLINE	512
#define SROCE_MIN_QPN		16	/* below: reserved (QP0, QP1) */
#define SROCE_GSI_QPN		1
#define SROCE_QPN_MAX		0xffffff

struct sroce_qp {
	struct ib_qp ibqp;
	struct kref ref;		/* lookup references */
	struct completion free;
	spinlock_t lock;		/* state and attributes (outermost) */
	spinlock_t sq_lock;		/* the requester; then rq_lock */
	spinlock_t resp_lock;		/* the RC/UC responder; then rq_lock */
	spinlock_t rq_lock;		/* the receive ring */

	enum ib_qp_state state;
	/* A user QP's context (NULL: a kernel QP); only compared. */
	const struct ib_ucontext *ibuc;
	bool sq_sig_all;
	struct sroce_queue sq;
	struct sroce_queue rq;		/* unused with an SRQ */
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;

	/* Attributes from modify_qp. */
	u32 qkey;
	u32 dest_qpn;
	u32 sq_psn;
	u32 rq_psn;
	int access;			/* IB_ACCESS_REMOTE_* */
	enum ib_mtu path_mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	bool sq_draining;
	bool dying;			/* being destroyed: no more events */
	u32 mtu;			/* path MTU in bytes, for RC and UC */
	struct sroce_av av;
	struct dst_cache route;		/* RC, UC: the route to av (xmit.c) */
	bool looped;			/* its last packet to av stayed here */

	/*
	 * RC: doorbells since the QP last waited for its peer (took a
	 * request, completed a signaled WQE); past a few, it streams.
	 */
	unsigned int streak;
	/*
	 * SROCE_SQ_*: a doorbell and the completer that holds sq_lock hand
	 * the send over (sroce_req_doorbell()); atomic bit operations.
	 */
	unsigned long sq_flags;
	struct sroce_req req;		/* under sq_lock */
	struct sroce_resp resp;		/* RC, UC: under resp_lock */
	struct sroce_cc_qp cc;		/* RC, UC, UD: DCQCN */

	/* Kernel QPs (kverbs.c): producers of the rings. */
	spinlock_t post_lock;		/* leaf; any context */
	/*
	 * The requester in process context (doorbell.c): a kernel QP's
	 * doorbell, and the rest of any pass that ran out of its budget.
	 * Holds a QP reference while queued.
	 */
	struct work_struct send_work;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/* A user QP: posts through its rings, which the provider shares. */
static inline bool sroce_qp_is_user(const struct sroce_qp *qp)
{
	return qp->ibuc;
}

/* RC and UC QPs have the connected engines' state (req, resp). */
static inline bool sroce_qp_connected(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

/* RC, UC and UD QPs have DCQCN (cc.c); the GSI QP does not. */
static inline bool sroce_qp_has_cc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type != IB_QPT_GSI;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

struct sroce_dev;
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);
void sroce_qp_error(struct sroce_qp *qp);
#define SROCE_EVENT_NONE	(-1)
void sroce_qp_error_event(struct sroce_qp *qp, int type);
u32 sroce_wc_opcode(u32 wr_opcode);

#endif /* SROCE_QP_H */
