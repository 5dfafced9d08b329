// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loop.c: a packet to a local address never reaches a wire. It is queued
 * on the sending device and received later, as a NIC loops it back, so
 * that a sender never runs the receive path (and takes its locks) in its
 * own call stack; that lets every engine transmit while it holds its QP's
 * lock. A user doorbell receives what it queued itself once it has let go
 * of its lock (sroce_loop_end()); any other sender leaves it to its CPU's
 * tasklet, raised with bottom halves off (every engine runs so), which
 * runs as soon as the sender enables them again. No ICRC is computed for
 * such a packet, nor checked (xmit.c).
 *
 * A flow's packets must not overtake one another, and a QP sends from
 * several CPUs (the doorbell's, the receive path's, its timers'). So a
 * packet goes on the queue of its flow: its destination QP, requests
 * apart from responses, hashed into the device's queues. Only one CPU
 * drains a queue at a time; a CPU that finds another draining it leaves
 * its packets to that one instead of waiting. Flows that do not share a
 * queue are received in parallel: in a ping-pong, one side's ACK is
 * received on its CPU while the other side's next request is on the
 * other's, as rdma_rxe does. One queue per device serialised them
 * (performance.rst).
 *
 * Each CPU notes the queues it put packets on (struct sroce_loop_cpu),
 * and drains those; a queue whose drainer is elsewhere is that one's.
 * With a polling CPU (poll.c), a streaming doorbell notes its queues on
 * that CPU instead, whose thread drains them (sroce_loop_poll()).
 *
 * A queue holds loop_backlog packets at most (a module parameter, 1024 by
 * default, as netdev_max_backlog bounds a CPU's receive backlog): more,
 * while its drainer is behind (a polling CPU that does not get to run,
 * many QPs' windows hashed together), are dropped and counted in
 * loop_drops, as a NIC's full queue drops; RC sends them again.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

#include "core/hdr.h"
#include "core/opcode.h"
#include "device.h"
#include "loop.h"
#include "poll.h"
#include "recv.h"

#define SROCE_LOOP_BUDGET	64	/* packets per tasklet run */
#define SROCE_LOOP_SYSCALL	1024	/* packets per doorbell */
#define SROCE_LOOP_QUANTUM	16	/* packets per queue per turn */

static unsigned int sroce_loop_backlog = 1024;

static int sroce_loop_backlog_set(const char *val,
				  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 16, 1 << 20);
}

static const struct kernel_param_ops sroce_loop_backlog_ops = {
	.set = sroce_loop_backlog_set,
	.get = param_get_uint,
};
module_param_cb(loop_backlog, &sroce_loop_backlog_ops, &sroce_loop_backlog,
		0644);
MODULE_PARM_DESC(loop_backlog,
		 "packets a loopback queue holds; more are dropped (16..1048576, 1024)");

/* What a queued packet's BTH says, noted in its skb->cb when queued. */
struct sroce_loop_cb {
	u32 dqpn;
	u32 flags;			/* its opcode's SROCE_OPF_* */
};

static struct sroce_loop_cb *sroce_loop_cb(const struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_loop_cb) > sizeof(skb->cb));
	return (struct sroce_loop_cb *)skb->cb;
}

/*
 * Note what the BTH of a packet (from its UDP header on, linear to the end
 * of the BTH) says, and return its queue.
 */
static unsigned int sroce_loop_queue(struct sk_buff *skb)
{
	struct sroce_loop_cb *cb = sroce_loop_cb(skb);
	struct sroce_bth bth;
	bool resp;

	sroce_bth_decode(skb->data + sizeof(struct udphdr), &bth);
	cb->dqpn = bth.dqpn;
	cb->flags = sroce_opcode_flags(bth.opcode);
	resp = cb->flags & SROCE_OPF_RESP;
	return hash_32(bth.dqpn << 1 | resp, ilog2(SROCE_LOOP_QUEUES));
}

