// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test-cq.c: the ring unit test's completion ring cases:
 * ibv_poll_cq and the one-at-a-time take of ibv_cq_ex.
 */
#include "test-rings.h"

void test_cq_poll(void)
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

/* ibv_cq_ex takes CQEs one at a time, each slot given back at once. */
void test_cq_take(void)
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
