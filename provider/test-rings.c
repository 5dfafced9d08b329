// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-rings.c: host unit test of ring.h, the provider's ring code, with
 * malloc'ed rings standing in for the kernel's (no device, no kernel).
 *
 * What the WQEs must look like is checked at the byte offsets the uapi
 * layout implies, written out here by hand, not through the uapi structs
 * the code under test uses, so a layout change fails too. The "kernel"
 * side of each ring is played by the test: it reads prod and writes cons
 * of send and receive rings, and writes CQEs and prod of completion rings.
 *
 * Output is KTAP; the exit status is 0 if every case passed, 1 otherwise.
 * Built and run by provider/test-rings.
 */
#include <endian.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ring.h"

static bool case_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("# %s:%d: CHECK(%s) failed\n", __FILE__,        \
			       __LINE__, #cond);                               \
			case_failed = true;                                    \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		unsigned long long _a = (a), _b = (b);                         \
		if (_a != _b) {                                                \
			printf("# %s:%d: %s == %#llx, expected %s == %#llx\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b);            \
			case_failed = true;                                    \
		}                                                              \
	} while (0)

/* Native-endian field readers at explicit byte offsets. */
static uint64_t get64(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

static uint32_t get32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

static void put64(void *p, size_t off, uint64_t v)
{
	memcpy((uint8_t *)p + off, &v, sizeof(v));
}

static void put32(void *p, size_t off, uint32_t v)
{
	memcpy((uint8_t *)p + off, &v, sizeof(v));
}

static void put16(void *p, size_t off, uint16_t v)
{
	memcpy((uint8_t *)p + off, &v, sizeof(v));
}

/* The uapi layout, by hand. */
enum {
	HDR_PROD = 0, HDR_LOG2 = 4, HDR_STRIDE = 8, HDR_CONS = 64, HDR_SIZE = 128,

	SGE_ADDR = 0, SGE_LEN = 8, SGE_LKEY = 12, SGE_SIZE = 16,

	SWQE_WR_ID = 0, SWQE_OPCODE = 8, SWQE_FLAGS = 12, SWQE_NUM_SGE = 16,
	SWQE_INLINE_LEN = 20, SWQE_EX = 24, SWQE_RSVD = 28,
	SWQE_RDMA_ADDR = 32, SWQE_RDMA_RKEY = 40, SWQE_RDMA_RSVD = 44,
	SWQE_AT_ADDR = 32, SWQE_AT_CMP = 40, SWQE_AT_SWAP = 48,
	SWQE_AT_RKEY = 56, SWQE_AT_RSVD = 60,
	SWQE_UD_AH = 32, SWQE_UD_QPN = 36, SWQE_UD_QKEY = 40,
	SWQE_UD_RSVD = 44, SWQE_SIZE = 64,

	RWQE_WR_ID = 0, RWQE_NUM_SGE = 8, RWQE_RSVD = 12, RWQE_SIZE = 16,

	CQE_WR_ID = 0, CQE_STATUS = 8, CQE_OPCODE = 12, CQE_VENDOR_ERR = 16,
	CQE_BYTE_LEN = 20, CQE_EX = 24, CQE_QP_NUM = 28, CQE_SRC_QP = 32,
	CQE_WC_FLAGS = 36, CQE_PKEY = 40, CQE_SLID = 42, CQE_SL = 44,
	CQE_DLID_BITS = 45, CQE_SIZE = 48,
};

#define POISON 0xa5

struct fake_ring {
	uint8_t *mem;
	size_t size;
	struct sroce_uring r;
};

/* A kernel-made ring: header filled in, slots poisoned. */
static void fake_ring_alloc(struct fake_ring *f, uint32_t log2,
			    uint32_t stride, uint32_t start)
{
	f->size = HDR_SIZE + ((size_t)stride << log2);
	f->mem = aligned_alloc(64, f->size);
	if (!f->mem) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memset(f->mem, 0, HDR_SIZE);
	memset(f->mem + HDR_SIZE, POISON, f->size - HDR_SIZE);
	put32(f->mem, HDR_PROD, start);
	put32(f->mem, HDR_CONS, start);
	put32(f->mem, HDR_LOG2, log2);
	put32(f->mem, HDR_STRIDE, stride);
}

static void fake_ring(struct fake_ring *f, uint32_t log2, uint32_t stride,
		      uint32_t start, bool producer)
{
	fake_ring_alloc(f, log2, stride, start);
	if (sroce_uring_init(&f->r, f->mem, f->size, 16, producer)) {
		printf("Bail out! sroce_uring_init refused a good ring\n");
		exit(1);
	}
}

static uint8_t *slot_at(struct fake_ring *f, uint32_t idx)
{
	uint32_t stride = get32(f->mem, HDR_STRIDE);
	uint32_t mask = (1u << get32(f->mem, HDR_LOG2)) - 1;

	return f->mem + HDR_SIZE + (size_t)(idx & mask) * stride;
}

/* The kernel consumed everything up to @idx. */
static void kernel_consume(struct fake_ring *f, uint32_t idx)
{
	__atomic_store_n((uint32_t *)(f->mem + HDR_CONS), idx,
			 __ATOMIC_RELEASE);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	while (n--)
		if (*p++ != v)
			return false;
	return true;
}

static const struct sroce_sq_caps rc_caps = {
	.qp_type = IBV_QPT_RC, .max_sge = 4, .max_inline = 64,
};

/* Post one WR that must succeed; returns the slot it went into. */
static uint8_t *post1(struct fake_ring *f, const struct sroce_sq_caps *caps,
		      struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	uint32_t idx = f->r.index, posted;
	int ret;

	wr->next = NULL;
	ret = sroce_sq_post(&f->r, caps, wr, &bad, &posted);
	CHECK_EQ(ret, 0);
	CHECK_EQ(posted, 1);
	CHECK(bad == NULL);
	CHECK_EQ(get32(f->mem, HDR_PROD), idx + 1);
	return slot_at(f, idx);
}

static void test_uapi_layout(void)
{
	CHECK_EQ(offsetof(struct sroce_ring, prod), HDR_PROD);
	CHECK_EQ(offsetof(struct sroce_ring, log2_entries), HDR_LOG2);
	CHECK_EQ(offsetof(struct sroce_ring, stride), HDR_STRIDE);
	CHECK_EQ(offsetof(struct sroce_ring, cons), HDR_CONS);
	CHECK_EQ(sizeof(struct sroce_ring), HDR_SIZE);
	CHECK_EQ(SROCE_RING_HDR_SIZE, HDR_SIZE);
	CHECK_EQ(sizeof(struct sroce_sge), SGE_SIZE);
	CHECK_EQ(offsetof(struct sroce_send_wqe, wr.atomic.rkey), SWQE_AT_RKEY);
	CHECK_EQ(offsetof(struct sroce_send_wqe, wr.ud.remote_qkey),
		 SWQE_UD_QKEY);
	CHECK_EQ(sizeof(struct sroce_send_wqe), SWQE_SIZE);
	CHECK_EQ(sizeof(struct sroce_recv_wqe), RWQE_SIZE);
	CHECK_EQ(offsetof(struct sroce_cqe, dlid_path_bits), CQE_DLID_BITS);
	CHECK_EQ(sizeof(struct sroce_cqe), CQE_SIZE);
	CHECK_EQ(sizeof(struct sroce_mmap_info), 16);
	CHECK_EQ(sizeof(struct sroce_alloc_ucontext_resp), 8);
	CHECK_EQ(sizeof(struct sroce_create_qp_resp), 32);
	CHECK_EQ(sizeof(struct sroce_create_ah_resp), 8);
	CHECK_EQ(sroce_send_wqe_size(4, 10), SWQE_SIZE + 4 * SGE_SIZE);
	CHECK_EQ(sroce_send_wqe_size(1, 100), SWQE_SIZE + 100);
	CHECK_EQ(sroce_recv_wqe_size(3), RWQE_SIZE + 3 * SGE_SIZE);
}

static void test_geometry(void)
{
	struct sroce_uring r = {};
	struct fake_ring f;

	fake_ring_alloc(&f, 3, 128, 7);
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 128, true), 0);
	CHECK_EQ(r.mask, 7);
	CHECK_EQ(r.stride, 128);
	CHECK_EQ(r.index, 7);
	CHECK(r.slots == f.mem + HDR_SIZE);
	/* A consumer starts from cons. */
	put32(f.mem, HDR_CONS, 5);
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 128, false), 0);
	CHECK_EQ(r.index, 5);

	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 129, true), EPROTO);
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size - 1, 16, true), EPROTO);
	CHECK_EQ(sroce_uring_init(&r, f.mem, HDR_SIZE - 1, 0, true), EPROTO);
	put32(f.mem, HDR_STRIDE, 100);	/* not a multiple of 8 */
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 16, true), EPROTO);
	put32(f.mem, HDR_STRIDE, 64);	/* smaller than mapped: fine */
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 16, true), 0);
	put32(f.mem, HDR_LOG2, 40);
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 16, true), EPROTO);
	put32(f.mem, HDR_LOG2, 31);
	put32(f.mem, HDR_STRIDE, 0x80000000u);
	CHECK_EQ(sroce_uring_init(&r, f.mem, f.size, 16, true), EPROTO);
	free(f.mem);
}