/* Is @next a request to the QP @skb went to? Both queued. */
static bool sroce_loop_same_qp(const struct sk_buff *skb,
			       const struct sk_buff *next)
{
	const struct sroce_loop_cb *a = sroce_loop_cb(skb);
	const struct sroce_loop_cb *b = sroce_loop_cb(next);

	return a->dqpn == b->dqpn && (b->flags & SROCE_OPF_REQ);
}

/*
 * Take the packet at the head of queue @q, which this CPU drains; *@more
 * says whether a request to the same QP is behind it, which the caller
 * receives next if @later (it has quota left): that one's answer then
 * covers this one's, and the responder may coalesce the two ACKs
 * (sroce_rc_ack_now()). Only the drainer takes packets off @q, so the
 * packet behind stays there.
 */
static struct sk_buff *sroce_loop_dequeue(struct sk_buff_head *q, bool later,
					  bool *more)
{
	struct sk_buff *skb, *next = NULL;

	spin_lock(&q->lock);
	skb = __skb_dequeue(q);
	if (skb && later)
		next = skb_peek(q);
	spin_unlock(&q->lock);
	*more = next && sroce_loop_same_qp(skb, next);
	return skb;
}

/*
 * Receive queue @i's packets, SROCE_LOOP_QUANTUM and @budget at most,
 * unless another CPU drains it. Bottom halves off. What is left when the
 * quantum or the budget runs out, or the scheduler wants the CPU, stays
 * pending on this CPU.
 * Return: what is left of @budget, 0 to stop.
 */
static int sroce_loop_drain(struct sroce_dev *sdev, struct sroce_loop_cpu *lc,
			    unsigned int i, int budget)
{
	int quota = min(budget, SROCE_LOOP_QUANTUM);
	struct sk_buff_head *q = &sdev->loop.q[i];
	struct sk_buff *skb;
	bool stop, more;

	budget -= quota;
	/* A full barrier: orders our queueing before it. */
	if (test_and_set_bit(i, &sdev->loop.busy))
		return budget + quota;	/* its drainer will see our packets */
	for (;;) {
		while (quota) {
			skb = sroce_loop_dequeue(q, quota > 1, &more);
			if (!skb)
				break;
			sroce_rcv_local(sdev, skb, more);
			quota--;
		}
		/*
		 * Let go, then look again: a CPU that queued a packet after
		 * our last dequeue and found us busy left it to us.
		 */
		clear_bit_unlock(i, &sdev->loop.busy);
		/* Pairs with the test_and_set_bit() above, on that CPU. */
		smp_mb__after_atomic();
		if (skb_queue_empty_lockless(q))
			return budget + quota;
		stop = need_resched();
		if (!quota || stop) {
			set_bit(i, &lc->pending);
			return stop ? 0 : budget;
		}
		if (test_and_set_bit(i, &sdev->loop.busy))
			return budget + quota;
	}
}

/* Queue @i's turn in sroce_loop_run(). Return: what is left of @budget. */
static int sroce_loop_turn(struct sroce_dev *sdev, struct sroce_loop_cpu *lc,
			   unsigned int i, int budget)
{
	if (!budget) {
		set_bit(i, &lc->pending);	/* it goes first next time */
		return 0;
	}
	lc->next = (i + 1) % SROCE_LOOP_QUEUES;
	return sroce_loop_drain(sdev, lc, i, budget);
}

/*
 * Drain the queues this CPU put packets on, and those their packets put
 * packets on, @budget packets at most; bottom halves off. The queues take
 * turns, a quantum each, from the one after the last served: a queue that
 * its senders keep full cannot starve the others, whose ACKs would time
 * out behind it. Return: true if some are left.
 */
static bool sroce_loop_run(struct sroce_dev *sdev, struct sroce_loop_cpu *lc,
			   int budget)
{
	unsigned long todo;
	unsigned int i, start;

	while (budget && (todo = xchg(&lc->pending, 0))) {
		start = lc->next;
		i = start;
		for_each_set_bit_from(i, &todo, SROCE_LOOP_QUEUES)
			budget = sroce_loop_turn(sdev, lc, i, budget);
		for_each_set_bit(i, &todo, start)
			budget = sroce_loop_turn(sdev, lc, i, budget);
	}
	return READ_ONCE(lc->pending);
}

