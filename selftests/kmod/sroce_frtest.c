// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_frtest.c: fast-registration MRs as the kernel's storage ULPs use
 * them (NVMe-oF, NFS, iSER): alloc_mr, ib_map_mr_sg() over pages that are
 * not contiguous, IB_WR_REG_MR, RDMA through the rkey, IB_WR_LOCAL_INV and
 * SEND with invalidate, in order with the other work requests, and the
 * errors. Two RC QPs in loopback on one device: A registers, B accesses.
 * Loaded with dev=NAME, it prints KTAP lines to the kernel log, undoes
 * everything, and fails to load (-EINVAL) if a case failed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "kvt.h"

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the sroce device to test");

#define NCASES		19
#define NPAGES		3
#define OFF		100	/* the registration starts here in page 0 */
#define LEN		(NPAGES * PAGE_SIZE - OFF)
#define MSG		64

#define SMALL		512	/* rs's blocks: a packet spans two or three */
#define NSGE		16

/* Pages that are not contiguous, mapped and registered in a FAST MR. */
struct frt_region {
	struct page *pages[NPAGES];
	struct scatterlist sg[NPAGES];
	bool mapped;
	struct ib_mr *mr;
};

struct frt {
	struct kvt_base base;		/* buf: LEN out, LEN in, MSG for SENDs */
	struct ib_qp *a, *b;
	struct frt_region ra;		/* A's, accessed by B */
	struct frt_region rb;		/* B's, a READ's sink */
	struct frt_region rs;		/* A's, in blocks of SMALL bytes */
	struct ib_wc stash[8];		/* polled while waiting for another */
	int nstash;
};

static struct ib_qp *frt_qp(struct frt *t)
{
	struct ib_qp_init_attr init = {
		.send_cq = t->base.cq,
		.recv_cq = t->base.cq,
		.cap = {
			.max_send_wr = 8, .max_recv_wr = 4,
			.max_send_sge = NSGE, .max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(t->base.pd, &init);
}

/* INIT, RTR and RTS, connected to @dqpn on this device. */
static int frt_connect(struct frt *t, struct ib_qp *qp, u32 dqpn)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	int err;

	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &t->base.gid, 0, t->base.gid_index, 64, 0);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void frt_unpair(struct frt *t)
{
	struct ib_wc wc;

	if (!IS_ERR_OR_NULL(t->b))
		ib_destroy_qp(t->b);
	if (!IS_ERR_OR_NULL(t->a))
		ib_destroy_qp(t->a);
	t->a = NULL;
	t->b = NULL;
	while (ib_poll_cq(t->base.cq, 1, &wc) > 0)
		;
	t->nstash = 0;
}

/* A new connected pair, in place of the last (an error ended it). */
static int frt_pair(struct frt *t)
{
	frt_unpair(t);
	t->a = frt_qp(t);
	if (IS_ERR(t->a))
		return PTR_ERR(t->a);
	t->b = frt_qp(t);
	if (IS_ERR(t->b))
		return PTR_ERR(t->b);
	return frt_connect(t, t->a, t->b->qp_num) ?:
	       frt_connect(t, t->b, t->a->qp_num);
}

/* Take the completion of @id from the stash into @out, if there. */
static bool frt_unstash(struct frt *t, u64 id, struct ib_wc *out)
{
	int i;

	for (i = 0; i < t->nstash; i++) {
		if (t->stash[i].wr_id != id)
			continue;
		*out = t->stash[i];
		t->stash[i] = t->stash[--t->nstash];
		return true;
	}
	return false;
}

/*
 * Poll until the completion of @id comes (others are kept for their own
 * wait) or two seconds pass. Return: its status, or -1 when it did not
 * come.
 */
static int frt_wait(struct frt *t, u64 id, struct ib_wc *out)
{
	unsigned long end = jiffies + 2 * HZ;
	struct ib_wc wc;

	while (!frt_unstash(t, id, &wc)) {
		if (!time_before(jiffies, end))
			return -1;
		if (ib_poll_cq(t->base.cq, 1, &wc) <= 0) {
			usleep_range(500, 1000);
			continue;
		}
		if (wc.wr_id == id)
			break;
		if (t->nstash < ARRAY_SIZE(t->stash))
			t->stash[t->nstash++] = wc;
	}
	if (out)
		*out = wc;
	return wc.status;
}

static int frt_post(struct ib_qp *qp, const struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;

	return ib_post_send(qp, wr, &bad);
}

/* IB_WR_REG_MR of @mr on @qp with the next key byte; its status. */
static int frt_reg(struct frt *t, struct ib_qp *qp, struct ib_mr *mr,
		   int access, u64 id)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_id = id, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.access = access,
	};
	int err;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	wr.key = mr->rkey;
	err = frt_post(qp, &wr.wr);
	return err ?: frt_wait(t, id, NULL);
}

