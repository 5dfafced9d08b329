// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and address handles: plain uverbs commands. An AH keeps
 * the number the kernel gave it, which UD send WQEs carry (ring.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct ibv_mr *sroce_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* libibverbs updates the ibv_mr fields it passed in once this succeeds. */
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *ibpd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibv_rereg_mr cmd = {};

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, ibpd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	free(vmr);
	return 0;
}

struct ibv_ah *sroce_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct sroce_resp_create_ah resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(ibpd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->num = resp.drv.ah;
	return &ah->ibah;
}

int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	free(to_sah(ibah));
	return 0;
}