static void sroce_loop_task(struct tasklet_struct *t)
{
	struct sroce_loop_cpu *lc = from_tasklet(lc, t, task);
	bool left;

	/* What the packets cause is drained in this run, as in a doorbell. */
	lc->draining = true;
	left = sroce_loop_run(lc->sdev, lc, SROCE_LOOP_BUDGET);
	lc->draining = false;
	if (left)
		tasklet_schedule(&lc->task);
}

/**
 * sroce_loop_begin() - a doorbell will receive what it sends
 * @sdev: the device; bottom halves off until after sroce_loop_end()
 * @handoff: the QP streams: leave what it can to the polling CPU
 *
 * The packets this CPU queues until then are the doorbell's to receive,
 * not the tasklet's, or the polling CPU's (sroce_loop_handoff()).
 */
void sroce_loop_begin(struct sroce_dev *sdev, bool handoff)
{
	struct sroce_loop_cpu *lc = this_cpu_ptr(sdev->loop.cpu);

	lc->draining = true;
	lc->handoff = handoff;
}

/**
 * sroce_loop_end() - receive what the doorbell sent
 * @sdev: the device; after sroce_loop_begin(), no lock held
 *
 * A doorbell receives its own loopback traffic, and what it causes (ACKs,
 * responses, the rest of a message), in its own system call, as a
 * sender's hardware would work while the CPU goes on: the work is the
 * caller's, not ksoftirqd's, and is done before the call returns. It
 * leaves the rest to this CPU's tasklet when the scheduler wants the CPU
 * or after SROCE_LOOP_SYSCALL packets. Bottom halves stay off the whole
 * time, so the caller cannot be preempted while another CPU leaves its
 * packets to it.
 */
void sroce_loop_end(struct sroce_dev *sdev)
{
	struct sroce_loop_cpu *lc = this_cpu_ptr(sdev->loop.cpu);

	if (sroce_loop_run(sdev, lc, SROCE_LOOP_SYSCALL))
		tasklet_schedule(&lc->task);
	lc->draining = false;
	lc->handoff = false;
}

/*
 * Leave queue @i, where a streaming doorbell put a packet with opcode
 * flags @flags, to the polling CPU, if there is one (poll.c). Only a
 * request that is a message of its own goes: the poster posts the next
 * while that CPU receives this one. A message of many packets, or a READ
 * (its response is one), stays with the doorbell, which sends it in a
 * burst: handed off, the polling CPU would end up moving the whole
 * transfer alone. Return: true if handed off.
 */
static bool sroce_loop_handoff(struct sroce_dev *sdev, unsigned int i,
			       u32 flags)
{
	bool done = false;
	int cpu;

	if ((flags & (SROCE_OPF_REQ | SROCE_OPF_ONLY | SROCE_OPF_READ)) !=
	    (SROCE_OPF_REQ | SROCE_OPF_ONLY))
		return false;
	rcu_read_lock();
	cpu = sroce_poll_cpu();
	if (cpu >= 0) {
		set_bit(i, &per_cpu_ptr(sdev->loop.cpu, cpu)->pending);
		sroce_poll_kick();
		sroce_count(&sdev->counters, SROCE_CNT_LOOP_HANDOFFS);
		done = true;
	}
	rcu_read_unlock();
	return done;
}

/**
 * sroce_loop_pending() - has anyone left packets to @cpu?
 * @sdev: the device
 * @cpu: the polling CPU
 */
bool sroce_loop_pending(struct sroce_dev *sdev, int cpu)
{
	return READ_ONCE(per_cpu_ptr(sdev->loop.cpu, cpu)->pending);
}

