/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rdma-core provider's objects. Each wraps the libibverbs object it
 * extends; the kernel interface lives in <rdma/sroce-abi.h>.
 */
#ifndef SROCE_H
#define SROCE_H

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <rdma/sroce-abi.h>

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
};

struct sroce_pd {
	struct ibv_pd ibpd;
};

/*
 * IB_USER_VERBS_CMD_GET_CONTEXT response: the uverbs core part, then ours
 * (the kernel writes ours into the driver's udata).
 */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

static_assert(sizeof(struct ib_uverbs_get_context_resp) % 8 == 0,
	      "driver response must start 8-byte aligned");
static_assert(sizeof(struct sroce_get_context_resp) ==
		      sizeof(struct ib_uverbs_get_context_resp) +
			      sizeof(struct sroce_alloc_ucontext_resp),
	      "no padding between core and driver response");

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

#endif /* SROCE_H */
