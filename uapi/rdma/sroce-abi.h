/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce-abi.h: the only contract between the sroce kernel module and its
 * rdma-core provider (libsroce-rdmav34.so).
 *
 * Rules: fixed-width types only, explicit padding, every 64-bit field
 * naturally aligned, and SROCE_UVERBS_ABI_VERSION bumped on any change that
 * an older provider or kernel could misread. Kernel-private state never
 * lives in memory shared with userspace.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Reported as the uverbs device's abi_version (sysfs) and again in the
 * alloc_ucontext response; the provider refuses any other value.
 */
#define SROCE_UVERBS_ABI_VERSION	1

/* Response to IB_USER_VERBS_CMD_GET_CONTEXT. */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 reserved;		/* zero */
};

#endif /* SROCE_ABI_USER_H */