/* An RDMA WRITE or READ of LEN bytes by B through A's rkey. */
static int frt_rdma(struct frt *t, enum ib_wr_opcode op, u32 lkey, u64 addr,
		    u64 id)
{
	struct ib_sge sge = { .addr = addr, .length = LEN, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->ra.mr->iova,
		.rkey = t->ra.mr->rkey,
	};
	int err = frt_post(t->b, &wr.wr);

	return err ?: frt_wait(t, id, NULL);
}

static int frt_write(struct frt *t, u64 id)
{
	return frt_rdma(t, IB_WR_RDMA_WRITE, t->base.pd->local_dma_lkey, t->base.dma,
			id);
}

/* Do the region's pages hold the @len bytes of out[] from OFF on? */
static bool frt_holds_n(const struct frt_region *r, const u8 *out,
			size_t len)
{
	size_t pos = 0, i;

	for (i = 0; i < NPAGES && pos < len; i++) {
		size_t from = i ? 0 : OFF;
		size_t n = min_t(size_t, PAGE_SIZE - from, len - pos);

		if (memcmp(page_address(r->pages[i]) + from, out + pos, n))
			return false;
		pos += n;
	}
	return true;
}

static bool frt_holds(const struct frt_region *r, const u8 *out)
{
	return frt_holds_n(r, out, LEN);
}

/*
 * Map the region's pages into its MR from OFF, in blocks of @bsize bytes;
 * the entries mapped.
 */
static int frt_map(struct frt *t, struct frt_region *r, unsigned int bsize)
{
	unsigned int off = OFF;
	int i;

	sg_init_table(r->sg, NPAGES);
	for (i = 0; i < NPAGES; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!r->pages[i])
			return -ENOMEM;
		sg_set_page(&r->sg[i], r->pages[i], PAGE_SIZE, 0);
	}
	if (ib_dma_map_sg(t->base.ibdev, r->sg, NPAGES, DMA_BIDIRECTIONAL) !=
	    NPAGES)
		return -ENOMEM;
	r->mapped = true;
	r->mr = ib_alloc_mr(t->base.pd, IB_MR_TYPE_MEM_REG,
			    NPAGES * (PAGE_SIZE / bsize));
	if (IS_ERR(r->mr)) {
		int err = PTR_ERR(r->mr);

		r->mr = NULL;
		return err;
	}
	return ib_map_mr_sg(r->mr, r->sg, NPAGES, &off, bsize);
}

static void frt_unmap(struct frt *t, struct frt_region *r)
{
	int i;

	if (r->mr)
		ib_dereg_mr(r->mr);
	if (r->mapped)
		ib_dma_unmap_sg(t->base.ibdev, r->sg, NPAGES, DMA_BIDIRECTIONAL);
	for (i = 0; i < NPAGES; i++)
		if (r->pages[i])
			__free_page(r->pages[i]);
}