static void test_send_sges(void)
{
	struct ibv_sge sg[4] = {
		{ 0x1111222233334444ull, 100, 0xaaaa0001 },
		{ 0x5555666677778888ull, 0, 0xaaaa0002 },
		{ 0x99990000aaaabbbbull, 0xffffffffu, 0xaaaa0003 },
		{ 0x1ull, 1, 0xaaaa0004 },
	};
	struct ibv_send_wr wr = {};
	struct fake_ring f;
	uint8_t *s;
	int n, i;

	fake_ring(&f, 2, 256, 0, true);
	for (n = 0; n <= 4; n++) {
		memset(&wr, 0x5a, sizeof(wr));	/* unused fields: junk */
		wr.wr_id = 0xfeedface00000000ull + n;
		wr.sg_list = sg;
		wr.num_sge = n;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
		wr.wr.rdma.remote_addr = 0xabcdef0123456789ull;
		wr.wr.rdma.rkey = 0x12345678;
		s = post1(&f, &rc_caps, &wr);

		CHECK_EQ(get64(s, SWQE_WR_ID), 0xfeedface00000000ull + n);
		CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_RDMA_WRITE);
		CHECK_EQ(get32(s, SWQE_FLAGS),
			 IBV_SEND_SIGNALED | IBV_SEND_FENCE);
		CHECK_EQ(get32(s, SWQE_NUM_SGE), n);
		CHECK_EQ(get32(s, SWQE_INLINE_LEN), 0);
		CHECK_EQ(get32(s, SWQE_EX), 0);
		CHECK_EQ(get32(s, SWQE_RSVD), 0);
		CHECK_EQ(get64(s, SWQE_RDMA_ADDR), 0xabcdef0123456789ull);
		CHECK_EQ(get32(s, SWQE_RDMA_RKEY), 0x12345678);
		CHECK(all_bytes(s + SWQE_RDMA_RSVD, SWQE_SIZE - SWQE_RDMA_RSVD,
				0));
		for (i = 0; i < n; i++) {
			size_t o = SWQE_SIZE + i * SGE_SIZE;

			CHECK_EQ(get64(s, o + SGE_ADDR), sg[i].addr);
			CHECK_EQ(get32(s, o + SGE_LEN), sg[i].length);
			CHECK_EQ(get32(s, o + SGE_LKEY), sg[i].lkey);
		}
		/* Nothing written past the last SGE. */
		CHECK(all_bytes(s + SWQE_SIZE + n * SGE_SIZE,
				256 - SWQE_SIZE - n * SGE_SIZE, POISON));
		kernel_consume(&f, f.r.index);
	}
	free(f.mem);
}

