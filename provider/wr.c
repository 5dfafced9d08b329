// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ibv_wr_* post-send API (ibv_wr_post(3)) for QPs made by
 * ibv_create_qp_ex() with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.
 *
 * Same send ring, same WQEs, same doorbell as post_send: ibv_wr_start()
 * takes the send queue's lock, each builder and setter writes into the
 * next slot (ring.h, sroce_wr_*), and ibv_wr_complete() publishes the
 * whole batch with one release store of prod, drops the lock and rings
 * the doorbell once. Builders and setters report nothing: the first
 * error of a batch makes ibv_wr_complete() fail and post none of it.
 */
#include <errno.h>
#include <pthread.h>

#include "sroce.h"

/*
 * Where libibverbs looks for VERBS_QP_EX. struct verbs_qp puts comp_mask
 * right after its union with struct ibv_qp_ex, and ibv_qp_ex grew a member
 * (wr_flush, rdma-core 45) without a new provider ABI: libibverbs 44.0
 * (Debian 12) reads comp_mask where these (56.1) headers have wr_flush,
 * and ibv_qp_to_qp_ex() would find no VERBS_QP_EX where we set it. So we
 * ask the loaded library's own ibv_qp_to_qp_ex() once, on a blank
 * verbs_qp, which of the two places it reads.
 */
#define SROCE_QP_EX_END_V44                                                    \
	(offsetof(struct ibv_qp_ex, wr_atomic_write) + sizeof(void *))

static_assert(SROCE_QP_EX_END_V44 == offsetof(struct ibv_qp_ex, wr_flush),
	      "libibverbs 44's ibv_qp_ex ends where wr_flush starts");

static pthread_once_t qp_ex_once = PTHREAD_ONCE_INIT;
static size_t qp_ex_mask_off;	/* 0: no layout we know */

static void sroce_qp_ex_probe(void)
{
	static const size_t offs[] = {
		offsetof(struct verbs_qp, comp_mask),	/* as compiled */
		SROCE_QP_EX_END_V44,
	};
	unsigned int i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct verbs_qp probe = {};
		uint32_t mask = VERBS_QP_EX;

		memcpy((uint8_t *)&probe + offs[i], &mask, sizeof(mask));
		if (ibv_qp_to_qp_ex(&probe.qp) == &probe.qp_ex) {
			qp_ex_mask_off = offs[i];
			return;
		}
	}
}

bool sroce_qp_ex_supported(void)
{
	pthread_once(&qp_ex_once, sroce_qp_ex_probe);
	return qp_ex_mask_off;
}

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	pthread_spin_lock(&qp->sq_lock);
	sroce_wr_begin(&qp->sq, &qp->wr);
}

/* Like post_send: before RTS nothing is queued; one doorbell, unlocked. */
static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	uint32_t posted;
	int ret;

	if (qp->vqp.qp.state < IBV_QPS_RTS)
		sroce_wr_fail(&qp->wr, EINVAL);
	ret = sroce_wr_end(&qp->sq, &qp->wr, &posted);
	pthread_spin_unlock(&qp->sq_lock);

	if (posted)
		ret = sroce_doorbell(&qp->vqp.qp, false);
	return ret;
}

static void sroce_wr_abort_batch(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	sroce_wr_abort(&qp->sq, &qp->wr);
	pthread_spin_unlock(&qp->sq_lock);
}

static struct sroce_send_wqe *sroce_wr_op(struct ibv_qp_ex *qpx,
					  enum ibv_wr_opcode op)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	return sroce_wr_new(&qp->sq, &qp->caps, &qp->wr, op, qpx->wr_id,
			    qpx->wr_flags);
}

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_op(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->ex.imm_data = imm_data;
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = invalidate_rkey;
}

static struct sroce_send_wqe *sroce_wr_rdma(struct ibv_qp_ex *qpx,
					    enum ibv_wr_opcode op,
					    uint32_t rkey, uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, op);

	if (wqe) {
		wqe->wr.rdma.remote_addr = remote_addr;
		wqe->wr.rdma.rkey = rkey;
	}
	return wqe;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey,
			    remote_addr);
	if (wqe)
		wqe->ex.imm_data = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void sroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, op);

	if (!wqe)
		return;
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.compare_add = compare_add;
	wqe->wr.atomic.swap = swap;
	wqe->wr.atomic.rkey = rkey;
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = rkey;
}

/* A type 2 window: the application keeps track of its new rkey. */
static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *info)
{
	struct sroce_send_wqe *wqe = sroce_wr_op(qpx, IBV_WR_BIND_MW);

	if (wqe)
		sroce_wqe_bind(wqe, rkey, info);
}

/* TSO, XRC and atomic write: a batch that uses them fails. */

static void sroce_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr,
			      uint16_t hdr_sz, uint16_t mss)
{
	sroce_wr_fail(&to_sqp_ex(qpx)->wr, EOPNOTSUPP);
}

static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t srqn)
{
	sroce_wr_fail(&to_sqp_ex(qpx)->wr, EOPNOTSUPP);
}

static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	sroce_wr_fail(&to_sqp_ex(qpx)->wr, EOPNOTSUPP);
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	if (!ah) {
		sroce_wr_fail(&qp->wr, EINVAL);
		return;
	}
	sroce_wr_set_ud(&qp->wr, &qp->caps, to_sah(ah)->num, remote_qpn,
			remote_qkey);
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sges(&qp->wr, &qp->caps, 1, &sge);
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	sroce_wr_set_sges(&qp->wr, &qp->caps, num_sge, sg_list);
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline(&qp->wr, &qp->caps, 1, &buf);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	sroce_wr_set_inline(&qp->wr, &qp->caps, num_buf, buf_list);
}

/*
 * Called on a QP created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, after
 * sroce_qp_ex_supported(). Every builder is set, whatever the QP type and
 * send_ops_flags: one the QP cannot do fails its batch rather than
 * calling through NULL. (wr_flush, only in newer headers, is left NULL:
 * with libibverbs 44 that memory is its comp_mask.)
 */
void sroce_qp_ex_init(struct sroce_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	uint32_t mask;

	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort_batch;
	qpx->wr_send = sroce_wr_send;
	qpx->wr_send_imm = sroce_wr_send_imm;
	qpx->wr_send_inv = sroce_wr_send_inv;
	qpx->wr_send_tso = sroce_wr_send_tso;
	qpx->wr_rdma_write = sroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = sroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	qpx->wr_atomic_write = sroce_wr_atomic_write;
	qpx->wr_local_inv = sroce_wr_local_inv;
	qpx->wr_bind_mw = sroce_wr_bind_mw;
	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;

	memcpy(&mask, (uint8_t *)&qp->vqp + qp_ex_mask_off, sizeof(mask));
	mask |= VERBS_QP_EX;
	memcpy((uint8_t *)&qp->vqp + qp_ex_mask_off, &mask, sizeof(mask));
}
