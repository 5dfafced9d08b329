// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-batch.c: the ring unit test's ibv_wr_* batch cases.
 */
#include <endian.h>

#include "test-rings.h"

/*
 * The ibv_wr_* batch: WQEs built call by call match what post_send writes
 * for the same work, nothing is published before the end, and one error
 * anywhere leaves prod and the ring's index where they were.
 */
void test_wr_batch(void)
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
void test_wr_batch_ud_full(void)
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