static void test_send_inline(void)
{
	static const char a[] = "hello, ", b[] = "", c[] = "inline world";
	struct ibv_sge sg[3] = {
		{ (uintptr_t)a, sizeof(a) - 1, 1 },
		{ (uintptr_t)b, 0, 2 },
		{ (uintptr_t)c, sizeof(c), 3 },
	};
	struct sroce_sq_caps caps = rc_caps;
	uint8_t big[65], *s;
	struct ibv_send_wr wr = {}, *bad;
	uint32_t len, posted, total = sizeof(a) - 1 + sizeof(c);
	struct fake_ring f;

	fake_ring(&f, 2, 256, 0, true);
	wr.sg_list = sg;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0xc0ffee01);
	wr.send_flags = IBV_SEND_INLINE;
	s = post1(&f, &caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_SEND_WITH_IMM);
	CHECK_EQ(get32(s, SWQE_FLAGS), IBV_SEND_INLINE);
	CHECK_EQ(get32(s, SWQE_NUM_SGE), 0);
	CHECK_EQ(get32(s, SWQE_INLINE_LEN), total);
	CHECK(memcmp(s + SWQE_EX, "\xc0\xff\xee\x01", 4) == 0);
	CHECK(memcmp(s + SWQE_SIZE, "hello, inline world", total) == 0);
	CHECK(all_bytes(s + SWQE_SIZE + total, 256 - SWQE_SIZE - total,
			POISON));
	/* A SEND on RC carries nothing in the wr union. */
	CHECK(all_bytes(s + SWQE_RDMA_ADDR, SWQE_SIZE - SWQE_RDMA_ADDR, 0));

	/* Exactly max_inline fits, one more byte does not. */
	memset(big, 'x', sizeof(big));
	sg[0] = (struct ibv_sge){ (uintptr_t)big, 64, 0 };
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	s = post1(&f, &caps, &wr);
	CHECK_EQ(get32(s, SWQE_INLINE_LEN), 64);
	CHECK(all_bytes(s + SWQE_SIZE, 64, 'x'));
	sg[0].length = 65;
	bad = NULL;
	CHECK_EQ(sroce_sq_post(&f.r, &caps, &wr, &bad, &posted), EINVAL);
	CHECK(bad == &wr);
	CHECK_EQ(posted, 0);
	CHECK_EQ(get32(f.mem, HDR_PROD), 2);

	/* Lengths summed in 64 bits: no wrap to a small total. */
	sg[0] = (struct ibv_sge){ (uintptr_t)big, 0x80000000u, 0 };
	sg[1] = (struct ibv_sge){ (uintptr_t)big, 0x80000000u, 0 };
	sg[2] = (struct ibv_sge){ (uintptr_t)big, 16, 0 };
	wr.num_sge = 3;
	CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len), EINVAL);

	/* Inline on an opcode that sends no local data. */
	sg[0] = (struct ibv_sge){ (uintptr_t)big, 8, 0 };
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len), EINVAL);
	free(f.mem);
}

static void test_send_ud(void)
{
	struct sroce_sq_caps caps = {
		.qp_type = IBV_QPT_UD, .max_sge = 2, .max_inline = 0,
	};
	struct sroce_ah ah = { .num = 0x0badcafe };
	struct ibv_sge sg = { 0x1000, 256, 0x77 };
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct fake_ring f;
	uint32_t len, posted;
	uint8_t *s;

	fake_ring(&f, 1, 128, 0, true);
	wr.wr_id = 42;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x01020304);
	wr.wr.ud.ah = &ah.ibah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = 0x80010000;
	s = post1(&f, &caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_SEND_WITH_IMM);
	CHECK(memcmp(s + SWQE_EX, "\x01\x02\x03\x04", 4) == 0);
	CHECK_EQ(get32(s, SWQE_UD_AH), 0x0badcafe);
	CHECK_EQ(get32(s, SWQE_UD_QPN), 0xffffff);
	CHECK_EQ(get32(s, SWQE_UD_QKEY), 0x80010000);
	CHECK(all_bytes(s + SWQE_UD_RSVD, SWQE_SIZE - SWQE_UD_RSVD, 0));
	CHECK_EQ(get32(s, SWQE_NUM_SGE), 1);
	CHECK_EQ(get64(s, SWQE_SIZE + SGE_ADDR), 0x1000);

	/* UD with inline data beyond a max_inline of 0. */
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len), EINVAL);
	wr.send_flags = 0;

	/* No AH. */
	wr.wr.ud.ah = NULL;
	CHECK_EQ(sroce_sq_post(&f.r, &caps, &wr, &bad, &posted), EINVAL);
	CHECK(bad == &wr);
	CHECK_EQ(posted, 0);
	free(f.mem);
}

static void test_send_atomic(void)
{
	struct ibv_sge sg = { 0x2000, 8, 0x99 };
	struct ibv_send_wr wr = {};
	struct fake_ring f;
	uint32_t len;
	uint8_t *s;

	fake_ring(&f, 1, 128, 0, true);
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x7000000000000008ull;
	wr.wr.atomic.compare_add = 0x0102030405060708ull;
	wr.wr.atomic.swap = 0x1112131415161718ull;
	wr.wr.atomic.rkey = 0xdeadbeef;
	s = post1(&f, &rc_caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_ATOMIC_CMP_AND_SWP);
	CHECK_EQ(get64(s, SWQE_AT_ADDR), 0x7000000000000008ull);
	CHECK_EQ(get64(s, SWQE_AT_CMP), 0x0102030405060708ull);
	CHECK_EQ(get64(s, SWQE_AT_SWAP), 0x1112131415161718ull);
	CHECK_EQ(get32(s, SWQE_AT_RKEY), 0xdeadbeef);
	CHECK_EQ(get32(s, SWQE_AT_RSVD), 0);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	s = post1(&f, &rc_caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD);
	CHECK_EQ(get64(s, SWQE_AT_CMP), 0x0102030405060708ull);

	/* A misaligned atomic is posted: the responder NAKs it. */
	wr.wr.atomic.remote_addr = 0x7000000000000004ull;
	CHECK_EQ(sroce_check_send_wr(&rc_caps, &wr, &len), 0);

	/* SEND_WITH_INV carries the rkey in ex; READ uses the rdma part. */
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x00c0ffee;
	kernel_consume(&f, f.r.index);
	s = post1(&f, &rc_caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_SEND_WITH_INV);
	CHECK_EQ(get32(s, SWQE_EX), 0x00c0ffee);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0x1234;
	wr.wr.rdma.rkey = 0x5678;
	s = post1(&f, &rc_caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_RDMA_READ);
	CHECK_EQ(get32(s, SWQE_EX), 0);
	CHECK_EQ(get64(s, SWQE_RDMA_ADDR), 0x1234);
	CHECK_EQ(get32(s, SWQE_RDMA_RKEY), 0x5678);
	free(f.mem);
}

