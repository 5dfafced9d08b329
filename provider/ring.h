/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ring.h: the provider's side of the rings it shares with the kernel
 * (layout and rules in <rdma/sroce-abi.h>): geometry checks, the
 * free-running indices, send/receive WQE encoding and CQE decoding.
 *
 * Only plain memory and libibverbs' public types: no driver.h, no system
 * calls, so test-rings.c runs all of it against malloc'ed rings.
 *
 * Each ring has one writer of each index on our side at a time: callers
 * hold the queue's spinlock. What crosses to the kernel is ordered by a
 * release store of the index we own after the entries are written (or
 * read), and an acquire load of the kernel's index before we touch the
 * entries it covers.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

static_assert(sizeof(struct sroce_ring) == SROCE_RING_HDR_SIZE,
	      "ring header size");
static_assert(sizeof(struct sroce_sge) == sizeof(struct ibv_sge),
	      "SGE size");

/* Largest ring we accept: keeps entries * stride well inside 64 bits. */
#define SROCE_RING_MAX_LOG2	24

/* One ring as mapped by the provider. */
struct sroce_uring {
	struct sroce_ring *hdr;		/* the mapping; NULL when none */
	size_t map_size;
	uint8_t *slots;
	uint32_t mask;			/* entries - 1 */
	uint32_t stride;
	uint32_t index;			/* our copy of the index we write */
};

/*
 * sroce_uring_init() - check a ring's geometry and start using it
 * @map, @map_size: the mapping
 * @min_stride: bytes an entry must hold, given the caps the kernel granted
 * @producer: we write prod (SQ, RQ, SRQ) rather than cons (CQ)
 *
 * Return: 0, or EPROTO if the header describes a ring the mapping cannot
 * hold or whose entries are too small or misaligned.
 */
static inline int sroce_uring_init(struct sroce_uring *r, void *map,
				   size_t map_size, size_t min_stride,
				   bool producer)
{
	struct sroce_ring *hdr = map;
	uint32_t log2, stride;

	if (map_size < SROCE_RING_HDR_SIZE)
		return EPROTO;
	log2 = hdr->log2_entries;
	stride = hdr->stride;
	if (log2 > SROCE_RING_MAX_LOG2 || stride < min_stride ||
	    stride % 8 ||
	    ((uint64_t)stride << log2) > map_size - SROCE_RING_HDR_SIZE)
		return EPROTO;

	r->hdr = hdr;
	r->map_size = map_size;
	r->slots = (uint8_t *)map + SROCE_RING_HDR_SIZE;
	r->mask = (1u << log2) - 1;
	r->stride = stride;
	r->index = __atomic_load_n(producer ? &hdr->prod : &hdr->cons,
				   __ATOMIC_RELAXED);
	return 0;
}

static inline void *sroce_uring_slot(const struct sroce_uring *r,
				     uint32_t idx)
{
	return r->slots + (size_t)(idx & r->mask) * r->stride;
}

/* Producer: free slots, counting what we wrote but have not published. */
static inline uint32_t sroce_uring_room(const struct sroce_uring *r)
{
	uint32_t entries = r->mask + 1;
	uint32_t used = r->index -
			__atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);

	/* A consumer index ahead of ours is a broken kernel: stay full. */
	return used > entries ? 0 : entries - used;
}

/* Producer: hand every entry written so far to the kernel. */
static inline void sroce_uring_publish(struct sroce_uring *r)
{
	__atomic_store_n(&r->hdr->prod, r->index, __ATOMIC_RELEASE);
}

/*
 * Producer of a QP's ring, after publishing: has the kernel put the QP in
 * the error state (so that what was just posted needs a doorbell to be
 * flushed)? The full fence orders our prod store before the flag load;
 * the kernel orders its flag store before its prod load the same way.
 */
static inline bool sroce_uring_in_error(const struct sroce_uring *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED) &
	       SROCE_RING_ERR;
}

/* Consumer: entries ready, or -1 if the producer index is impossible. */
static inline int64_t sroce_uring_ready(const struct sroce_uring *r)
{
	uint32_t n = __atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE) -
		     r->index;

	return n > r->mask + 1 ? -1 : (int64_t)n;
}

/* Consumer: give @n entries, already copied out, back to the kernel. */
static inline void sroce_uring_consume(struct sroce_uring *r, uint32_t n)
{
	r->index += n;
	__atomic_store_n(&r->hdr->cons, r->index, __ATOMIC_RELEASE);
}

