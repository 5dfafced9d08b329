// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma-core provider for the sroce soft RoCEv2 device: the device, the
 * context and its ops table, PDs, and mapping the rings.
 *
 * The data path goes through rings shared with the kernel (ring.h; cq.c,
 * qp.c, srq.c); everything else through the uverbs commands. Verbs left
 * out of sroce_ctx_ops fail with EOPNOTSUPP.
 *
 * Built inside rdma-core 56.1 but loaded by libibverbs 44.0 and later, so
 * only private symbols that 44.0 exports may be used (provider/check-symbols
 * verifies this).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sroce.h"

/*
 * sroce_map_ring() - map the ring a create or resize response describes
 * @min_stride: bytes each entry must hold for the caps granted
 * @producer: we write prod (SQ, RQ, SRQ) rather than cons (CQ)
 *
 * Return: 0, an mmap errno, or EPROTO if the ring's header does not fit
 * the response or the caps.
 */
int sroce_map_ring(struct ibv_context *ibctx, const struct sroce_mmap_info *mi,
		   size_t min_stride, bool producer, struct sroce_uring *r)
{
	void *map;
	int ret;

	map = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, mi->offset);
	if (map == MAP_FAILED)
		return errno;

	ret = sroce_uring_init(r, map, mi->size, min_stride, producer);
	if (ret) {
		verbs_err(verbs_get_ctx(ibctx),
			  "ring of %u bytes: log2_entries %u, stride %u, need stride >= %zu\n",
			  mi->size, ((struct sroce_ring *)map)->log2_entries,
			  ((struct sroce_ring *)map)->stride, min_stride);
		munmap(map, mi->size);
	}
	return ret;
}

void sroce_unmap_ring(struct sroce_uring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_size);
	r->hdr = NULL;
}

static int sroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port_num,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port_num, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibpd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibpd;
}

static int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(to_spd(ibpd));
	return 0;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	if (ctx->db_fd >= 0)
		close(ctx->db_fd);
	pthread_mutex_destroy(&ctx->db_lock);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = sroce_bind_mw,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.create_srq = sroce_create_srq,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = sroce_free_context,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_mr = sroce_reg_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.rereg_mr = sroce_rereg_mr,
	.resize_cq = sroce_resize_cq,
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_resp_get_context resp = {};
	struct ibv_get_context cmd = {};
	struct sroce_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_uninit;

	if (resp.drv.abi_version != SROCE_UVERBS_ABI_VERSION) {
		fprintf(stderr,
			"sroce: %s: kernel ABI version %u, provider supports %u\n",
			ibdev->name, resp.drv.abi_version,
			SROCE_UVERBS_ABI_VERSION);
		ret = EPROTO;
		goto err_uninit;
	}
	ctx->max_inline_data = resp.drv.max_inline_data;
	ctx->db_fd = -1;
	pthread_mutex_init(&ctx->db_lock, NULL);

	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	return &ctx->vctx;

err_uninit:
	/* Closes cmd_fd, which releases the kernel's ucontext. */
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sdev(&vdev->device));
}

static const struct verbs_match_ent sroce_match_table[] = {
	VERBS_NAME_MATCH("sroce", NULL),
	{},
};

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	.match_min_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_table = sroce_match_table,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};

PROVIDER_DRIVER(sroce, sroce_dev_ops);
