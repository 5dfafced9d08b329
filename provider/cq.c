// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: the kernel produces CQEs into a ring we map, we
 * consume them in poll_cq under the CQ's lock. Arming goes straight to
 * ibv_cmd_req_notify_cq (in the ops table).
 */
#include <errno.h>
#include <stdlib.h>

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
	return &cq->vcq.cq;

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