static void frt_cases_inv(struct frt *t)
{
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ;
	u8 *msg = t->base.buf + 2 * LEN;
	struct ib_sge ssge = { .addr = t->base.dma + 2 * LEN, .length = MSG,
			       .lkey = t->base.pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 0x1ec, .sg_list = &ssge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 0x5e, .sg_list = &ssge,
				  .num_sge = 1, .opcode = IB_WR_SEND_WITH_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_send_wr inv = { .wr_id = 0x1a, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	const struct ib_recv_wr *bad;
	struct ib_wc wc = {};
	int s, r;
	u32 key;

	/* SEND with invalidate */
	memset(msg, 0x5a, MSG);
	key = t->ra.mr->rkey;
	swr.ex.invalidate_rkey = key;
	r = ib_post_recv(t->a, &rwr, &bad);
	s = r ?: frt_post(t->b, &swr);
	s = s ?: frt_wait(t, swr.wr_id, NULL);
	r = r ?: frt_wait(t, rwr.wr_id, &wc);
	CASE(!s && !r && (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
	     wc.ex.invalidate_rkey == key && wc.byte_len == MSG,
	     "SEND with invalidate: received with IB_WC_WITH_INVALIDATE and the rkey (%d, %d, %#x)",
	     s, r, wc.wc_flags);
	s = frt_write(t, 0x3);
	CASE(s == IB_WC_REM_ACCESS_ERR,
	     "... the key is closed: a WRITE through it gets REM_ACCESS_ERR (%d)",
	     s);

	/* LOCAL_INV */
	r = frt_pair(t);
	s = r ?: frt_reg(t, t->a, t->ra.mr, rw, 0x4);
	inv.ex.invalidate_rkey = t->ra.mr->rkey;
	r = s ?: frt_post(t->a, &inv);
	r = r ?: frt_wait(t, inv.wr_id, &wc);
	CASE(!s && !r && wc.opcode == IB_WC_LOCAL_INV,
	     "REG_MR again, then IB_WR_LOCAL_INV: IB_WC_LOCAL_INV, success (%d, %d)",
	     s, r);
	s = frt_write(t, 0x5);
	CASE(s == IB_WC_REM_ACCESS_ERR,
	     "... a WRITE through the invalidated key gets REM_ACCESS_ERR (%d)",
	     s);

	/* A VALID MR cannot be registered again. */
	r = frt_pair(t);
	s = r ?: frt_reg(t, t->a, t->ra.mr, rw, 0x6);
	key = t->ra.mr->rkey;
	r = s ?: frt_reg(t, t->a, t->ra.mr, rw, 0x7);
	CASE(!s && r == IB_WC_LOC_QP_OP_ERR,
	     "REG_MR of an MR that is VALID: LOC_QP_OP_ERR (%d, %d)", s, r);

	/* A key that cannot be invalidated remotely (the MR closed first) */
	inv.ex.invalidate_rkey = key;
	r = frt_pair(t) ?: frt_post(t->a, &inv) ?: frt_wait(t, inv.wr_id, NULL);
	swr.ex.invalidate_rkey = t->base.pd->local_dma_lkey;
	r = r ?: ib_post_recv(t->a, &rwr, &bad);
	s = r ?: frt_post(t->b, &swr);
	s = s ?: frt_wait(t, swr.wr_id, NULL);
	r = r ?: frt_wait(t, rwr.wr_id, NULL);
	CASE(s == IB_WC_REM_INV_REQ_ERR && r == IB_WC_REM_INV_REQ_ERR,
	     "SEND invalidating a key not of a fast-registration MR: REM_INV_REQ_ERR at both ends (%d, %d)",
	     s, r);
}

/* Work requests before and after the local ones, on B. */
static void frt_cases_order(struct frt *t)
{
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ;
	struct ib_sge sge = { .length = LEN };
	struct ib_rdma_wr rd = {
		.wr = { .wr_id = 0x7d, .opcode = IB_WR_RDMA_READ,
			.sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
	};
	struct ib_send_wr inv = { .wr_id = 0x1b, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 0x9e, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE,
	};
	struct ib_wc wc[4];
	int err, n = 0, got;

	/* A's MR holds out[]; B READs it into its own FAST MR. */
	err = frt_pair(t) ?: frt_reg(t, t->a, t->ra.mr, rw, 0x8);
	err = err ?: frt_write(t, 0x9);
	err = err ?: frt_reg(t, t->b, t->rb.mr, IB_ACCESS_LOCAL_WRITE, 0xa);
	sge.addr = t->rb.mr->iova;
	sge.lkey = t->rb.mr->lkey;
	rd.remote_addr = t->ra.mr->iova;
	rd.rkey = t->ra.mr->rkey;
	inv.ex.invalidate_rkey = t->rb.mr->lkey;
	rd.wr.next = &inv;
	err = err ?: frt_post(t->b, &rd.wr);
	err = err ?: frt_wait(t, rd.wr.wr_id, NULL);
	got = err ? -1 : frt_wait(t, inv.wr_id, NULL);
	CASE(!err && !got && frt_holds(&t->rb, t->base.buf),
	     "READ into a FAST MR, then LOCAL_INV of it in one post: the LOCAL_INV waits, the data arrives (%d, %d)",
	     err, got);

	/* REG_MR behind a READ completes after it. */
	sge.addr = t->base.dma + LEN;
	sge.lkey = t->base.pd->local_dma_lkey;
	rd.wr.next = &reg.wr;
	reg.mr = t->rb.mr;
	ib_update_fast_reg_key(t->rb.mr, ib_inc_rkey(t->rb.mr->rkey) & 0xff);
	reg.key = t->rb.mr->rkey;
	err = frt_post(t->b, &rd.wr);
	while (!err && n < 2) {
		got = ib_poll_cq(t->base.cq, 2 - n, wc + n);
		if (got < 0)
			break;
		n += got;
		if (n < 2)
			usleep_range(500, 1000);
	}
	CASE(!err && n == 2 && wc[0].wr_id == rd.wr.wr_id && !wc[0].status &&
	     wc[1].wr_id == reg.wr.wr_id && !wc[1].status &&
	     wc[1].opcode == IB_WC_REG_MR,
	     "READ, then REG_MR: both succeed, in order (%d, %d)", err, n);
}

/*
 * A WRITE of @n SGEs by B through A's rkey into ra, from @addr[i] in
 * @lkey, @len[i] bytes each; its status.
 */
static int frt_write_sges(struct frt *t, u32 lkey, const u64 *addr,
			  const u32 *len, int n, u64 id)
{
	struct ib_sge sge[NSGE];
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = id, .opcode = IB_WR_RDMA_WRITE, .sg_list = sge,
			.num_sge = n, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->ra.mr->iova,
		.rkey = t->ra.mr->rkey,
	};
	int i;

	for (i = 0; i < n; i++)
		sge[i] = (struct ib_sge){ .addr = addr[i], .length = len[i],
					  .lkey = lkey };
	return frt_post(t->b, &wr.wr) ?: frt_wait(t, id, NULL);
}

/*
 * Kernel memory as a packet's payload: the pages of a page allocation go
 * by reference, slab memory and pieces split across blocks are copied, a
 * packet over more SGEs than fragments allow is copied. Each must carry
 * the bytes as posted.
 */
static void frt_cases_payload(struct frt *t)
{
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ;
	u32 lkey = t->base.pd->local_dma_lkey, len[NSGE];
	u8 *want = t->base.buf + LEN, *slab;
	struct ib_send_wr inv = { .wr_id = 0x1c, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	u64 addr[NSGE], dma;
	size_t i, n;
	int s, r;

	/* ra is VALID from the cases before: closed, then opened again. */
	inv.ex.invalidate_rkey = t->ra.mr->rkey;
	s = frt_pair(t) ?: frt_post(t->a, &inv) ?: frt_wait(t, inv.wr_id, NULL);
	s = s ?: frt_reg(t, t->a, t->ra.mr, rw, 0x20);

	/* Slab memory (a kmalloc of 2 KiB): copied. */
	slab = kmalloc(2 * 1024, GFP_KERNEL);
	r = -ENOMEM;
	if (!s && slab) {
		for (i = 0; i < 2000; i++)
			slab[i] = i * 13 + 5;
		dma = ib_dma_map_single(t->base.ibdev, slab, 2000,
					DMA_TO_DEVICE);
		len[0] = 2000;
		r = frt_write_sges(t, lkey, &dma, len, 1, 0x21);
		ib_dma_unmap_single(t->base.ibdev, dma, 2000, DMA_TO_DEVICE);
	}
	CASE(!s && !r && frt_holds_n(&t->ra, slab, 2000),
	     "WRITE of 2000 bytes of slab memory (copied): they land (%d, %d)",
	     s, r);
	kfree(slab);

	/* NSGE pieces of 64 bytes, one packet: more than its fragments. */
	for (i = 0, n = 0; i < NSGE; i++) {
		addr[i] = t->base.dma + i * 100;
		len[i] = 64;
		memcpy(want + n, t->base.buf + i * 100, 64);
		n += 64;
	}
	s = frt_write_sges(t, lkey, addr, len, NSGE, 0x22);
	CASE(!s && frt_holds_n(&t->ra, want, n),
	     "WRITE of %d SGEs of 64 bytes in one packet (copied): they land in order (%d)",
	     NSGE, s);

	/* 11 SGEs of 1 KiB, apart: each packet touches one (by reference). */
	for (i = 0, n = 0; i < 11; i++) {
		addr[i] = t->base.dma + i * 1100;
		len[i] = 1024;
		n += 1024;
	}
	for (i = 0; i < 11; i++)
		memcpy(want + i * 1024, t->base.buf + i * 1100, 1024);
	s = frt_write_sges(t, lkey, addr, len, 11, 0x23);
	CASE(!s && frt_holds_n(&t->ra, want, n),
	     "WRITE of 11 SGEs of 1 KiB, one per packet (by reference): they land in order (%d)",
	     s);

	/* READ responses from blocks of SMALL bytes: copied. */
	for (i = 0; i < NPAGES; i++)
		memset(page_address(t->rs.pages[i]), 0x31 + i, PAGE_SIZE);
	s = frt_pair(t) ?: frt_reg(t, t->a, t->rs.mr, rw, 0x24);
	r = -1;
	if (!s) {
		struct ib_sge sge = { .addr = t->base.dma + LEN, .length = LEN,
				      .lkey = lkey };
		struct ib_rdma_wr rd = {
			.wr = { .wr_id = 0x25, .opcode = IB_WR_RDMA_READ,
				.sg_list = &sge, .num_sge = 1,
				.send_flags = IB_SEND_SIGNALED },
			.remote_addr = t->rs.mr->iova,
			.rkey = t->rs.mr->rkey,
		};

		memset(want, 0, LEN);
		r = frt_post(t->b, &rd.wr) ?: frt_wait(t, rd.wr.wr_id, NULL);
	}
	CASE(!s && !r && frt_holds(&t->rs, want),
	     "READ from a FAST MR in blocks of %d bytes (copied): it brings them back (%d, %d)",
	     SMALL, s, r);
}

static void frt_cases(struct frt *t)
{
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ;
	struct ib_mr *mr;
	int s, i;

	mr = ib_alloc_mr(t->base.pd, IB_MR_TYPE_MEM_REG,
			 t->base.ibdev->attrs.max_fast_reg_page_list_len + 1);
	CASE(IS_ERR(mr) && PTR_ERR(mr) == -EINVAL,
	     "alloc_mr of max_fast_reg_page_list_len + 1 pages: -EINVAL (%d)",
	     PTR_ERR_OR_ZERO(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(t->base.pd, IB_MR_TYPE_MEM_REG,
			 t->base.ibdev->attrs.max_fast_reg_page_list_len);
	CASE(!IS_ERR(mr) &&
	     (t->base.ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	     t->base.ibdev->attrs.max_fast_reg_page_list_len >= 256,
	     "MEM_MGT_EXTENSIONS, alloc_mr of max_fast_reg_page_list_len (%u) pages",
	     t->base.ibdev->attrs.max_fast_reg_page_list_len);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	s = frt_map(t, &t->ra, PAGE_SIZE);
	CASE(s == NPAGES && t->ra.mr->iova == sg_dma_address(t->ra.sg) + OFF &&
	     t->ra.mr->length == LEN,
	     "ib_map_mr_sg: %d pages apart from offset %d: all mapped, iova and length (%d)",
	     NPAGES, OFF, s);
	if (s != NPAGES || frt_map(t, &t->rb, PAGE_SIZE) != NPAGES ||
	    frt_map(t, &t->rs, SMALL) != NPAGES) {
		pr_info("Bail out! no fast-registration MRs\n");
		return;
	}
	for (i = 0; i < LEN; i++)
		t->base.buf[i] = i * 7 + 3;

	s = frt_pair(t) ?: frt_write(t, 0x1);
	CASE(s == IB_WC_REM_ACCESS_ERR,
	     "before IB_WR_REG_MR the rkey opens nothing: WRITE gets REM_ACCESS_ERR (%d)",
	     s);

	s = frt_pair(t) ?: frt_reg(t, t->a, t->ra.mr, rw, 0x2);
	CASE(!s, "IB_WR_REG_MR with a new key byte: success (%d, key %#x)", s,
	     t->ra.mr->rkey);
	s = frt_write(t, 0x10);
	CASE(!s && frt_holds(&t->ra, t->base.buf),
	     "RDMA WRITE through the rkey lands in the pages, from offset %d (%d)",
	     OFF, s);
	s = frt_rdma(t, IB_WR_RDMA_READ, t->base.pd->local_dma_lkey, t->base.dma + LEN,
		     0x11);
	CASE(!s && !memcmp(t->base.buf + LEN, t->base.buf, LEN),
	     "RDMA READ through the rkey brings them back (%d)", s);

	frt_cases_inv(t);
	frt_cases_order(t);
	frt_cases_payload(t);
	frt_unpair(t);
}

static int __init frt_init(void)
{
	/* Zeroed, and off the stack (KASAN's frames are large). */
	struct frt *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int err = -ENOMEM;

	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", NCASES);
	if (t) {
		err = kvt_open(&t->base, dev, 2 * LEN + MSG, NULL, t);
		if (!err)
			frt_cases(t);
		frt_unmap(t, &t->rs);
		frt_unmap(t, &t->rb);
		frt_unmap(t, &t->ra);
		kvt_close(&t->base);
	}
	kfree(t);
	return kvt_finish(err, NCASES);
}

static void __exit frt_exit(void)
{
}

module_init(frt_init);
module_exit(frt_exit);
MODULE_DESCRIPTION("sroce fast-registration MR test");
MODULE_LICENSE("Dual BSD/GPL");
