/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce-abi.h: the only contract between the sroce kernel module and its
 * rdma-core provider (libsroce-rdmav34.so).
 *
 * Rules: fixed-width types only, explicit padding, every 64-bit field
 * naturally aligned, and SROCE_UVERBS_ABI_VERSION bumped on any change that
 * an older provider or kernel could misread. Kernel-private state never
 * lives in memory shared with userspace.
 *
 * Queues. Every send queue, receive queue, shared receive queue and
 * completion queue is one ring in memory the kernel allocates and the
 * provider maps (mmap on the verbs file at the offset the create response
 * gives). A ring is a struct sroce_ring header followed, at
 * SROCE_RING_HDR_SIZE, by 2^log2_entries entries of `stride` bytes.
 * Indices are free-running u32 counters; entry i lives at slot
 * i & (entries - 1).
 *
 *   ring       producer (writes prod)    consumer (writes cons)
 *   SQ, RQ     provider                  kernel
 *   SRQ        provider                  kernel
 *   CQ         kernel                    provider
 *
 * A producer fills entries, then publishes them with a release store of
 * prod; a consumer reads prod with an acquire load, copies the entries out
 * and then release-stores cons. The kernel never trusts what userspace
 * wrote: it keeps its own copy of every index it owns, copies each WQE out
 * of the ring before validating it, and treats an impossible prod
 * (prod - cons > entries) as a broken queue. Indices are never reset, not
 * even by a QP's move to RESET (which makes the kernel's cons catch up with
 * prod); a resized CQ's new ring starts from the indices in its header.
 *
 * Doorbell: after posting send WQEs the provider rings the QP's send
 * doorbell; the kernel then processes the send queue in that same system
 * call. Receive WQEs need no doorbell: the kernel reads the ring when a
 * message arrives. The doorbell is an ioctl() on a doorbell file (below);
 * with a kernel that has none, one legacy IB_USER_VERBS_CMD_POST_SEND
 * write() with wr_count 0 on the verbs file does the same, slower.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/*
 * Reported as the uverbs device's abi_version (sysfs) and again in the
 * alloc_ucontext response; the provider refuses any other value.
 */
#define SROCE_UVERBS_ABI_VERSION	2

/* Response to IB_USER_VERBS_CMD_GET_CONTEXT. */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 max_inline_data;	/* bytes of inline data a send WQE can hold */
};

/* Where to mmap a ring, and how big it is. */
struct sroce_mmap_info {
	__aligned_u64 offset;	/* mmap offset on the verbs file */
	__u32 size;		/* bytes to map */
	__u32 reserved;
};

/*
 * Ring header: producer and consumer indices on cache lines of their own.
 * log2_entries and stride are written once by the kernel at creation.
 */
struct sroce_ring {
	__u32 prod;
	__u32 log2_entries;
	__u32 stride;
	__u32 flags;		/* SROCE_RING_*, written by the kernel */
	__u32 pad0[12];
	__u32 cons;
	__u32 pad1[15];
};

#define SROCE_RING_HDR_SIZE	128

/*
 * flags of a QP's SQ and RQ rings: the QP is in the error state, so a
 * receive WQE posted now must be flushed by a doorbell (the kernel only
 * reads a receive ring when a message arrives). The kernel sets it before
 * flushing (then a full barrier, then it reads prod); a provider publishes
 * prod, then a full barrier, then reads flags: one of them sees the other.
 * Older kernels leave it 0 (the padding it replaces).
 */
#define SROCE_RING_ERR		(1 << 0)

/* send_flags of a send WQE (the values of ibv_send_flags). */
#define SROCE_SEND_FENCE	(1 << 0)
#define SROCE_SEND_SIGNALED	(1 << 1)
#define SROCE_SEND_SOLICITED	(1 << 2)
#define SROCE_SEND_INLINE	(1 << 3)

/* wc_flags of a CQE (the values of ibv_wc_flags, not the kernel's). */
#define SROCE_WC_GRH		(1 << 0)
#define SROCE_WC_WITH_IMM	(1 << 1)
#define SROCE_WC_WITH_INV	(1 << 3)

/* Scatter/gather element. */
struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * Send WQE, followed by num_sge struct sroce_sge (inline_len 0), or, with
 * SROCE_SEND_INLINE, by inline_len bytes of data (num_sge 0). opcode is
 * enum ib_uverbs_wr_opcode; send_flags are SROCE_SEND_*. LOCAL_INV names
 * its key in ex.invalidate_rkey; BIND_MW fills wr.bind; both have no data.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 inline_len;
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	} ex;
	__u32 reserved;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah;		/* from struct sroce_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {		/* IB_UVERBS_WR_BIND_MW */
			__aligned_u64 addr;
			__aligned_u64 length;	/* 0: unbind (type 1) */
			__u32 mr_lkey;		/* the MR to bind to */
			__u32 mw_rkey;		/* the window's new rkey */
			__u32 access;		/* IB_UVERBS_ACCESS_REMOTE_* */
			__u32 reserved;
		} bind;
	} wr;
};