/* Bytes a send or receive entry needs for the caps a queue was given. */
static inline size_t sroce_send_wqe_size(uint32_t max_sge,
					 uint32_t max_inline)
{
	size_t sges = (size_t)max_sge * sizeof(struct sroce_sge);

	return sizeof(struct sroce_send_wqe) +
	       (sges > max_inline ? sges : max_inline);
}

static inline size_t sroce_recv_wqe_size(uint32_t max_sge)
{
	return sizeof(struct sroce_recv_wqe) +
	       (size_t)max_sge * sizeof(struct sroce_sge);
}

/* An address handle: the kernel's number for it goes in UD send WQEs. */
struct sroce_ah {
	struct ibv_ah ibah;
	uint32_t num;
};

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return (struct sroce_ah *)((uint8_t *)ibah -
				   offsetof(struct sroce_ah, ibah));
}

/* What a send queue accepts: fixed when the QP is created. */
struct sroce_sq_caps {
	enum ibv_qp_type qp_type;	/* RC, UC or UD */
	uint32_t max_sge;
	uint32_t max_inline;
	bool sig_all;			/* every WQE completes signaled */
};

/* The WQE opcode for @op on a QP of @type, or -1 if it has none. */
static inline int sroce_wqe_opcode(enum ibv_qp_type type,
				   enum ibv_wr_opcode op)
{
	bool rc = type == IBV_QPT_RC, uc = type == IBV_QPT_UC;

	switch (op) {
	case IBV_WR_SEND:
		return IB_UVERBS_WR_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return IB_UVERBS_WR_SEND_WITH_IMM;
	case IBV_WR_RDMA_WRITE:
		return rc || uc ? IB_UVERBS_WR_RDMA_WRITE : -1;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return rc || uc ? IB_UVERBS_WR_RDMA_WRITE_WITH_IMM : -1;
	case IBV_WR_SEND_WITH_INV:
		return rc ? IB_UVERBS_WR_SEND_WITH_INV : -1;
	case IBV_WR_RDMA_READ:
		return rc ? IB_UVERBS_WR_RDMA_READ : -1;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return rc ? IB_UVERBS_WR_ATOMIC_CMP_AND_SWP : -1;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return rc ? IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD : -1;
	case IBV_WR_LOCAL_INV:
		return rc || uc ? IB_UVERBS_WR_LOCAL_INV : -1;
	case IBV_WR_BIND_MW:
		return rc || uc ? IB_UVERBS_WR_BIND_MW : -1;
	default:
		return -1;
	}
}

/* LOCAL_INV and BIND_MW: the kernel runs them; they carry no data. */
static inline bool sroce_wqe_local(int opcode)
{
	return opcode == IB_UVERBS_WR_LOCAL_INV ||
	       opcode == IB_UVERBS_WR_BIND_MW;
}

/* The IBV_QP_EX_WITH_* operations a QP of @type takes (ibv_wr_* API). */
static inline uint64_t sroce_send_ops(enum ibv_qp_type type)
{
	uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (type == IBV_QPT_RC || type == IBV_QPT_UC)
		ops |= IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW;
	if (type == IBV_QPT_RC)
		ops |= IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV;
	return ops;
}

/*
 * sroce_check_send_wr() - can this send queue take @wr?
 * @inline_len: set to the bytes of inline data the WQE will carry
 *
 * Return: 0 or EINVAL (opcode not valid for the QP type, too many SGEs,
 * inline data too long or on an opcode that carries no data out, SGEs on
 * LOCAL_INV or BIND_MW, UD without an AH). A misaligned atomic is posted:
 * the responder refuses it
 * with a NAK invalid request and it completes with
 * IBV_WC_REM_INV_REQ_ERR, as on ConnectX and rxe.
 */
