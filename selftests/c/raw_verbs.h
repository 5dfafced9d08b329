/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * raw_verbs.h: uverbs commands written by hand on a context's command file
 * (ctx->cmd_fd), past the provider: the legacy write() commands, each a
 * struct ib_uverbs_cmd_hdr and the command's request, with sroce's own
 * response (uapi/rdma/sroce-abi.h) appended to the core's; the rings of
 * the objects they create mapped from the same file; the doorbell file
 * and its ioctl()s.
 *
 * Handles of PDs and other objects libibverbs made (pd->handle) may be
 * given to these commands: both go through the same file. Every helper
 * returns 0 or an errno and prints nothing.
 */
#ifndef SROCE_SELFTEST_RAW_VERBS_H
#define SROCE_SELFTEST_RAW_VERBS_H

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

/* The largest command we write, header included, in bytes. */
#define RV_MAX_CMD	256

/*
 * rv_cmd() - write command @command with request @req (@len bytes, whose
 * first field is the response pointer when there is a response) and room
 * for @out bytes of response.
 */
static inline int rv_cmd(int fd, uint32_t command, const void *req,
			 size_t len, size_t out)
{
	uint64_t buf[RV_MAX_CMD / 8];
	struct ib_uverbs_cmd_hdr *h = (void *)buf;
	size_t total = sizeof(*h) + len;
	ssize_t n;

	if (total > sizeof(buf) || total % 4 || out % 4)
		return EINVAL;
	h->command = command;
	h->in_words = total / 4;
	h->out_words = out / 4;
	memcpy(h + 1, req, len);
	n = write(fd, buf, total);
	if (n == (ssize_t)total)
		return 0;
	return n < 0 ? errno : EIO;
}

/* A ring as created by the kernel, mapped here. */
struct rv_ring {
	void *map;
	size_t size;
	uint64_t offset;		/* where it was mapped from */
	struct sroce_ring *hdr;
	uint32_t entries;		/* from the header at creation */
	uint32_t stride;
};

/*
 * rv_map() - map the ring @mi describes and check the geometry its header
 * gives (1..64K entries of 16 bytes to 64 KiB, inside the mapping, at
 * least @min_stride bytes each).
 */
static inline int rv_map(int fd, const struct sroce_mmap_info *mi,
			 uint32_t min_stride, struct rv_ring *r)
{
	uint32_t log2, stride;
	void *p;

	memset(r, 0, sizeof(*r));
	if (mi->size < SROCE_RING_HDR_SIZE)
		return EPROTO;
	p = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 mi->offset);
	if (p == MAP_FAILED)
		return errno;
	log2 = ((struct sroce_ring *)p)->log2_entries;
	stride = ((struct sroce_ring *)p)->stride;
	if (log2 > 16 || stride < 16 || stride > 65536 ||
	    stride < min_stride || stride & (stride - 1) ||
	    SROCE_RING_HDR_SIZE + ((uint64_t)stride << log2) > mi->size) {
		munmap(p, mi->size);
		return EPROTO;
	}
	r->map = p;
	r->size = mi->size;
	r->offset = mi->offset;
	r->hdr = p;
	r->entries = 1u << log2;
	r->stride = stride;
	return 0;
}

static inline void rv_unmap(struct rv_ring *r)
{
	if (r->map)
		munmap(r->map, r->size);
	memset(r, 0, sizeof(*r));
}

static inline void *rv_slot(const struct rv_ring *r, uint32_t idx)
{
	return (uint8_t *)r->map + SROCE_RING_HDR_SIZE +
	       (size_t)(idx & (r->entries - 1)) * r->stride;
}

/* CQs */

static inline int rv_create_cq(int fd, uint32_t cqe, uint32_t *handle,
			       uint32_t *cqn, struct sroce_mmap_info *mi)
{
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct sroce_create_cq_resp drv;
	} resp = {};
	struct ib_uverbs_create_cq c = {
		.response = (uintptr_t)&resp, .cqe = cqe, .comp_channel = -1,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c),
			 sizeof(resp));

	if (err)
		return err;
	*handle = resp.core.cq_handle;
	*cqn = resp.drv.cqn;
	*mi = resp.drv.mi;
	return 0;
}