/* Receive WQE (RQ and SRQ), followed by num_sge struct sroce_sge. */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/*
 * Completion. status is enum ibv_wc_status, opcode enum ibv_wc_opcode
 * (receive completions have IBV_WC_RECV or IBV_WC_RECV_RDMA_WITH_IMM),
 * wc_flags ibv_wc_flags; ex holds the immediate data (as sent, big-endian)
 * or the invalidated rkey.
 */
struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 ex;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 reserved[2];
};

struct sroce_create_cq_resp {
	struct sroce_mmap_info mi;
	__u32 cqn;		/* for SROCE_DOORBELL_CQ_*; 0: none (older
				 * kernels, which write only mi) */
	__u32 reserved;
};

struct sroce_resize_cq_resp {
	struct sroce_mmap_info mi;
};

struct sroce_create_qp_resp {
	struct sroce_mmap_info sq;
	struct sroce_mmap_info rq;	/* size 0 when the QP uses an SRQ */
};

struct sroce_create_srq_resp {
	struct sroce_mmap_info mi;
};

/*
 * Driver part of IB_USER_VERBS_CMD_MODIFY_SRQ. The command has no
 * response: a resize (IB_SRQ_MAX_WR) names the user memory where the
 * kernel writes the new ring's struct sroce_mmap_info. The new ring holds
 * the WQEs not yet taken, from slot 0, with prod set past them. A resize
 * without it (mi_addr 0, or no driver data) fails with EOPNOTSUPP.
 */
struct sroce_modify_srq_cmd {
	__aligned_u64 mi_addr;
};

struct sroce_create_ah_resp {
	__u32 ah;		/* the number a UD send WQE names */
	__u32 reserved;
};

/*
 * The doorbell file. SROCE_METHOD_DOORBELL_ALLOC (an RDMA_VERBS_IOCTL
 * command on the verbs file, driver namespace) returns a new file
 * descriptor, bound to the calling context. On it,
 *
 *   ioctl(fd, SROCE_DOORBELL_SQ, qp_num)  sends what is posted on the
 *                                         QP's send ring (the doorbell)
 *   ioctl(fd, SROCE_DOORBELL_RQ, qp_num)  flushes what is posted on its
 *                                         receive ring if the QP is in
 *                                         the error state
 *   ioctl(fd, SROCE_DOORBELL_CQ_NEXT, cqn)       arms a CQ (cqn from the
 *   ioctl(fd, SROCE_DOORBELL_CQ_SOLICITED, cqn)  create_cq response) for
 *                                         its next completion, or next
 *                                         solicited one
 *
 * for a QP or CQ of that context, and return 0, or -1 with errno EINVAL
 * (no such QP or CQ in this context), EIO (the device is gone) or ENOTTY.
 * They do what the legacy POST_SEND, POST_RECV and REQ_NOTIFY_CQ commands
 * do, without going through the verbs file's command path. Closing the
 * verbs file (or the device going away) leaves the doorbell file open but
 * dead. None of this changes SROCE_UVERBS_ABI_VERSION: an older provider
 * ignores it, and a newer one falls back to the legacy commands when the
 * method is missing or cqn is 0.
 */
enum sroce_objects {
	SROCE_OBJECT_DOORBELL = (1U << UVERBS_ID_NS_SHIFT),
};

enum sroce_doorbell_methods {
	SROCE_METHOD_DOORBELL_ALLOC = (1U << UVERBS_ID_NS_SHIFT),
};

enum sroce_doorbell_alloc_attrs {
	SROCE_ATTR_DOORBELL_ALLOC_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

#define SROCE_DOORBELL_SQ	_IO(RDMA_IOCTL_MAGIC, 0xc0)
#define SROCE_DOORBELL_RQ	_IO(RDMA_IOCTL_MAGIC, 0xc1)
#define SROCE_DOORBELL_CQ_NEXT	_IO(RDMA_IOCTL_MAGIC, 0xc2)
#define SROCE_DOORBELL_CQ_SOLICITED	_IO(RDMA_IOCTL_MAGIC, 0xc3)

#endif /* SROCE_ABI_USER_H */
