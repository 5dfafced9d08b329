/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the libFuzzer targets: reading fuzz input as a stream of
 * numbers, and invariant checks that abort (so libFuzzer keeps the input
 * as a crash) with a message saying what broke.
 */
#ifndef SROCE_FUZZ_H
#define SROCE_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, consumed from the front; reads past the end give zeros. */
struct fz {
	const u8 *p;
	size_t n;
};

static inline u8 fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline u16 fz_u16(struct fz *f)
{
	u16 v = fz_u8(f);

	return (u16)(v << 8 | fz_u8(f));
}

static inline u32 fz_u24(struct fz *f)
{
	u32 v = fz_u16(f);

	return v << 8 | fz_u8(f);
}

static inline u32 fz_u32(struct fz *f)
{
	u32 v = fz_u16(f);

	return v << 16 | fz_u16(f);
}

static inline u64 fz_u64(struct fz *f)
{
	u64 v = fz_u32(f);

	return v << 32 | fz_u32(f);
}

/* An invariant of the protocol core; abort when it does not hold. */
#define FZ_ASSERT(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant violated: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, "  " __VA_ARGS__);			\
		fprintf(stderr, "\n");					\
		abort();						\
	}								\
} while (0)

#endif /* SROCE_FUZZ_H */
