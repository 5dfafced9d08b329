// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: one ring of receive WQEs, produced by us like a
 * QP's RQ.
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct ibv_srq *sroce_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr)
{
	struct sroce_resp_create_srq resp = {};
	struct ibv_create_srq cmd = {};
	struct sroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	/* On success attr->attr holds the max_wr and max_sge granted. */
	ret = ibv_cmd_create_srq(ibpd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	srq->max_sge = attr->attr.max_sge;
	ret = sroce_map_ring(ibpd->context, &resp.drv.mi,
			     sroce_recv_wqe_size(srq->max_sge), true,
			     &srq->ring);
	if (ret)
		goto err_destroy;

	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * A resize (IBV_SRQ_MAX_WR): the kernel moves the WQEs not yet taken into
 * a new ring and writes where it is into @mi; the old ring is dead from
 * then on. The lock keeps posters out until the new one is mapped. If it
 * cannot be mapped the SRQ is left without a ring and posting fails.
 */
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_cmd_modify_srq cmd = {};
	struct sroce_mmap_info mi = {};
	struct sroce_uring ring = {};
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));

	cmd.drv.mi_addr = (uintptr_t)&mi;
	pthread_spin_lock(&srq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (!ret) {
		ret = sroce_map_ring(ibsrq->context, &mi,
				     sroce_recv_wqe_size(srq->max_sge), true,
				     &ring);
		sroce_unmap_ring(&srq->ring);
		if (!ret)
			srq->ring = ring;
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	sroce_unmap_ring(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	*bad_wr = NULL;
	pthread_spin_lock(&srq->lock);
	if (srq->ring.hdr) {
		ret = sroce_rq_post(&srq->ring, srq->max_sge, wr, bad_wr);
	} else {
		*bad_wr = wr;
		ret = EPROTO;
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}
