/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * compat.h: every difference between the kernels sroce builds against,
 * named by capability, lives here and nowhere else. Kbuild force-includes
 * this header into every object; .c files never test kernel versions.
 *
 * Capabilities are probed from the kernel headers by Kbuild (see the
 * SROCE_HAVE_* flags there) rather than inferred from version numbers, so
 * distribution kernels with backports build too.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

/*
 * create_cq: from 6.11 it takes the uverbs attribute bundle (NULL for
 * kernel CQs) where it took the udata.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
#include <rdma/uverbs_ioctl.h>
#define SROCE_CREATE_CQ_ARG	struct uverbs_attr_bundle *
static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define SROCE_CREATE_CQ_ARG	struct ib_udata *
#define sroce_create_cq_udata(udata)	(udata)
#endif

/*
 * Tracepoints: from 6.10 __assign_str() takes only the field; the source
 * is the one given to __string().
 */
#ifdef SROCE_HAVE_ASSIGN_STR_DST
#define sroce_assign_str(dst, src)	__assign_str(dst)
#else
#define sroce_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * A VMA's flags: from 6.3 they change through vm_flags_set() (under the
 * mmap lock, which an mmap handler holds).
 */
#ifdef SROCE_HAVE_VM_FLAGS_SET
#define sroce_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#else
#define sroce_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

#endif /* SROCE_COMPAT_H */
