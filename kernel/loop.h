/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * loop.h: packets a device sends to a local address.
 */
#ifndef SROCE_LOOP_H
#define SROCE_LOOP_H

#include <linux/interrupt.h>
#include <linux/skbuff.h>

struct sroce_dev;

/* Queues per device: one bit each in a word of flags. */
#define SROCE_LOOP_QUEUES	BITS_PER_LONG

/*
 * A CPU's part: the queues it put packets on and has not drained yet
 * (@pending, a bit per queue), and the tasklet that drains them unless a
 * doorbell on this CPU does (@draining); the queue whose turn is next
 * (@next, sroce_loop_run()). A doorbell of a streaming QP (@handoff)
 * leaves its packets to the polling CPU if there is one (poll.c): it sets
 * that CPU's @pending bits instead.
 */
struct sroce_loop_cpu {
	struct tasklet_struct task;
	struct sroce_dev *sdev;
	unsigned long pending;
	unsigned int next;
	bool draining;
	bool handoff;
};

/*
 * A FIFO per flow (the destination QP, requests apart from responses),
 * hashed into SROCE_LOOP_QUEUES queues, so that a flow's packets arrive in
 * the order they were sent; each drained by one CPU at a time (@busy, a
 * bit per queue).
 */
struct sroce_loop {
	struct sk_buff_head q[SROCE_LOOP_QUEUES];
	unsigned long busy;
	struct sroce_loop_cpu __percpu *cpu;
	struct list_head poll;		/* on poll.c's list of devices */
};

int sroce_loop_init(struct sroce_dev *sdev);
void sroce_loop_fini(struct sroce_dev *sdev);
void sroce_loop_send(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_loop_begin(struct sroce_dev *sdev, bool handoff);
void sroce_loop_end(struct sroce_dev *sdev);
bool sroce_loop_poll(struct sroce_dev *sdev, int cpu);
bool sroce_loop_pending(struct sroce_dev *sdev, int cpu);

#endif /* SROCE_LOOP_H */
