/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types for kernel/core/, the pure protocol code that is compiled both into
 * the kernel module and into the host unit tests (selftests/unit/).
 *
 * Core code uses only u8, u16, u32, u64, s32, bool, size_t, memcpy() and
 * memset(). Wire fields are never accessed through __be types: they are read
 * and written byte by byte with the accessors in hdr.h.
 */
#ifndef SROCE_CORE_TYPES_H
#define SROCE_CORE_TYPES_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/string.h>
#include <linux/stddef.h>

#else /* host build */

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The compiler's own names, so that no <stdint.h> spelling is needed. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;

#endif /* __KERNEL__ */

#endif /* SROCE_CORE_TYPES_H */
