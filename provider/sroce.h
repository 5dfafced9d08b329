/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rdma-core provider's objects. Each wraps the libibverbs object it
 * extends; the kernel interface lives in <rdma/sroce-abi.h>, the ring code
 * in ring.h.
 */
#ifndef SROCE_H
#define SROCE_H

#include <pthread.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <rdma/sroce-abi.h>

#include "ring.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
	uint32_t max_inline_data;	/* the device's limit per send WQE */
	/*
	 * The doorbell file (qp.c), opened with the first QP; until then,
	 * or if the kernel has none, -1: the legacy doorbell. Read
	 * unlocked, with atomics.
	 */
	int db_fd;
	bool db_tried;			/* under db_lock */
	pthread_mutex_t db_lock;
};

struct sroce_pd {
	struct ibv_pd ibpd;
};

struct sroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* pollers, resize; held from
					 * start_poll to end_poll */
	struct sroce_uring ring;	/* we consume */
	struct sroce_cqe cur;		/* ibv_cq_ex: the CQE being read */
	uint32_t cqn;			/* for the doorbell file; 0: none */
};

struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_sq_caps caps;
	pthread_spinlock_t sq_lock;
	struct sroce_uring sq;
	struct sroce_wr_batch wr;	/* ibv_wr_*: under sq_lock */
	pthread_spinlock_t rq_lock;
	struct sroce_uring rq;		/* not mapped when the QP has an SRQ */
	uint32_t max_recv_sge;
};

struct sroce_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	struct sroce_uring ring;
	uint32_t max_sge;
};

/*
 * Command responses: the uverbs core part, then ours (the kernel writes
 * ours into the driver's udata, which starts right after the core part).
 */
#define SROCE_RESP(_name, _core, _drv)                                         \
	struct sroce_resp_##_name {                                            \
		struct _core ibv_resp;                                         \
		struct _drv drv;                                               \
	};                                                                     \
	static_assert(offsetof(struct sroce_resp_##_name, drv) ==              \
			      sizeof(struct _core),                            \
		      "no padding between core and driver response")

SROCE_RESP(get_context, ib_uverbs_get_context_resp,
	   sroce_alloc_ucontext_resp);
SROCE_RESP(create_cq, ib_uverbs_create_cq_resp, sroce_create_cq_resp);
SROCE_RESP(create_cq_ex, ib_uverbs_ex_create_cq_resp, sroce_create_cq_resp);
SROCE_RESP(resize_cq, ib_uverbs_resize_cq_resp, sroce_resize_cq_resp);
SROCE_RESP(create_qp, ib_uverbs_create_qp_resp, sroce_create_qp_resp);
SROCE_RESP(create_srq, ib_uverbs_create_srq_resp, sroce_create_srq_resp);
SROCE_RESP(create_ah, ib_uverbs_create_ah_resp, sroce_create_ah_resp);

/* IB_USER_VERBS_CMD_MODIFY_SRQ with our part after the core's. */
struct sroce_cmd_modify_srq {
	struct ibv_modify_srq ibv_cmd;
	struct sroce_modify_srq_cmd drv;
};
static_assert(offsetof(struct sroce_cmd_modify_srq, drv) ==
		      sizeof(struct ibv_modify_srq),
	      "no padding between core and driver command");

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_cq *to_scq_ex(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct sroce_cq, vcq.cq_ex);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_qp *to_sqp_ex(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct sroce_qp, vqp.qp_ex);
}

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

/* sroce.c: rings */
int sroce_map_ring(struct ibv_context *ibctx, const struct sroce_mmap_info *mi,
		   size_t min_stride, bool producer, struct sroce_uring *r);
void sroce_unmap_ring(struct sroce_uring *r);

/* cq.c */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int sroce_destroy_cq(struct ibv_cq *ibcq);

/* qp.c */
struct ibv_qp *sroce_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_destroy_qp(struct ibv_qp *ibqp);
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
void sroce_open_doorbell(struct sroce_context *ctx);
int sroce_doorbell(struct ibv_qp *ibqp, bool recv);

/* wr.c: the ibv_wr_* post-send API */
bool sroce_qp_ex_supported(void);
void sroce_qp_ex_init(struct sroce_qp *qp);

/* srq.c */
struct ibv_srq *sroce_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/* verbs.c: memory regions, address handles */
struct ibv_mr *sroce_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *ibpd,
		   void *addr, size_t length, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *sroce_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);
int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *bind);
struct ibv_ah *sroce_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

#endif /* SROCE_H */
