/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * loop.h: packets a device sends to a local address.
 */
#ifndef SROCE_LOOP_H
#define SROCE_LOOP_H

#include <linux/interrupt.h>
#include <linux/skbuff.h>

struct sroce_dev;

struct sroce_loop_cpu {
	struct tasklet_struct task;
	struct sroce_dev *sdev;
};

/*
 * One FIFO per device, so that a QP's packets arrive in the order it sent
 * them, drained by one CPU at a time (@busy) from that CPU's own tasklet.
 */
struct sroce_loop {
	struct sk_buff_head q;
	unsigned long busy;
	struct sroce_loop_cpu __percpu *cpu;
};

int sroce_loop_init(struct sroce_dev *sdev);
void sroce_loop_fini(struct sroce_dev *sdev);
void sroce_loop_send(struct sroce_dev *sdev, struct sk_buff *skb);
bool sroce_loop_claim(struct sroce_dev *sdev);
void sroce_loop_release(struct sroce_dev *sdev);

#endif /* SROCE_LOOP_H */
