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
 * Built and run by provider/test-rings. This file holds the fake rings,
 * the layout and geometry cases and main(); the other cases are in
 * test-send.c, test-batch.c, test-cq.c and test-threads.c.
 */
#include <signal.h>
#include <unistd.h>

#include "test-rings.h"

bool case_failed;

/* A kernel-made ring: header filled in, slots poisoned. */
void fake_ring_alloc(struct fake_ring *f, uint32_t log2, uint32_t stride,
		     uint32_t start)
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

void fake_ring(struct fake_ring *f, uint32_t log2, uint32_t stride,
	       uint32_t start, bool producer)
{
	fake_ring_alloc(f, log2, stride, start);
	if (sroce_uring_init(&f->r, f->mem, f->size, 16, producer)) {
		printf("Bail out! sroce_uring_init refused a good ring\n");
		exit(1);
	}
}

uint8_t *slot_at(struct fake_ring *f, uint32_t idx)
{
	uint32_t stride = get32(f->mem, HDR_STRIDE);
	uint32_t mask = (1u << get32(f->mem, HDR_LOG2)) - 1;

	return f->mem + HDR_SIZE + (size_t)(idx & mask) * stride;
}

/* The kernel consumed everything up to @idx. */
void kernel_consume(struct fake_ring *f, uint32_t idx)
{
	__atomic_store_n((uint32_t *)(f->mem + HDR_CONS), idx,
			 __ATOMIC_RELEASE);
}

bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	while (n--)
		if (*p++ != v)
			return false;
	return true;
}

const struct sroce_sq_caps rc_caps = {
	.qp_type = IBV_QPT_RC, .max_sge = 4, .max_inline = 64,
};

/* Post one WR that must succeed; returns the slot it went into. */
uint8_t *post1(struct fake_ring *f, const struct sroce_sq_caps *caps,
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

/* The kernel writes CQE @i with field values derived from @i. */
void kernel_write_cqe(struct fake_ring *f, uint32_t i)
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

void kernel_produce(struct fake_ring *f, uint32_t prod)
{
	__atomic_store_n((uint32_t *)(f->mem + HDR_PROD), prod,
			 __ATOMIC_RELEASE);
}

void check_wc(const struct ibv_wc *wc, uint32_t i)
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

void test_uapi_layout(void)
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

void test_geometry(void)
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
