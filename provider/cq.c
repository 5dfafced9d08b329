// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: the kernel produces CQEs into a ring we map, we
 * consume them in poll_cq under the CQ's lock, or one at a time through
 * the ibv_cq_ex polling API (start_poll/next_poll/end_poll, read_*).
 * Arming is an ioctl() on the doorbell file, or ibv_cmd_req_notify_cq.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "sroce.h"

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct sroce_resp_create_cq resp = {};
	struct ibv_create_cq cmd = {};
	struct sroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_map_ring(ibctx, &resp.drv.mi, sizeof(struct sroce_cqe),
			     false, &cq->ring);
	if (ret)
		goto err_destroy;

	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->cqn = resp.drv.cqn;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/*
 * Arm the CQ. With the context's doorbell file (opened with its first QP)
 * and a kernel that numbers CQs, one ioctl(); otherwise uverbs'
 * REQ_NOTIFY_CQ command.
 */
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	int fd = __atomic_load_n(&to_sctx(ibcq->context)->db_fd,
				 __ATOMIC_RELAXED);
	struct sroce_cq *cq = to_scq(ibcq);

	if (fd < 0 || !cq->cqn)
		return ibv_cmd_req_notify_cq(ibcq, solicited_only);
	if (ioctl(fd, solicited_only ? SROCE_DOORBELL_CQ_SOLICITED :
				       SROCE_DOORBELL_CQ_NEXT,
		  (unsigned long)cq->cqn))
		return errno;
	return 0;
}

/*
 * ibv_cq_ex polling: start_poll takes the lock and the first CQE, which
 * stays taken until end_poll (not when there is none: then the caller
 * must not call end_poll). Each CQE is copied out and its slot given back
 * at once; the read_* functions read the copy.
 */
static int sroce_cq_next(struct sroce_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	int n = sroce_cq_take(&cq->ring, &cq->cur);

	if (n <= 0)
		return n ? -n : ENOENT;
	cqx->wr_id = cq->cur.wr_id;
	cqx->status = cq->cur.status;
	return 0;
}

static int sroce_start_poll(struct ibv_cq_ex *cqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = to_scq_ex(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = sroce_cq_next(cq);
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int sroce_next_poll(struct ibv_cq_ex *cqx)
{
	return sroce_cq_next(to_scq_ex(cqx));
}

static void sroce_end_poll(struct ibv_cq_ex *cqx)
{
	pthread_spin_unlock(&to_scq_ex(cqx)->lock);
}

static enum ibv_wc_opcode sroce_read_opcode(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.opcode;
}

static uint32_t sroce_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.vendor_err;
}

static uint32_t sroce_read_byte_len(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.byte_len;
}

/* Immediate data as sent (big-endian), or the invalidated rkey. */
static __be32 sroce_read_imm_data(struct ibv_cq_ex *cqx)
{
	return (__force __be32)to_scq_ex(cqx)->cur.ex;
}

static uint32_t sroce_read_qp_num(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.qp_num;
}

static uint32_t sroce_read_src_qp(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.src_qp;
}

static unsigned int sroce_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.wc_flags;
}

static uint32_t sroce_read_slid(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.slid;
}

static uint8_t sroce_read_sl(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.sl;
}

static uint8_t sroce_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur.dlid_path_bits;
}

/*
 * ibv_create_cq_ex(): the CQEs hold everything in IBV_WC_STANDARD_FLAGS;
 * no timestamps, VLANs, flow tags or tag matching, no parent domains, and
 * no IGNORE_OVERRUN (refused with EOPNOTSUPP). libibverbs fills in the
 * generic fields (channel, context, event counters) when we return.
 */
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_resp_create_cq_ex resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct ibv_cq_ex *cqx;
	struct sroce_cq *cq;
	int ret;

	if ((attr->comp_mask & ~(IBV_CQ_INIT_ATTR_MASK_FLAGS |
				 IBV_CQ_INIT_ATTR_MASK_PD)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	     attr->parent_domain) ||
	    (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		goto err_free;

	ret = sroce_map_ring(ibctx, &resp.drv.mi, sizeof(struct sroce_cqe),
			     false, &cq->ring);
	if (ret)
		goto err_destroy;

	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->cqn = resp.drv.cqn;
	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = sroce_start_poll;
	cqx->next_poll = sroce_next_poll;
	cqx->end_poll = sroce_end_poll;
	cqx->read_opcode = sroce_read_opcode;
	cqx->read_vendor_err = sroce_read_vendor_err;
	cqx->read_byte_len = sroce_read_byte_len;
	cqx->read_imm_data = sroce_read_imm_data;
	cqx->read_qp_num = sroce_read_qp_num;
	cqx->read_src_qp = sroce_read_src_qp;
	cqx->read_wc_flags = sroce_read_wc_flags;
	cqx->read_slid = sroce_read_slid;
	cqx->read_sl = sroce_read_sl;
	cqx->read_dlid_path_bits = sroce_read_dlid_path_bits;
	return cqx;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int n;

	pthread_spin_lock(&cq->lock);
	n = sroce_cq_poll(&cq->ring, ne, wc);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * The kernel moves the CQEs we have not polled into a new ring and
 * describes it in the response; the old ring is dead from then on. The
 * lock keeps pollers out until the new one is mapped. If it cannot be
 * mapped the CQ is left without a ring and poll_cq fails.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resp_resize_cq resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	struct ibv_resize_cq cmd = {};
	struct sroce_uring ring = {};
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (!ret) {
		ret = sroce_map_ring(ibcq->context, &resp.drv.mi,
				     sizeof(struct sroce_cqe), false, &ring);
		sroce_unmap_ring(&cq->ring);
		if (!ret)
			cq->ring = ring;
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	sroce_unmap_ring(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}
