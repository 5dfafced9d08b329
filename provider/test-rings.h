// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-rings.h: what the parts of the ring unit test share: the CHECK
 * macros, the uapi layout written out by hand, and the fake rings that
 * stand in for the kernel's.
 */
#ifndef SROCE_TEST_RINGS_H
#define SROCE_TEST_RINGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* Set by a failed CHECK; main() clears it before each case. */
extern bool case_failed;

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
static inline uint64_t get64(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

static inline uint32_t get32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

static inline void put64(void *p, size_t off, uint64_t v)
{
	memcpy((uint8_t *)p + off, &v, sizeof(v));
}

static inline void put32(void *p, size_t off, uint32_t v)
{
	memcpy((uint8_t *)p + off, &v, sizeof(v));
}

static inline void put16(void *p, size_t off, uint16_t v)
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
	SWQE_UD_RSVD = 44, SWQE_BIND_ADDR = 32, SWQE_BIND_LEN = 40,
	SWQE_BIND_LKEY = 48, SWQE_BIND_RKEY = 52, SWQE_BIND_ACCESS = 56,
	SWQE_BIND_RSVD = 60, SWQE_SIZE = 64,

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

/* test-rings.c: the fake rings and kernel-side helpers. */
void fake_ring_alloc(struct fake_ring *f, uint32_t log2, uint32_t stride,
		     uint32_t start);
void fake_ring(struct fake_ring *f, uint32_t log2, uint32_t stride,
	       uint32_t start, bool producer);
uint8_t *slot_at(struct fake_ring *f, uint32_t idx);
void kernel_consume(struct fake_ring *f, uint32_t idx);
void kernel_write_cqe(struct fake_ring *f, uint32_t i);
void kernel_produce(struct fake_ring *f, uint32_t prod);
void check_wc(const struct ibv_wc *wc, uint32_t i);
bool all_bytes(const uint8_t *p, size_t n, uint8_t v);
extern const struct sroce_sq_caps rc_caps;
uint8_t *post1(struct fake_ring *f, const struct sroce_sq_caps *caps,
	       struct ibv_send_wr *wr);

/* The cases, one file per part of ring.h. */
void test_uapi_layout(void);		/* test-rings.c */
void test_geometry(void);
void test_send_sges(void);		/* test-send.c */
void test_send_inline(void);
void test_send_ud(void);
void test_send_atomic(void);
void test_send_opcodes(void);
void test_send_chain(void);
void test_send_full_wrap(void);
void test_recv(void);
void test_wr_batch(void);		/* test-batch.c */
void test_wr_batch_ud_full(void);
void test_cq_poll(void);		/* test-cq.c */
void test_cq_take(void);
void test_sq_threads(void);		/* test-threads.c */
void test_cq_threads(void);

#endif