/* Which opcodes each QP type takes, and what they become. */
static void test_send_opcodes(void)
{
	static const struct {
		enum ibv_wr_opcode op;
		int rc, uc, ud;
	} t[] = {
		{ IBV_WR_RDMA_WRITE, 0, 0, -1 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, 1, 1, -1 },
		{ IBV_WR_SEND, 2, 2, 2 },
		{ IBV_WR_SEND_WITH_IMM, 3, 3, 3 },
		{ IBV_WR_RDMA_READ, 4, -1, -1 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 5, -1, -1 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 6, -1, -1 },
		{ IBV_WR_LOCAL_INV, -1, -1, -1 },
		{ IBV_WR_BIND_MW, -1, -1, -1 },
		{ IBV_WR_SEND_WITH_INV, 9, -1, -1 },
		{ IBV_WR_TSO, -1, -1, -1 },
		{ IBV_WR_DRIVER1, -1, -1, -1 },
		{ (enum ibv_wr_opcode)15, -1, -1, -1 },	/* ATOMIC_WRITE */
		{ (enum ibv_wr_opcode)-1, -1, -1, -1 },
	};
	struct sroce_sq_caps caps = rc_caps;
	struct sroce_ah ah = {};
	struct ibv_send_wr wr = {};
	unsigned int i;
	uint32_t len;

	wr.wr.ud.ah = &ah.ibah;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		wr.opcode = t[i].op;
		CHECK_EQ(sroce_wqe_opcode(IBV_QPT_RC, t[i].op), t[i].rc);
		CHECK_EQ(sroce_wqe_opcode(IBV_QPT_UC, t[i].op), t[i].uc);
		CHECK_EQ(sroce_wqe_opcode(IBV_QPT_UD, t[i].op), t[i].ud);
		caps.qp_type = IBV_QPT_UC;
		CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len),
			 t[i].uc < 0 ? EINVAL : 0);
		caps.qp_type = IBV_QPT_UD;
		CHECK_EQ(sroce_check_send_wr(&caps, &wr, &len),
			 t[i].ud < 0 ? EINVAL : 0);
	}
	/* The values are the kernel's enum, whatever ibverbs calls them. */
	CHECK_EQ(IB_UVERBS_WR_SEND_WITH_INV, 9);
	CHECK_EQ(IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, 6);
}

/* A chain stops at the first bad WR; the ones before it are published. */
static void test_send_chain(void)
{
	struct ibv_sge sg[5] = {};
	struct ibv_send_wr w[3] = {}, *bad = NULL;
	struct fake_ring f;
	uint32_t posted;

	fake_ring(&f, 3, 256, 0, true);
	w[0].next = &w[1];
	w[1].next = &w[2];
	w[0].wr_id = 1;
	w[1].wr_id = 2;
	w[2].wr_id = 3;
	w[0].opcode = w[1].opcode = w[2].opcode = IBV_WR_SEND;
	w[0].sg_list = w[1].sg_list = w[2].sg_list = sg;
	w[1].num_sge = 5;	/* max_sge is 4 */
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, w, &bad, &posted), EINVAL);
	CHECK(bad == &w[1]);
	CHECK_EQ(posted, 1);
	CHECK_EQ(get32(f.mem, HDR_PROD), 1);
	CHECK_EQ(get64(slot_at(&f, 0), SWQE_WR_ID), 1);
	CHECK(all_bytes(slot_at(&f, 1), 256, POISON));

	w[1].num_sge = -1;
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, &w[1], &bad, &posted), EINVAL);
	CHECK_EQ(posted, 0);
	CHECK_EQ(get32(f.mem, HDR_PROD), 1);

	w[1].num_sge = 4;
	bad = NULL;
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, w, &bad, &posted), 0);
	CHECK(bad == NULL);
	CHECK_EQ(posted, 3);
	CHECK_EQ(get32(f.mem, HDR_PROD), 4);
	CHECK_EQ(get64(slot_at(&f, 2), SWQE_WR_ID), 2);
	CHECK_EQ(get32(slot_at(&f, 2), SWQE_NUM_SGE), 4);
	CHECK_EQ(get64(slot_at(&f, 3), SWQE_WR_ID), 3);

	/* sq_sig_all: every WQE asks for a completion. */
	{
		struct sroce_sq_caps caps = rc_caps;

		caps.sig_all = true;
		w[0].next = NULL;
		w[0].send_flags = IBV_SEND_SOLICITED;
		CHECK_EQ(sroce_sq_post(&f.r, &caps, w, &bad, &posted), 0);
		CHECK_EQ(get32(slot_at(&f, 4), SWQE_FLAGS),
			 IBV_SEND_SOLICITED | IBV_SEND_SIGNALED);
	}
	free(f.mem);
}

