// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loop.c: a packet to a local address never reaches a wire. It is queued
 * on the sending device and received later, as a NIC loops it back, so
 * that a sender never runs the receive path (and takes its locks) in its
 * own call stack; that lets every engine transmit while it holds its QP's
 * lock. A user doorbell receives the queue's packets itself once it has
 * let go of its lock (sroce_loop_release()); any other sender leaves them
 * to its CPU's tasklet, raised with bottom halves off (every engine runs
 * so), which runs as soon as the sender enables them again.
 *
 * The queue is the device's, not the CPU's, because a QP sends from
 * several CPUs (the doorbell's, the receive path's, its timers') and its
 * packets must not overtake one another. Only one CPU drains it at a time:
 * a CPU whose tasklet finds another draining leaves its packets to that
 * one instead of waiting for it. A single shared tasklet would do the
 * same, but a tasklet scheduled on one CPU while it runs on another spins
 * through the softirq loop and then wakes ksoftirqd, which costs a
 * busy-polling application a scheduler round trip (performance.rst).
 */
#include <linux/percpu.h>

#include "device.h"
#include "loop.h"
#include "recv.h"

#define SROCE_LOOP_BUSY		0
#define SROCE_LOOP_BUDGET	64	/* packets per tasklet run */
#define SROCE_LOOP_SYSCALL	1024	/* packets per doorbell */

/**
 * sroce_loop_claim() - become the one that drains the device's queue
 * @sdev: the device
 *
 * A full barrier: orders the caller's queueing before it.
 * Return: true if the caller must now drain it (sroce_loop_release()).
 */
bool sroce_loop_claim(struct sroce_dev *sdev)
{
	return !test_and_set_bit(SROCE_LOOP_BUSY, &sdev->loop.busy);
}

/* Receive up to @budget packets; the caller claimed the queue. */
static bool sroce_loop_drain(struct sroce_dev *sdev, int budget)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&sdev->loop.q))) {
		sroce_rcv(sdev, skb);
		if (!--budget)
			return true;
	}
	return false;
}

/*
 * Let go of the queue. A CPU that queued a packet after our last dequeue
 * and found us busy left it to us: look again after letting go.
 * Return: true if packets are queued.
 */
static bool sroce_loop_let_go(struct sroce_dev *sdev)
{
	clear_bit_unlock(SROCE_LOOP_BUSY, &sdev->loop.busy);
	/* Pairs with the full barrier of the queuer's sroce_loop_claim(). */
	smp_mb__after_atomic();
	return !skb_queue_empty_lockless(&sdev->loop.q);
}

/* Let go; true if the caller must drain again (it claimed it anew). */
static bool sroce_loop_unclaim(struct sroce_dev *sdev)
{
	return sroce_loop_let_go(sdev) && sroce_loop_claim(sdev);
}

/* Leave what is queued to this CPU's tasklet; bottom halves off. */
static void sroce_loop_defer(struct sroce_dev *sdev)
{
	if (sroce_loop_let_go(sdev))
		tasklet_schedule(&this_cpu_ptr(sdev->loop.cpu)->task);
}

/*
 * Drain the claimed queue, @batches of SROCE_LOOP_BUDGET packets at most,
 * then let go of it; bottom halves off. The rest, if the batches run out
 * or the scheduler wants the CPU, is left to this CPU's tasklet.
 */
static void sroce_loop_drain_claimed(struct sroce_dev *sdev, int batches)
{
	for (;;) {
		if (sroce_loop_drain(sdev, SROCE_LOOP_BUDGET)) {
			/* More is queued: go on, unless the CPU is wanted. */
			if (!--batches || need_resched()) {
				sroce_loop_defer(sdev);
				return;
			}
		} else if (!sroce_loop_unclaim(sdev)) {
			return;
		}
	}
}

static void sroce_loop_run(struct tasklet_struct *t)
{
	struct sroce_loop_cpu *lc = from_tasklet(lc, t, task);

	/* If another CPU drains, it will see our packets. */
	if (sroce_loop_claim(lc->sdev))
		sroce_loop_drain_claimed(lc->sdev, 1);
}

/**
 * sroce_loop_release() - drain the claimed queue, then let go of it
 * @sdev: the device; the caller claimed its queue with bottom halves off,
 *	  holds no lock, and enables them again after this
 *
 * A doorbell receives its own loopback traffic, and what it causes (ACKs,
 * responses, the rest of a message), in its own system call, as a
 * sender's hardware would work while the CPU goes on: the work is the
 * caller's, not ksoftirqd's, and is done before the call returns. It
 * leaves the rest to this CPU's tasklet when the scheduler wants the CPU
 * or after SROCE_LOOP_SYSCALL packets. Bottom halves stay off the whole
 * time, so the caller cannot be preempted while other CPUs leave their
 * packets to it.
 */
void sroce_loop_release(struct sroce_dev *sdev)
{
	sroce_loop_drain_claimed(sdev, SROCE_LOOP_SYSCALL / SROCE_LOOP_BUDGET);
}

/**
 * sroce_loop_send() - receive a packet on its sender's device, later
 * @sdev: the sending device
 * @skb: the packet from its UDP header on, with skb->dev set; consumed
 *
 * Any context; the packet is received in softirq once the caller's CPU
 * enables bottom halves again.
 */
void sroce_loop_send(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_loop_cpu *lc;

	skb_queue_tail(&sdev->loop.q, skb);
	lc = get_cpu_ptr(sdev->loop.cpu);
	tasklet_schedule(&lc->task);
	put_cpu_ptr(sdev->loop.cpu);
}

/* Set up the loopback queue of a new device. */
int sroce_loop_init(struct sroce_dev *sdev)
{
	int cpu;

	skb_queue_head_init(&sdev->loop.q);
	sdev->loop.cpu = alloc_percpu(struct sroce_loop_cpu);
	if (!sdev->loop.cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sroce_loop_cpu *lc = per_cpu_ptr(sdev->loop.cpu, cpu);

		lc->sdev = sdev;
		tasklet_setup(&lc->task, sroce_loop_run);
	}
	return 0;
}

/* Stop it, once no QP of the device can send any more. */
void sroce_loop_fini(struct sroce_dev *sdev)
{
	int cpu;

	if (!sdev->loop.cpu)
		return;
	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(sdev->loop.cpu, cpu)->task);
	skb_queue_purge(&sdev->loop.q);
	free_percpu(sdev->loop.cpu);
	sdev->loop.cpu = NULL;
}