static inline int sroce_check_send_wr(const struct sroce_sq_caps *caps,
				      const struct ibv_send_wr *wr,
				      uint32_t *inline_len)
{
	int op = sroce_wqe_opcode(caps->qp_type, wr->opcode);
	uint64_t len = 0;
	int i;

	*inline_len = 0;
	if (op < 0 || wr->num_sge < 0 || (uint32_t)wr->num_sge > caps->max_sge)
		return EINVAL;
	if (caps->qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (sroce_wqe_local(op) &&
	    (wr->num_sge || (wr->send_flags & IBV_SEND_INLINE)))
		return EINVAL;
	if (!(wr->send_flags & IBV_SEND_INLINE))
		return 0;

	switch (op) {
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_SEND_WITH_INV:
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		break;
	default:
		return EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > caps->max_inline)
		return EINVAL;
	*inline_len = (uint32_t)len;	/* <= max_inline */
	return 0;
}

/* A bind of a window to its new @rkey, as @info says (length 0: unbind). */
static inline void sroce_wqe_bind(struct sroce_send_wqe *wqe, uint32_t rkey,
				  const struct ibv_mw_bind_info *info)
{
	wqe->wr.bind.mw_rkey = rkey;
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->length;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.access = info->mw_access_flags;
}

/*
 * sroce_write_send_wqe() - encode a checked @wr into the slot at @slot
 *
 * Every byte of the header is written, reserved ones as zero; then the
 * SGEs, or the inline data gathered from the SGEs' buffers.
 */
static inline void sroce_write_send_wqe(void *slot,
					const struct sroce_sq_caps *caps,
					const struct ibv_send_wr *wr,
					uint32_t inline_len)
{
	struct sroce_send_wqe wqe = {};
	uint8_t *p = (uint8_t *)slot + sizeof(wqe);
	int i;

	wqe.wr_id = wr->wr_id;
	wqe.opcode = sroce_wqe_opcode(caps->qp_type, wr->opcode);
	wqe.send_flags = wr->send_flags;
	if (caps->sig_all)
		wqe.send_flags |= IBV_SEND_SIGNALED;

	switch (wqe.opcode) {
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		wqe.ex.imm_data = wr->imm_data;
		break;
	case IB_UVERBS_WR_SEND_WITH_INV:
	case IB_UVERBS_WR_LOCAL_INV:
		wqe.ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	}

	switch (wqe.opcode) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
	case IB_UVERBS_WR_RDMA_READ:
		wqe.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe.wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		wqe.wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe.wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe.wr.atomic.swap = wr->wr.atomic.swap;
		wqe.wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IB_UVERBS_WR_BIND_MW:
		sroce_wqe_bind(&wqe, wr->bind_mw.rkey,
			       &wr->bind_mw.bind_info);
		break;
	default:
		if (caps->qp_type == IBV_QPT_UD) {
			wqe.wr.ud.ah = to_sah(wr->wr.ud.ah)->num;
			wqe.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		wqe.inline_len = inline_len;
		for (i = 0; i < wr->num_sge; i++) {
			uint32_t n = wr->sg_list[i].length;

			if (n)
				memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
				       n);
			p += n;
		}
	} else {
		struct sroce_sge *sge = (struct sroce_sge *)p;

		wqe.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	memcpy(slot, &wqe, sizeof(wqe));
}

/*
 * sroce_sq_post() - write a chain of send WRs into a send queue
 *
 * Stops at the first WR that fails its checks (EINVAL) or finds the ring
 * full (ENOMEM), with *bad_wr pointing at it. The WQEs before it are
 * published with one release store of prod.
 *
 * Return: 0 or the errno of *bad_wr; *posted is the number published.
 */
static inline int sroce_sq_post(struct sroce_uring *sq,
				const struct sroce_sq_caps *caps,
				struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr,
				uint32_t *posted)
{
	uint32_t start = sq->index, room = sroce_uring_room(sq), len;
	int err = 0;

	for (; wr; wr = wr->next) {
		err = sroce_check_send_wr(caps, wr, &len);
		if (!err && !room) {
			room = sroce_uring_room(sq);
			if (!room)
				err = ENOMEM;
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		sroce_write_send_wqe(sroce_uring_slot(sq, sq->index), caps, wr,
				     len);
		sq->index++;
		room--;
	}
	*posted = sq->index - start;
	if (*posted)
		sroce_uring_publish(sq);
	return err;
}

/*
 * The ibv_wr_* API builds each send WQE in several calls, straight into
 * its slot: a builder (sroce_wr_new()) claims the next slot and writes the
 * header, setters then add the UD address, the SGEs or the inline data.
 * Nothing is visible to the kernel before sroce_wr_end() publishes the
 * whole batch with one release store of prod; the first error anywhere
 * makes the batch fail as a whole and leaves prod where it was
 * (ibv_wr_post(3)). The caller holds the send queue's lock from
 * sroce_wr_begin() to sroce_wr_end() or sroce_wr_abort().
 */
struct sroce_wr_batch {
	uint32_t start;			/* sq index at sroce_wr_begin() */
	uint32_t room;			/* free slots at the last look */
	int err;			/* the batch's first error */
	bool need_ud;			/* the UD WQE being built has no AH yet */
	struct sroce_send_wqe *wqe;	/* the WQE being built, or NULL */
};

static inline void sroce_wr_begin(struct sroce_uring *sq,
				  struct sroce_wr_batch *b)
{
	b->start = sq->index;
	b->room = sroce_uring_room(sq);
	b->err = 0;
	b->need_ud = false;
	b->wqe = NULL;
}

static inline void sroce_wr_fail(struct sroce_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
	b->wqe = NULL;
}

/*
 * sroce_wr_new() - start a WQE for @op in the next slot
 * @flags: ibv_send_flags; IBV_SEND_INLINE is ignored here, the inline
 *	setters decide where the data lives
 *
 * Return: the WQE, its header written and the rest zero, or NULL when the
 * batch has failed (opcode not valid for the QP type, ring full, the
 * previous UD WQE got no address).
 */
static inline struct sroce_send_wqe *
sroce_wr_new(struct sroce_uring *sq, const struct sroce_sq_caps *caps,
	     struct sroce_wr_batch *b, enum ibv_wr_opcode op, uint64_t wr_id,
	     unsigned int flags)
{
	int opcode = sroce_wqe_opcode(caps->qp_type, op);
	struct sroce_send_wqe *wqe;

	if (b->err)
		return NULL;
	if (b->need_ud || opcode < 0) {
		sroce_wr_fail(b, EINVAL);
		return NULL;
	}
	if (!b->room) {
		b->room = sroce_uring_room(sq);
		if (!b->room) {
			sroce_wr_fail(b, ENOMEM);
			return NULL;
		}
	}
	wqe = sroce_uring_slot(sq, sq->index);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->send_flags = flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
				   IBV_SEND_SOLICITED);
	if (caps->sig_all)
		wqe->send_flags |= IBV_SEND_SIGNALED;
	sq->index++;
	b->room--;
	b->need_ud = caps->qp_type == IBV_QPT_UD;
	b->wqe = wqe;
	return wqe;
}

static inline void sroce_wr_set_ud(struct sroce_wr_batch *b,
				   const struct sroce_sq_caps *caps,
				   uint32_t ah, uint32_t remote_qpn,
				   uint32_t remote_qkey)
{
	if (!b->wqe || caps->qp_type != IBV_QPT_UD) {
		sroce_wr_fail(b, EINVAL);
		return;
	}
	b->wqe->wr.ud.ah = ah;
	b->wqe->wr.ud.remote_qpn = remote_qpn;
	b->wqe->wr.ud.remote_qkey = remote_qkey;
	b->need_ud = false;
}

static inline void sroce_wr_set_sges(struct sroce_wr_batch *b,
				     const struct sroce_sq_caps *caps,
				     size_t num, const struct ibv_sge *sg)
{
	struct sroce_sge *sge;
	size_t i;

	if (!b->wqe || num > caps->max_sge) {
		sroce_wr_fail(b, EINVAL);
		return;
	}
	sge = (struct sroce_sge *)(b->wqe + 1);
	for (i = 0; i < num; i++) {
		sge[i].addr = sg[i].addr;
		sge[i].length = sg[i].length;
		sge[i].lkey = sg[i].lkey;
	}
	b->wqe->num_sge = num;
	b->wqe->inline_len = 0;
	b->wqe->send_flags &= ~IBV_SEND_INLINE;
}

/* Inline data: only on opcodes that send local data, up to max_inline. */
static inline void sroce_wr_set_inline(struct sroce_wr_batch *b,
				       const struct sroce_sq_caps *caps,
				       size_t num,
				       const struct ibv_data_buf *buf)
{
	uint8_t *p;
	size_t i, len = 0;

	if (!b->wqe)
		goto err;
	switch (b->wqe->opcode) {
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_SEND_WITH_INV:
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		break;
	default:
		goto err;
	}
	for (i = 0; i < num; i++) {
		/* Each length bounded first: the sum cannot wrap. */
		if (buf[i].length > caps->max_inline)
			goto err;
		len += buf[i].length;
		if (len > caps->max_inline)
			goto err;
	}
	p = (uint8_t *)(b->wqe + 1);
	for (i = 0; i < num; i++) {
		if (buf[i].length)
			memcpy(p, buf[i].addr, buf[i].length);
		p += buf[i].length;
	}
	b->wqe->inline_len = len;
	b->wqe->num_sge = 0;
	b->wqe->send_flags |= IBV_SEND_INLINE;
	return;
err:
	sroce_wr_fail(b, EINVAL);
}

/*
 * sroce_wr_end() - publish the batch, or drop it if anything failed
 *
 * Return: 0 or the batch's first error; *posted is the number of WQEs
 * published (0 on error).
 */
static inline int sroce_wr_end(struct sroce_uring *sq,
			       struct sroce_wr_batch *b, uint32_t *posted)
{
	int err = b->err;

	if (!err && b->need_ud)
		err = EINVAL;
	b->wqe = NULL;
	if (err) {
		sq->index = b->start;
		*posted = 0;
		return err;
	}
	*posted = sq->index - b->start;
	if (*posted)
		sroce_uring_publish(sq);
	return 0;
}

static inline void sroce_wr_abort(struct sroce_uring *sq,
				  struct sroce_wr_batch *b)
{
	sq->index = b->start;
	b->wqe = NULL;
}

static inline void sroce_write_recv_wqe(void *slot,
					const struct ibv_recv_wr *wr)
{
	struct sroce_recv_wqe wqe = {
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
	};
	struct sroce_sge *sge =
		(struct sroce_sge *)((uint8_t *)slot + sizeof(wqe));
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	memcpy(slot, &wqe, sizeof(wqe));
}

/*
 * sroce_rq_post() - write a chain of receive WRs into an RQ or SRQ
 *
 * Like sroce_sq_post(): EINVAL for more than @max_sge SGEs, ENOMEM when
 * full, *bad_wr at the failing WR, the ones before it published.
 */
static inline int sroce_rq_post(struct sroce_uring *rq, uint32_t max_sge,
				struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	uint32_t start = rq->index, room = sroce_uring_room(rq);
	int err = 0;

	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
			err = EINVAL;
		if (!err && !room) {
			room = sroce_uring_room(rq);
			if (!room)
				err = ENOMEM;
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		sroce_write_recv_wqe(sroce_uring_slot(rq, rq->index), wr);
		rq->index++;
		room--;
	}
	if (rq->index != start)
		sroce_uring_publish(rq);
	return err;
}

static inline void sroce_cqe_to_wc(const struct sroce_cqe *cqe,
				   struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* Raw: immediate data stays big-endian as it was sent. */
	wc->invalidated_rkey = cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

/*
 * sroce_cq_poll() - take up to @ne completions from a CQ ring
 *
 * Return: the number taken, or -EPROTO if the ring is unusable (not
 * mapped after a failed resize, or an impossible producer index).
 */
static inline int sroce_cq_poll(struct sroce_uring *cq, int ne,
				struct ibv_wc *wc)
{
	int64_t ready;
	int i, n;

	if (!cq->hdr)
		return -EPROTO;
	if (ne <= 0)
		return 0;
	ready = sroce_uring_ready(cq);
	if (ready < 0)
		return -EPROTO;
	n = ready < ne ? (int)ready : ne;
	for (i = 0; i < n; i++)
		sroce_cqe_to_wc(sroce_uring_slot(cq, cq->index + i), &wc[i]);
	if (n > 0)
		sroce_uring_consume(cq, n);
	return n;
}

/*
 * sroce_cq_take() - copy the next CQE out of a CQ ring and give its slot
 * back (the ibv_cq_ex polling API reads the copy)
 *
 * Return: 1, 0 if there is none, or -EPROTO if the ring is unusable.
 */
static inline int sroce_cq_take(struct sroce_uring *cq, struct sroce_cqe *cqe)
{
	int64_t ready;

	if (!cq->hdr)
		return -EPROTO;
	ready = sroce_uring_ready(cq);
	if (ready < 0)
		return -EPROTO;
	if (!ready)
		return 0;
	memcpy(cqe, sroce_uring_slot(cq, cq->index), sizeof(*cqe));
	sroce_uring_consume(cq, 1);
	return 1;
}

#endif /* SROCE_RING_H */