/* Full, then room again as the kernel consumes; indices wrap at 2^32. */
static void test_send_full_wrap(void)
{
	const uint32_t start = 0xfffffffdu;
	struct ibv_send_wr w[6] = {}, *bad;
	struct fake_ring f;
	uint32_t posted, i;

	fake_ring(&f, 2, 64, start, true);
	for (i = 0; i < 6; i++) {
		w[i].wr_id = 100 + i;
		w[i].opcode = IBV_WR_SEND;
		w[i].next = i < 5 ? &w[i + 1] : NULL;
	}
	bad = NULL;
	CHECK_EQ(sroce_uring_room(&f.r), 4);
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, w, &bad, &posted), ENOMEM);
	CHECK(bad == &w[4]);
	CHECK_EQ(posted, 4);
	CHECK_EQ(get32(f.mem, HDR_PROD), start + 4);	/* wrapped: 1 */
	CHECK_EQ(get32(f.mem, HDR_PROD), 1);
	CHECK_EQ(sroce_uring_room(&f.r), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(get64(slot_at(&f, start + i), SWQE_WR_ID), 100 + i);
	/* start & 3 == 1: the first WQE is in slot 1, the fourth in 0. */
	CHECK_EQ(get64(f.mem + HDR_SIZE + 64, SWQE_WR_ID), 100);
	CHECK_EQ(get64(f.mem + HDR_SIZE, SWQE_WR_ID), 103);

	/* The kernel takes two, across the wrap. */
	kernel_consume(&f, start + 2);
	CHECK_EQ(sroce_uring_room(&f.r), 2);
	bad = NULL;
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, &w[4], &bad, &posted), 0);
	CHECK(bad == NULL);
	CHECK_EQ(posted, 2);
	CHECK_EQ(get32(f.mem, HDR_PROD), 3);
	CHECK_EQ(get64(slot_at(&f, 1), SWQE_WR_ID), 104);
	CHECK_EQ(get64(slot_at(&f, 2), SWQE_WR_ID), 105);
	w[5].next = NULL;
	CHECK_EQ(sroce_sq_post(&f.r, &rc_caps, &w[5], &bad, &posted), ENOMEM);
	CHECK_EQ(posted, 0);

	kernel_consume(&f, 3);
	CHECK_EQ(sroce_uring_room(&f.r), 4);
	/* A consumer index ahead of the producer's: treat as full. */
	kernel_consume(&f, 4);
	CHECK_EQ(sroce_uring_room(&f.r), 0);
	free(f.mem);
}

static void test_recv(void)
{
	struct ibv_sge sg[3] = {
		{ 0xaaaa000000000001ull, 10, 0x10 },
		{ 0xbbbb000000000002ull, 20, 0x20 },
		{ 0xcccc000000000003ull, 30, 0x30 },
	};
	const uint32_t start = 0xfffffffeu;
	struct ibv_recv_wr w[4] = {}, *bad = NULL;
	struct fake_ring f;
	uint8_t *s;
	int i;

	fake_ring(&f, 1, 64, start, true);
	for (i = 0; i < 4; i++) {
		w[i].wr_id = 0x5000 + i;
		w[i].sg_list = sg;
		w[i].num_sge = i;
		w[i].next = i < 3 ? &w[i + 1] : NULL;
	}
	w[3].num_sge = 3;
	/* w[2] has 2 SGEs, then the 2-entry ring is full. */
	CHECK_EQ(sroce_rq_post(&f.r, 3, w, &bad), ENOMEM);
	CHECK(bad == &w[2]);
	CHECK_EQ(get32(f.mem, HDR_PROD), 0);
	s = slot_at(&f, start);
	CHECK_EQ(get64(s, RWQE_WR_ID), 0x5000);
	CHECK_EQ(get32(s, RWQE_NUM_SGE), 0);
	CHECK_EQ(get32(s, RWQE_RSVD), 0);
	CHECK(all_bytes(s + RWQE_SIZE, 64 - RWQE_SIZE, POISON));
	s = slot_at(&f, start + 1);
	CHECK_EQ(get64(s, RWQE_WR_ID), 0x5001);
	CHECK_EQ(get32(s, RWQE_NUM_SGE), 1);
	CHECK_EQ(get64(s, RWQE_SIZE + SGE_ADDR), 0xaaaa000000000001ull);
	CHECK_EQ(get32(s, RWQE_SIZE + SGE_LEN), 10);
	CHECK_EQ(get32(s, RWQE_SIZE + SGE_LKEY), 0x10);

	kernel_consume(&f, 0);
	bad = NULL;
	CHECK_EQ(sroce_rq_post(&f.r, 2, &w[2], &bad), EINVAL);
	CHECK(bad == &w[3]);	/* 3 SGEs > max 2; w[2] went in */
	CHECK_EQ(get32(f.mem, HDR_PROD), 1);
	s = slot_at(&f, 0);
	CHECK_EQ(get32(s, RWQE_NUM_SGE), 2);
	CHECK_EQ(get64(s, RWQE_SIZE + SGE_SIZE + SGE_ADDR),
		 0xbbbb000000000002ull);
	CHECK_EQ(get32(s, RWQE_SIZE + SGE_SIZE + SGE_LEN), 20);
	CHECK_EQ(get32(s, RWQE_SIZE + SGE_SIZE + SGE_LKEY), 0x20);
	CHECK(all_bytes(s + RWQE_SIZE + 2 * SGE_SIZE,
			64 - RWQE_SIZE - 2 * SGE_SIZE, POISON));
	free(f.mem);
}

/* The kernel writes CQE @i with field values derived from @i. */
static void kernel_write_cqe(struct fake_ring *f, uint32_t i)
{
	uint8_t *s = slot_at(f, i);

	put64(s, CQE_WR_ID, 0x1000000000000000ull + i);
	put32(s, CQE_STATUS, i % 22);
	put32(s, CQE_OPCODE, i & 1 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_SEND);
	put32(s, CQE_VENDOR_ERR, 0x100 + i);
	put32(s, CQE_BYTE_LEN, 0x200 + i);
	memcpy(s + CQE_EX, "\x0a\x0b\x0c", 3);
	s[CQE_EX + 3] = (uint8_t)i;
	put32(s, CQE_QP_NUM, 0x300 + i);
	put32(s, CQE_SRC_QP, 0x400 + i);
	put32(s, CQE_WC_FLAGS, IBV_WC_WITH_IMM | IBV_WC_GRH);
	put16(s, CQE_PKEY, 0x500 + i);
	put16(s, CQE_SLID, 0x600 + i);
	s[CQE_SL] = (uint8_t)(7 + i);
	s[CQE_DLID_BITS] = (uint8_t)(9 + i);
}

static void kernel_produce(struct fake_ring *f, uint32_t prod)
{
	__atomic_store_n((uint32_t *)(f->mem + HDR_PROD), prod,
			 __ATOMIC_RELEASE);
}

