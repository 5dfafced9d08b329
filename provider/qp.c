// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs (RC, UC, UD): a send ring and, unless the QP uses an SRQ, a
 * receive ring, both produced by us. post_send fills the send ring and
 * then rings the doorbell once for the whole chain (wr.c does the same
 * for a batch of ibv_wr_* calls); post_recv needs no doorbell except on a
 * QP in the error state.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <infiniband/cmd_ioctl.h>

#include "sroce.h"

/* What both create paths check before asking the kernel. */
static int sroce_qp_check(struct sroce_context *ctx, enum ibv_qp_type type,
			  const struct ibv_qp_cap *cap)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	default:
		return EOPNOTSUPP;
	}
	if (cap->max_inline_data > ctx->max_inline_data)
		return EINVAL;
	return 0;
}

/*
 * sroce_qp_map() - map the rings of a QP the kernel has just created
 * @cap: the caps the kernel granted
 *
 * On failure the caller destroys the QP.
 */
static int sroce_qp_map(struct sroce_qp *qp, struct ibv_context *ibctx,
			const struct sroce_create_qp_resp *drv,
			enum ibv_qp_type type, const struct ibv_qp_cap *cap,
			int sq_sig_all, struct ibv_srq *srq)
{
	int ret;

	qp->caps.qp_type = type;
	qp->caps.max_sge = cap->max_send_sge;
	qp->caps.max_inline = cap->max_inline_data;
	qp->caps.sig_all = sq_sig_all;
	qp->max_recv_sge = cap->max_recv_sge;

	ret = sroce_map_ring(ibctx, &drv->sq,
			     sroce_send_wqe_size(qp->caps.max_sge,
						 qp->caps.max_inline),
			     true, &qp->sq);
	if (ret)
		return ret;

	/* The kernel gives an RQ exactly when there is no SRQ. */
	if (!!drv->rq.size == !!srq) {
		ret = EPROTO;
		goto err_unmap_sq;
	}
	if (!srq) {
		ret = sroce_map_ring(ibctx, &drv->rq,
				     sroce_recv_wqe_size(qp->max_recv_sge),
				     true, &qp->rq);
		if (ret)
			goto err_unmap_sq;
	}

	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return 0;

err_unmap_sq:
	sroce_unmap_ring(&qp->sq);
	return ret;
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr)
{
	struct sroce_context *ctx = to_sctx(ibpd->context);
	struct sroce_resp_create_qp resp = {};
	struct ibv_create_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	ret = sroce_qp_check(ctx, attr->qp_type, &attr->cap);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	/* On success attr->cap holds what the kernel granted. */
	ret = ibv_cmd_create_qp(ibpd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_qp_map(qp, ibpd->context, &resp.drv, attr->qp_type,
			   &attr->cap, attr->sq_sig_all, attr->srq);
	if (ret)
		goto err_destroy;
	sroce_open_doorbell(ctx);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * ibv_create_qp_ex(): what ibv_create_qp() does, plus send_ops_flags for
 * the ibv_wr_* API. Any other extension is refused. (libibverbs handles a
 * comp_mask of only IBV_QP_INIT_ATTR_PD with ibv_create_qp() itself.)
 */
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_context *ctx = to_sctx(ibctx);
	struct sroce_resp_create_qp resp = {};
	struct ibv_qp_init_attr_ex a = *attr;
	struct ibv_create_qp cmd = {};
	struct sroce_qp *qp;
	bool ex;
	int ret;

	if (a.comp_mask & ~(IBV_QP_INIT_ATTR_PD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			    IBV_QP_INIT_ATTR_CREATE_FLAGS) ||
	    ((a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a.create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(a.comp_mask & IBV_QP_INIT_ATTR_PD) || !a.pd ||
	    a.pd->context != ibctx) {
		errno = EINVAL;
		return NULL;
	}
	a.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;

	ret = sroce_qp_check(ctx, a.qp_type, &a.cap);
	if (ret) {
		errno = ret;
		return NULL;
	}
	ex = a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	if (ex && ((a.send_ops_flags & ~sroce_send_ops(a.qp_type)) ||
		   !sroce_qp_ex_supported())) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, &a, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	attr->cap = a.cap;

	ret = sroce_qp_map(qp, ibctx, &resp.drv, a.qp_type, &a.cap,
			   a.sq_sig_all, a.srq);
	if (ret)
		goto err_destroy;
	if (ex)
		sroce_qp_ex_init(qp);
	sroce_open_doorbell(ctx);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/* libibverbs records the new state in ibqp->state when this succeeds. */
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	sroce_unmap_ring(&qp->rq);
	sroce_unmap_ring(&qp->sq);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}

/*
 * sroce_open_doorbell() - open the context's doorbell file, once
 *
 * Called when a QP is created. A kernel without doorbell files, or
 * SROCE_LEGACY_DOORBELL set in the environment, leaves db_fd at -1.
 */
void sroce_open_doorbell(struct sroce_context *ctx)
{
	DECLARE_COMMAND_BUFFER(cmd, SROCE_OBJECT_DOORBELL,
			       SROCE_METHOD_DOORBELL_ALLOC, 1);
	struct ib_uverbs_attr *handle;

	pthread_mutex_lock(&ctx->db_lock);
	if (!ctx->db_tried) {
		ctx->db_tried = true;
		handle = fill_attr_out_fd(cmd, SROCE_ATTR_DOORBELL_ALLOC_HANDLE,
					  0);
		if (!getenv("SROCE_LEGACY_DOORBELL") &&
		    !execute_ioctl(&ctx->vctx.context, cmd))
			__atomic_store_n(&ctx->db_fd,
					 read_attr_fd(SROCE_ATTR_DOORBELL_ALLOC_HANDLE,
						      handle),
					 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ctx->db_lock);
}

/*
 * Without a doorbell file: a legacy POST_SEND (or POST_RECV) with no WRs.
 * Both commands have the same layout, and with no WRs only the header
 * matters.
 */
static int sroce_legacy_doorbell(struct ibv_qp *ibqp, bool recv)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd = {};
	ssize_t n;

	static_assert(sizeof(struct ibv_post_send) ==
		      sizeof(struct ibv_post_recv), "doorbell layouts");
	static_assert(offsetof(struct ibv_post_send, wqe_size) ==
		      offsetof(struct ibv_post_recv, wqe_size),
		      "doorbell layouts");
	cmd.hdr.command = recv ? IB_USER_VERBS_CMD_POST_RECV :
				 IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wqe_size = recv ? sizeof(struct ib_uverbs_recv_wr) :
			      sizeof(struct ib_uverbs_send_wr);

	n = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (n == sizeof(cmd))
		return 0;
	return n < 0 ? errno : EIO;
}

/*
 * The doorbells. The kernel takes the send WQEs from the ring (up to the
 * prod we published) in this call; a receive doorbell only makes a QP in
 * the error state flush. With a doorbell file, one ioctl() naming the QP.
 */
int sroce_doorbell(struct ibv_qp *ibqp, bool recv)
{
	int fd = __atomic_load_n(&to_sctx(ibqp->context)->db_fd,
				 __ATOMIC_RELAXED);

	if (fd < 0)
		return sroce_legacy_doorbell(ibqp, recv);
	if (ioctl(fd, recv ? SROCE_DOORBELL_RQ : SROCE_DOORBELL_SQ,
		  (unsigned long)ibqp->qp_num))
		return errno;
	return 0;
}

/*
 * Posting before RTS is an immediate error: nothing is queued. Otherwise the
 * WRs are written up to the first one that fails, those are published,
 * and one doorbell covers them; it is rung after dropping the lock, since
 * it may run the requester for a while. If only the doorbell fails, every
 * WR is in the ring (*bad_wr stays NULL) and the next doorbell sends them.
 */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	uint32_t posted;
	int ret, db;

	*bad_wr = NULL;
	if (!wr)
		return 0;
	if (ibqp->state < IBV_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->sq_lock);
	ret = sroce_sq_post(&qp->sq, &qp->caps, wr, bad_wr, &posted);
	pthread_spin_unlock(&qp->sq_lock);

	if (posted) {
		db = sroce_doorbell(ibqp, false);
		if (!ret)
			ret = db;
	}
	return ret;
}

/* Receives may be posted from INIT on (IBA C10-97.2.1), not in RESET. */
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	*bad_wr = NULL;
	if (!wr)
		return 0;
	if (ibqp->state == IBV_QPS_RESET || !qp->rq.hdr) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq_lock);
	ret = sroce_rq_post(&qp->rq, qp->max_recv_sge, wr, bad_wr);
	pthread_spin_unlock(&qp->rq_lock);
	/*
	 * A QP in the error state must flush what is posted to it at once,
	 * as in the drain idiom (move to error, post a marker receive, wait
	 * for its flush completion); the kernel may have put it there on its
	 * own, which the ring's flags tell.
	 */
	if (*bad_wr != wr && (ibqp->state == IBV_QPS_ERR ||
			      sroce_uring_in_error(&qp->rq))) {
		int db = sroce_doorbell(ibqp, true);

		if (!ret)
			ret = db;
	}
	return ret;
}