static inline int rv_resize_cq(int fd, uint32_t handle, uint32_t cqe,
			       struct sroce_mmap_info *mi)
{
	struct {
		struct ib_uverbs_resize_cq_resp core;
		struct sroce_resize_cq_resp drv;
	} resp = {};
	struct ib_uverbs_resize_cq c = {
		.response = (uintptr_t)&resp, .cq_handle = handle, .cqe = cqe,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c),
			 sizeof(resp));

	if (!err)
		*mi = resp.drv.mi;
	return err;
}

static inline int rv_destroy_cq(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct ib_uverbs_destroy_cq c = {
		.response = (uintptr_t)&resp, .cq_handle = handle,
	};

	return rv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c),
		      sizeof(resp));
}

/* QPs */

struct rv_qp_init {
	uint32_t pd, send_cq, recv_cq;
	int32_t srq;			/* a handle, or -1: none */
	uint8_t type;			/* IBV_QPT_RC, _UC, _UD */
	uint8_t sq_sig_all;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
};

struct rv_qp_created {
	uint32_t handle, qpn;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	struct sroce_create_qp_resp drv;
};

static inline int rv_create_qp(int fd, const struct rv_qp_init *in,
			       struct rv_qp_created *out)
{
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct sroce_create_qp_resp drv;
	} resp = {};
	struct ib_uverbs_create_qp c = {
		.response = (uintptr_t)&resp,
		.pd_handle = in->pd,
		.send_cq_handle = in->send_cq,
		.recv_cq_handle = in->recv_cq,
		.srq_handle = in->srq < 0 ? 0 : (uint32_t)in->srq,
		.is_srq = in->srq >= 0,
		.max_send_wr = in->max_send_wr,
		.max_recv_wr = in->max_recv_wr,
		.max_send_sge = in->max_send_sge,
		.max_recv_sge = in->max_recv_sge,
		.max_inline_data = in->max_inline,
		.sq_sig_all = in->sq_sig_all,
		.qp_type = in->type,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c),
			 sizeof(resp));

	if (err)
		return err;
	out->handle = resp.core.qp_handle;
	out->qpn = resp.core.qpn;
	out->max_send_wr = resp.core.max_send_wr;
	out->max_recv_wr = resp.core.max_recv_wr;
	out->max_send_sge = resp.core.max_send_sge;
	out->max_recv_sge = resp.core.max_recv_sge;
	out->max_inline = resp.core.max_inline_data;
	out->drv = resp.drv;
	return 0;
}

/* @m->qp_handle, attr_mask and the attributes it names set by the caller */
static inline int rv_modify_qp(int fd, const struct ib_uverbs_modify_qp *m)
{
	return rv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, m, sizeof(*m), 0);
}

/* The QP's state (enum ibv_qp_state) */
static inline int rv_query_qp_state(int fd, uint32_t handle, int *state)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_uverbs_query_qp c = {
		.response = (uintptr_t)&resp, .qp_handle = handle,
		.attr_mask = IBV_QP_STATE,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c),
			 sizeof(resp));

	if (!err)
		*state = resp.qp_state;
	return err;
}

static inline int rv_destroy_qp(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp c = {
		.response = (uintptr_t)&resp, .qp_handle = handle,
	};

	return rv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c),
		      sizeof(resp));
}

/*
 * rv_legacy_doorbell() - the doorbell without a doorbell file: a
 * POST_SEND (or POST_RECV) with no work requests
 */