static void check_wc(const struct ibv_wc *wc, uint32_t i)
{
	uint8_t imm[4] = { 0x0a, 0x0b, 0x0c, (uint8_t)i };

	CHECK_EQ(wc->wr_id, 0x1000000000000000ull + i);
	CHECK_EQ(wc->status, i % 22);
	CHECK_EQ(wc->opcode,
		 i & 1 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_SEND);
	CHECK_EQ(wc->vendor_err, 0x100 + i);
	CHECK_EQ(wc->byte_len, 0x200 + i);
	CHECK(memcmp(&wc->imm_data, imm, 4) == 0);
	CHECK_EQ(wc->qp_num, 0x300 + i);
	CHECK_EQ(wc->src_qp, 0x400 + i);
	CHECK_EQ(wc->wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(wc->pkey_index, (uint16_t)(0x500 + i));
	CHECK_EQ(wc->slid, (uint16_t)(0x600 + i));
	CHECK_EQ(wc->sl, (uint8_t)(7 + i));
	CHECK_EQ(wc->dlid_path_bits, (uint8_t)(9 + i));
}

static void test_cq_poll(void)
{
	const uint32_t start = 0xfffffffau;
	struct ibv_wc wc[8];
	struct fake_ring f;
	uint32_t i;

	fake_ring(&f, 3, 64, start, false);
	CHECK_EQ(sroce_cq_poll(&f.r, 8, wc), 0);
	CHECK_EQ(sroce_cq_poll(&f.r, 0, wc), 0);
	CHECK_EQ(sroce_cq_poll(&f.r, -1, wc), 0);

	for (i = start; i != start + 8; i++)
		kernel_write_cqe(&f, i);
	kernel_produce(&f, start + 8);

	memset(wc, 0xee, sizeof(wc));
	CHECK_EQ(sroce_cq_poll(&f.r, 3, wc), 3);
	for (i = 0; i < 3; i++)
		check_wc(&wc[i], start + i);
	CHECK_EQ(wc[3].wr_id, 0xeeeeeeeeeeeeeeeeull);	/* untouched */
	CHECK_EQ(get32(f.mem, HDR_CONS), start + 3);

	CHECK_EQ(sroce_cq_poll(&f.r, 1, wc), 1);
	check_wc(&wc[0], start + 3);
	CHECK_EQ(get32(f.mem, HDR_CONS), start + 4);

	CHECK_EQ(sroce_cq_poll(&f.r, 8, wc), 4);	/* across the wrap */
	for (i = 0; i < 4; i++)
		check_wc(&wc[i], start + 4 + i);
	CHECK_EQ(get32(f.mem, HDR_CONS), 2);
	CHECK_EQ(sroce_cq_poll(&f.r, 8, wc), 0);

	/* A full ring is not an overflow. */
	for (i = 2; i != 10; i++)
		kernel_write_cqe(&f, i);
	kernel_produce(&f, 10);
	CHECK_EQ(sroce_cq_poll(&f.r, 8, wc), 8);
	check_wc(&wc[7], 9);

	/* An impossible producer index: an error, nothing consumed. */
	kernel_produce(&f, 19);
	CHECK(sroce_cq_poll(&f.r, 8, wc) < 0);
	CHECK_EQ(get32(f.mem, HDR_CONS), 10);
	CHECK_EQ(f.r.index, 10);

	/* No ring (a resize that could not map the new one). */
	f.r.hdr = NULL;
	CHECK(sroce_cq_poll(&f.r, 8, wc) < 0);
	free(f.mem);
}

/*
 * The ibv_wr_* batch: WQEs built call by call match what post_send writes
 * for the same work, nothing is published before the end, and one error
 * anywhere leaves prod and the ring's index where they were.
 */
static void test_wr_batch(void)
{
	static const char a[] = "inline ", b[] = "list";
	struct ibv_sge sg[2] = {
		{ 0x1111222233334444ull, 100, 0xaaaa0001 },
		{ 0x5555666677778888ull, 7, 0xaaaa0002 },
	};
	struct ibv_data_buf bufs[2] = {
		{ (void *)a, sizeof(a) - 1 }, { (void *)b, sizeof(b) - 1 },
	};
	static uint8_t big[64];
	struct ibv_send_wr wr = {};
	struct sroce_send_wqe *w;
	struct sroce_wr_batch batch;
	struct fake_ring f, g;
	uint32_t posted;

	fake_ring(&f, 3, 256, 5, true);
	fake_ring(&g, 3, 256, 5, true);

	/* RDMA write with two SGEs, then a fetch-and-add, in one batch. */
	sroce_wr_begin(&f.r, &batch);
	w = sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_RDMA_WRITE, 77,
			 IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM);
	CHECK(w != NULL);
	w->wr.rdma.remote_addr = 0xabcdef0123456789ull;
	w->wr.rdma.rkey = 0x12345678;
	sroce_wr_set_sges(&batch, &rc_caps, 2, sg);
	w = sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_ATOMIC_FETCH_AND_ADD,
			 78, 0);
	CHECK(w != NULL);
	w->wr.atomic.remote_addr = 0x7000000000000008ull;
	w->wr.atomic.compare_add = 5;
	w->wr.atomic.rkey = 0xdeadbeef;
	sroce_wr_set_sges(&batch, &rc_caps, 1, sg);
	CHECK_EQ(get32(f.mem, HDR_PROD), 5);	/* nothing visible yet */
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), 0);
	CHECK_EQ(posted, 2);
	CHECK_EQ(get32(f.mem, HDR_PROD), 7);

	/* The same through post_send: byte for byte the same WQEs. */
	wr.wr_id = 77;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = 0xabcdef0123456789ull;
	wr.wr.rdma.rkey = 0x12345678;
	post1(&g, &rc_caps, &wr);
	wr.wr_id = 78;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = 0;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = 0x7000000000000008ull;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 0;
	wr.wr.atomic.rkey = 0xdeadbeef;
	post1(&g, &rc_caps, &wr);
	CHECK(memcmp(slot_at(&f, 5), slot_at(&g, 5), SWQE_SIZE + 2 * SGE_SIZE)
	      == 0);
	CHECK(memcmp(slot_at(&f, 6), slot_at(&g, 6), SWQE_SIZE + SGE_SIZE)
	      == 0);

	/* Inline list: the flag comes from the setter, not from wr_flags. */
	sroce_wr_begin(&f.r, &batch);
	w = sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND_WITH_IMM, 79,
			 IBV_SEND_SOLICITED);
	w->ex.imm_data = htobe32(0xc0ffee01);
	sroce_wr_set_inline(&batch, &rc_caps, 2, bufs);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), 0);
	CHECK_EQ(posted, 1);
	CHECK_EQ(get32(slot_at(&f, 7), SWQE_FLAGS),
		 IBV_SEND_SOLICITED | IBV_SEND_INLINE);
	CHECK_EQ(get32(slot_at(&f, 7), SWQE_INLINE_LEN), 11);
	CHECK_EQ(get32(slot_at(&f, 7), SWQE_NUM_SGE), 0);
	CHECK(memcmp(slot_at(&f, 7) + SWQE_SIZE, "inline list", 11) == 0);
	CHECK(memcmp(slot_at(&f, 7) + SWQE_EX, "\xc0\xff\xee\x01", 4) == 0);

	/* An error in the third WR: nothing of the batch is published. */
	sroce_wr_begin(&f.r, &batch);
	CHECK(sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 80, 0));
	CHECK(sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 81, 0));
	CHECK(sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 82, 0));
	sroce_wr_set_sges(&batch, &rc_caps, 5, sg);	/* max_sge is 4 */
	CHECK(!sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 83, 0));
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	CHECK_EQ(posted, 0);
	CHECK_EQ(get32(f.mem, HDR_PROD), 8);
	CHECK_EQ(f.r.index, 8);

	/* Inline too long, or on a READ; a misplaced setter; abort. */
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 84, 0);
	bufs[0] = (struct ibv_data_buf){ big, 60 };	/* 60 + 4 fits ... */
	bufs[1] = (struct ibv_data_buf){ big, 4 };
	sroce_wr_set_inline(&batch, &rc_caps, 2, bufs);
	CHECK_EQ(batch.err, 0);
	bufs[1].length = 5;	/* ... in 64, 65 does not */
	sroce_wr_set_inline(&batch, &rc_caps, 2, bufs);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	bufs[0].length = SIZE_MAX;	/* a sum that would wrap */
	bufs[1].length = 2;
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 85, 0);
	sroce_wr_set_inline(&batch, &rc_caps, 2, bufs);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	bufs[0].length = 1;
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_RDMA_READ, 86, 0);
	sroce_wr_set_inline(&batch, &rc_caps, 1, bufs);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_set_sges(&batch, &rc_caps, 1, sg);	/* before a builder */
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 87, 0);
	sroce_wr_abort(&f.r, &batch);
	CHECK_EQ(f.r.index, 8);
	CHECK_EQ(get32(f.mem, HDR_PROD), 8);
	sroce_wr_begin(&f.r, &batch);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), 0);	/* empty */
	CHECK_EQ(posted, 0);
	free(f.mem);
	free(g.mem);
}