/**
 * sroce_loop_poll() - receive what doorbells left to the polling CPU
 * @sdev: the device
 * @cpu: the polling CPU, this one unless it went offline
 *
 * Process context (poll.c's thread), bottom halves on. What the packets
 * cause is received here too, as in a doorbell.
 *
 * Return: true if there was something.
 */
bool sroce_loop_poll(struct sroce_dev *sdev, int cpu)
{
	struct sroce_loop_cpu *lc = per_cpu_ptr(sdev->loop.cpu, cpu);
	struct sroce_loop_cpu *here;

	if (!READ_ONCE(lc->pending))
		return false;
	local_bh_disable();
	here = this_cpu_ptr(sdev->loop.cpu);
	here->draining = true;
	/*
	 * What is left stays pending for the thread's next pass, not for
	 * the tasklet: that would run in softirq, and then in ksoftirqd.
	 */
	sroce_loop_run(sdev, lc, SROCE_LOOP_BUDGET);
	here->draining = false;
	if (here != lc && READ_ONCE(here->pending))
		tasklet_schedule(&here->task);	/* @cpu went offline */
	local_bh_enable();
	return true;
}

/**
 * sroce_loop_send() - receive a packet on its sender's device, later
 * @sdev: the sending device
 * @skb: the packet from its UDP header on, linear up to the end of the
 *	 BTH, with skb->dev set; consumed
 *
 * Bottom halves off (as sroce_xmit()); the packet is received by this
 * CPU's doorbell, or in softirq once the caller's CPU enables bottom
 * halves again, or dropped (and counted) when its queue is full. A
 * queue's lock is only ever taken with bottom halves off, never in a hard
 * interrupt, so it leaves interrupts on: turning them off and on is slow
 * under emulation.
 */
void sroce_loop_send(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_loop_cpu *lc;
	unsigned int i;
	u32 flags;

	lockdep_assert_in_softirq();
	i = sroce_loop_queue(skb);
	flags = sroce_loop_cb(skb)->flags;
	spin_lock(&sdev->loop.q[i].lock);
	if (unlikely(skb_queue_len(&sdev->loop.q[i]) >=
		     READ_ONCE(sroce_loop_backlog))) {
		spin_unlock(&sdev->loop.q[i].lock);
		sroce_count(&sdev->counters, SROCE_CNT_LOOP_DROPS);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(&sdev->loop.q[i], skb);
	spin_unlock(&sdev->loop.q[i].lock);
	lc = get_cpu_ptr(sdev->loop.cpu);
	if (lc->handoff && sroce_loop_handoff(sdev, i, flags))
		goto out;
	set_bit(i, &lc->pending);
	/* On the polling CPU, its thread drains the queue if it polls. */
	if (!lc->draining && !sroce_poll_here())
		tasklet_schedule(&lc->task);
out:
	put_cpu_ptr(sdev->loop.cpu);
}

/* Set up the loopback queues of a new device. */
int sroce_loop_init(struct sroce_dev *sdev)
{
	int cpu, i;

	for (i = 0; i < SROCE_LOOP_QUEUES; i++)
		skb_queue_head_init(&sdev->loop.q[i]);
	sdev->loop.cpu = alloc_percpu(struct sroce_loop_cpu);
	if (!sdev->loop.cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sroce_loop_cpu *lc = per_cpu_ptr(sdev->loop.cpu, cpu);

		lc->sdev = sdev;
		tasklet_setup(&lc->task, sroce_loop_task);
	}
	sroce_poll_add(&sdev->loop);
	return 0;
}

/* Stop them, once no QP of the device can send any more. */
void sroce_loop_fini(struct sroce_dev *sdev)
{
	int cpu, i;

	if (!sdev->loop.cpu)
		return;
	sroce_poll_del(&sdev->loop);
	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(sdev->loop.cpu, cpu)->task);
	for (i = 0; i < SROCE_LOOP_QUEUES; i++)
		skb_queue_purge(&sdev->loop.q[i]);
	free_percpu(sdev->loop.cpu);
	sdev->loop.cpu = NULL;
}