static inline int rv_legacy_doorbell(int fd, uint32_t qp_handle, int recv)
{
	struct ib_uverbs_post_send_resp resp;
	struct ib_uverbs_post_send c = {
		.response = (uintptr_t)&resp, .qp_handle = qp_handle,
		.wqe_size = recv ? sizeof(struct ib_uverbs_recv_wr) :
				   sizeof(struct ib_uverbs_send_wr),
	};

	static_assert(sizeof(struct ib_uverbs_post_send) ==
		      sizeof(struct ib_uverbs_post_recv), "doorbell layouts");
	return rv_cmd(fd, recv ? IB_USER_VERBS_CMD_POST_RECV :
				 IB_USER_VERBS_CMD_POST_SEND,
		      &c, sizeof(c), sizeof(resp));
}

/* SRQs */

static inline int rv_create_srq(int fd, uint32_t pd, uint32_t max_wr,
				uint32_t max_sge, uint32_t limit,
				uint32_t *handle, struct sroce_mmap_info *mi)
{
	struct {
		struct ib_uverbs_create_srq_resp core;
		struct sroce_create_srq_resp drv;
	} resp = {};
	struct ib_uverbs_create_srq c = {
		.response = (uintptr_t)&resp, .pd_handle = pd,
		.max_wr = max_wr, .max_sge = max_sge, .srq_limit = limit,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c),
			 sizeof(resp));

	if (err)
		return err;
	*handle = resp.core.srq_handle;
	*mi = resp.drv.mi;
	return 0;
}

static inline int rv_modify_srq(int fd, uint32_t handle, uint32_t mask,
				uint32_t limit)
{
	struct ib_uverbs_modify_srq c = {
		.srq_handle = handle, .attr_mask = mask, .srq_limit = limit,
	};

	return rv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &c, sizeof(c), 0);
}

static inline int rv_destroy_srq(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_srq_resp resp;
	struct ib_uverbs_destroy_srq c = {
		.response = (uintptr_t)&resp, .srq_handle = handle,
	};

	return rv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c),
		      sizeof(resp));
}

/* AHs: *num is what a UD send WQE names */

static inline int rv_create_ah(int fd, uint32_t pd,
			       const struct ib_uverbs_ah_attr *attr,
			       uint32_t *handle, uint32_t *num)
{
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct sroce_create_ah_resp drv;
	} resp = {};
	struct ib_uverbs_create_ah c = {
		.response = (uintptr_t)&resp, .pd_handle = pd, .attr = *attr,
	};
	int err = rv_cmd(fd, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c),
			 sizeof(resp));

	static_assert(sizeof(resp) == 12, "create_ah response layout");
	if (err)
		return err;
	*handle = resp.core.ah_handle;
	*num = resp.drv.ah;
	return 0;
}

static inline int rv_destroy_ah(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_ah c = { .ah_handle = handle };

	return rv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_AH, &c, sizeof(c), 0);
}

/* The doorbell file */

/* rv_db_alloc() - a new doorbell file of the context of @fd, or -errno */
static inline int rv_db_alloc(int fd)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      sizeof(struct ib_uverbs_attr)) / 8] = {};
	struct ib_uverbs_ioctl_hdr *hdr = (void *)buf;
	struct ib_uverbs_attr *attr = hdr->attrs;

	hdr->length = sizeof(buf);
	hdr->object_id = SROCE_OBJECT_DOORBELL;
	hdr->method_id = SROCE_METHOD_DOORBELL_ALLOC;
	hdr->num_attrs = 1;
	attr->attr_id = SROCE_ATTR_DOORBELL_ALLOC_HANDLE;
	attr->flags = UVERBS_ATTR_F_MANDATORY;
	if (ioctl(fd, RDMA_VERBS_IOCTL, hdr))
		return -errno;
	return (int)attr->data_s64;
}

/* rv_ring() - ioctl @cmd (SROCE_DOORBELL_*) on doorbell file @dbfd */
static inline int rv_ring(int dbfd, unsigned long cmd, unsigned long arg)
{
	return ioctl(dbfd, cmd, arg) ? errno : 0;
}

#endif /* SROCE_SELFTEST_RAW_VERBS_H */