/* UD: the address setter is required, and only UD has one; full ring. */
static void test_wr_batch_ud_full(void)
{
	struct sroce_sq_caps caps = {
		.qp_type = IBV_QPT_UD, .max_sge = 1, .max_inline = 32,
		.sig_all = true,
	};
	struct sroce_wr_batch batch;
	struct sroce_send_wqe *w;
	struct fake_ring f;
	uint32_t posted, i;

	fake_ring(&f, 2, 128, 0xfffffffeu, true);
	sroce_wr_begin(&f.r, &batch);
	w = sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 1, 0);
	sroce_wr_set_ud(&batch, &caps, 0x0badcafe, 0xffffff, 0x80010000);
	CHECK(w != NULL);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), 0);
	CHECK_EQ(get32(slot_at(&f, 0xfffffffeu), SWQE_UD_AH), 0x0badcafe);
	CHECK_EQ(get32(slot_at(&f, 0xfffffffeu), SWQE_UD_QPN), 0xffffff);
	CHECK_EQ(get32(slot_at(&f, 0xfffffffeu), SWQE_UD_QKEY), 0x80010000);
	CHECK_EQ(get32(slot_at(&f, 0xfffffffeu), SWQE_FLAGS),
		 IBV_SEND_SIGNALED);

	/* A UD WQE without its address: at the next builder, or the end. */
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 2, 0);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 2, 0);
	CHECK(!sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 3, 0));
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	/* Nothing but SEND on UD; no UD address on RC. */
	sroce_wr_begin(&f.r, &batch);
	CHECK(!sroce_wr_new(&f.r, &caps, &batch, IBV_WR_RDMA_WRITE, 4, 0));
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);
	sroce_wr_begin(&f.r, &batch);
	sroce_wr_new(&f.r, &rc_caps, &batch, IBV_WR_SEND, 5, 0);
	sroce_wr_set_ud(&batch, &rc_caps, 1, 2, 3);
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), EINVAL);

	/* Four slots, one used: the fifth WR of a batch finds it full. */
	sroce_wr_begin(&f.r, &batch);
	for (i = 0; i < 3; i++) {
		CHECK(sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 10 + i,
				   0));
		sroce_wr_set_ud(&batch, &caps, 1, 2, 3);
	}
	CHECK(!sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 13, 0));
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), ENOMEM);
	CHECK_EQ(get32(f.mem, HDR_PROD), 0xffffffffu);
	/* Once the kernel consumed one, three fit, across the wrap. */
	kernel_consume(&f, 0xffffffffu);
	sroce_wr_begin(&f.r, &batch);
	for (i = 0; i < 4; i++) {
		CHECK(sroce_wr_new(&f.r, &caps, &batch, IBV_WR_SEND, 20 + i,
				   0));
		sroce_wr_set_ud(&batch, &caps, 1, 2, 3);
	}
	CHECK_EQ(sroce_wr_end(&f.r, &batch, &posted), 0);
	CHECK_EQ(posted, 4);
	CHECK_EQ(get32(f.mem, HDR_PROD), 3);
	CHECK_EQ(get64(slot_at(&f, 2), SWQE_WR_ID), 23);
	free(f.mem);
}

