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

#endif /* SROCE_COMPAT_H */
