/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs.h: the verbs entry points of a sroce device.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

void sroce_set_device_ops(struct ib_device *ibdev);

#endif /* SROCE_VERBS_H */
