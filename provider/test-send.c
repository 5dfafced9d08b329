// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-send.c: the ring unit test's post_send and post_recv cases:
 * each WQE checked byte by byte at the hand-written uapi offsets.
 */
#include <endian.h>

#include "test-rings.h"

void test_send_sges(void)
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

void test_send_inline(void)
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

void test_send_ud(void)
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

void test_send_atomic(void)
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

	/* LOCAL_INV: the rkey in ex, no SGE; one with SGEs is refused. */
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0x00abcd01;
	CHECK_EQ(sroce_check_send_wr(&rc_caps, &wr, &len), EINVAL);
	wr.num_sge = 0;
	kernel_consume(&f, f.r.index);
	s = post1(&f, &rc_caps, &wr);
	CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_LOCAL_INV);
	CHECK_EQ(get32(s, SWQE_EX), 0x00abcd01);
	CHECK_EQ(get32(s, SWQE_NUM_SGE), 0);

	/* BIND_MW: the new rkey, the MR's lkey, range and rights in bind. */
	{
		struct ibv_mr bmr = { .lkey = 0x00beef02 };

		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.rkey = 0x80001203;
		wr.bind_mw.bind_info.mr = &bmr;
		wr.bind_mw.bind_info.addr = 0x7000000000001000ull;
		wr.bind_mw.bind_info.length = 0x2000;
		wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
		kernel_consume(&f, f.r.index);
		s = post1(&f, &rc_caps, &wr);
		CHECK_EQ(get32(s, SWQE_OPCODE), IB_UVERBS_WR_BIND_MW);
		CHECK_EQ(get64(s, SWQE_BIND_ADDR), 0x7000000000001000ull);
		CHECK_EQ(get64(s, SWQE_BIND_LEN), 0x2000);
		CHECK_EQ(get32(s, SWQE_BIND_LKEY), 0x00beef02);
		CHECK_EQ(get32(s, SWQE_BIND_RKEY), 0x80001203);
		CHECK_EQ(get32(s, SWQE_BIND_ACCESS), IBV_ACCESS_REMOTE_READ);
		CHECK_EQ(get32(s, SWQE_BIND_RSVD), 0);
		/* An unbind (type 1): length 0, no MR */
		wr.bind_mw.bind_info.mr = NULL;
		wr.bind_mw.bind_info.length = 0;
		kernel_consume(&f, f.r.index);
		s = post1(&f, &rc_caps, &wr);
		CHECK_EQ(get32(s, SWQE_BIND_LKEY), 0);
		CHECK_EQ(get64(s, SWQE_BIND_LEN), 0);
	}
	free(f.mem);
}

/* Which opcodes each QP type takes, and what they become. */
void test_send_opcodes(void)
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
		{ IBV_WR_LOCAL_INV, 7, 7, -1 },
		{ IBV_WR_BIND_MW, 8, 8, -1 },
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
	CHECK_EQ(IB_UVERBS_WR_LOCAL_INV, 7);
	CHECK_EQ(IB_UVERBS_WR_BIND_MW, 8);
	CHECK_EQ(IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, 6);
}

/* A chain stops at the first bad WR; the ones before it are published. */
void test_send_chain(void)
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
void test_send_full_wrap(void)
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

void test_recv(void)
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