/* ibv_cq_ex takes CQEs one at a time, each slot given back at once. */
static void test_cq_take(void)
{
	const uint32_t start = 0xfffffffeu;
	struct sroce_cqe cqe;
	struct ibv_wc wc;
	struct fake_ring f;
	uint32_t i;

	fake_ring(&f, 2, 64, start, false);
	CHECK_EQ(sroce_cq_take(&f.r, &cqe), 0);
	for (i = start; i != start + 3; i++)
		kernel_write_cqe(&f, i);
	kernel_produce(&f, start + 3);
	for (i = start; i != start + 3; i++) {
		CHECK_EQ(sroce_cq_take(&f.r, &cqe), 1);
		CHECK_EQ(get32(f.mem, HDR_CONS), i + 1);
		sroce_cqe_to_wc(&cqe, &wc);
		check_wc(&wc, i);
	}
	CHECK_EQ(sroce_cq_take(&f.r, &cqe), 0);
	kernel_produce(&f, start + 3 + 5);	/* more than the ring holds */
	CHECK_EQ(sroce_cq_take(&f.r, &cqe), -EPROTO);
	f.r.hdr = NULL;
	CHECK_EQ(sroce_cq_take(&f.r, &cqe), -EPROTO);
	free(f.mem);
}

/*
 * A producer and a consumer on two threads, each publishing with release
 * and reading the other's index with acquire, the way the kernel does:
 * every entry must arrive whole and in order.
 */
#define THREAD_ITEMS 200000

/* Set by a side that gives up, so that the other does not wait forever. */
static int thread_stop;

static bool stopped(void)
{
	return __atomic_load_n(&thread_stop, __ATOMIC_RELAXED);
}

static void stop(void)
{
	__atomic_store_n(&thread_stop, 1, __ATOMIC_RELAXED);
}

static void *sq_kernel(void *arg)
{
	struct fake_ring *f = arg;
	uint32_t cons = 0, prod, n = 0;
	uint8_t *s;

	while (n < THREAD_ITEMS) {
		prod = __atomic_load_n((uint32_t *)(f->mem + HDR_PROD),
				       __ATOMIC_ACQUIRE);
		for (; cons != prod; cons++, n++) {
			s = slot_at(f, cons);
			if (get64(s, SWQE_WR_ID) != n ||
			    get32(s, SWQE_NUM_SGE) != 1 ||
			    get64(s, SWQE_SIZE + SGE_ADDR) != ~(uint64_t)n) {
				printf("# WQE %u arrived wrong\n", n);
				stop();
				return (void *)1;
			}
		}
		kernel_consume(f, cons);
	}
	return NULL;
}

static void test_sq_threads(void)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sg = {};
	struct fake_ring f;
	pthread_t t;
	uint32_t posted, n = 0;
	void *res;

	thread_stop = 0;
	fake_ring(&f, 3, 128, 0, true);
	CHECK_EQ(pthread_create(&t, NULL, sq_kernel, &f), 0);
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	while (n < THREAD_ITEMS && !stopped()) {
		wr.wr_id = n;
		sg.addr = ~(uint64_t)n;
		if (sroce_sq_post(&f.r, &rc_caps, &wr, &bad, &posted) == 0)
			n++;
	}
	pthread_join(t, &res);
	CHECK(res == NULL);
	free(f.mem);
}

static void *cq_kernel(void *arg)
{
	struct fake_ring *f = arg;
	uint32_t prod = 0, room;

	while (prod < THREAD_ITEMS && !stopped()) {
		room = 8 - (prod - __atomic_load_n((uint32_t *)(f->mem +
								 HDR_CONS),
						   __ATOMIC_ACQUIRE));
		for (; room && prod < THREAD_ITEMS; room--)
			kernel_write_cqe(f, prod++);
		kernel_produce(f, prod);
	}
	return NULL;
}

static void test_cq_threads(void)
{
	struct fake_ring f;
	struct ibv_wc wc[5];
	uint32_t n = 0;
	pthread_t t;
	int i, got;

	thread_stop = 0;
	fake_ring(&f, 3, 64, 0, false);
	CHECK_EQ(pthread_create(&t, NULL, cq_kernel, &f), 0);
	while (n < THREAD_ITEMS && !stopped()) {
		got = sroce_cq_poll(&f.r, 5, wc);
		CHECK(got >= 0);
		for (i = 0; i < got; i++, n++)
			if (wc[i].wr_id != 0x1000000000000000ull + n ||
			    wc[i].byte_len != 0x200 + n)
				break;
		if (got < 0 || i < got) {
			printf("# CQE %u came out wrong\n", n);
			case_failed = true;
			stop();
		}
	}
	pthread_join(t, NULL);
	free(f.mem);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "uapi_layout", test_uapi_layout },
	{ "ring_geometry", test_geometry },
	{ "send_wqe_sges", test_send_sges },
	{ "send_wqe_inline", test_send_inline },
	{ "send_wqe_ud", test_send_ud },
	{ "send_wqe_atomic_inv_read", test_send_atomic },
	{ "send_opcodes_per_qp_type", test_send_opcodes },
	{ "send_chain_bad_wr_sig_all", test_send_chain },
	{ "send_full_and_wraparound", test_send_full_wrap },
	{ "recv_wqe_full_wraparound", test_recv },
	{ "cq_poll_every_field_wraparound", test_cq_poll },
	{ "wr_batch_same_wqes_all_or_nothing", test_wr_batch },
	{ "wr_batch_ud_address_full_wraparound", test_wr_batch_ud_full },
	{ "cq_take_one_at_a_time", test_cq_take },
	{ "sq_two_threads", test_sq_threads },
	{ "cq_two_threads", test_cq_threads },
};

/* A ring bug can leave one side waiting forever: bound the whole run. */
static void timeout(int sig)
{
	static const char msg[] = "Bail out! timed out\n";

	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

int main(void)
{
	unsigned int i, n = sizeof(cases) / sizeof(cases[0]);
	bool failed = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, timeout);
	alarm(60);
	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		case_failed = false;
		cases[i].fn();
		printf("%sok %u %s\n", case_failed ? "not " : "", i + 1,
		       cases[i].name);
		failed |= case_failed;
	}
	return failed;
}
