// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * poll.c: the polling CPU, an option, off by default.
 *
 * A doorbell receives the loopback traffic it causes in its own system
 * call (loop.c): the responder's side of each message, the ACK, the
 * completion. For a QP that streams small messages that is the whole cost
 * of a message, paid on the poster's CPU while the others idle. With
 * `poll_cpu=N`, a kernel thread bound to CPU N does the receiving instead,
 * as a NIC's engine works beside the host: a streaming doorbell on another
 * CPU leaves its single-packet requests on CPU N's pending word (loop.c)
 * and returns to post the next message, while the thread receives,
 * acknowledges and completes. Like io_uring's SQPOLL thread, it costs a
 * CPU while it polls; it polls while there is work and for
 * SROCE_POLL_IDLE_NS after (SROCE_POLL_SHARE_NS if another task wants the
 * CPU), then sleeps. A doorbell that finds it asleep wakes it and
 * receives its own packets this time, so no packet waits for a wake-up.
 * While it polls, it also drains what anything else queues on its CPU
 * (sroce_poll_here()). Documentation/performance.rst has the numbers.
 *
 * The parameter can be changed at any time (0644): the old thread stops
 * once no doorbell can hand it anything, after receiving what it was
 * handed; -1 stops polling, and so does taking the CPU offline.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>

#include "device.h"
#include "loop.h"
#include "poll.h"

/* Polling with nothing found, before sleeping; if the CPU is wanted */
#define SROCE_POLL_IDLE_NS	(2 * NSEC_PER_MSEC)
#define SROCE_POLL_SHARE_NS	(50 * NSEC_PER_USEC)

/*
 * The thread: @polling is true while it looks for work, false while it
 * goes to sleep or sleeps (then a doorbell wakes it).
 */
struct sroce_poller {
	struct task_struct *task;
	int cpu;
	bool polling;
};

static struct sroce_poller __rcu *sroce_poller;
static LIST_HEAD(sroce_poll_devs);	/* RCU; the devices to poll */
static DEFINE_MUTEX(sroce_poll_lock);	/* the thread, the list, the below */
static int sroce_poll_param = -1;
static bool sroce_poll_ready;		/* module initialised */
static enum cpuhp_state sroce_poll_hp;	/* sroce_poll_cpu_down()'s */

/*
 * Receive what doorbells left to CPU @p->cpu on any device; with @look,
 * only look. Return: true if there was something.
 */
static bool sroce_poll_once(struct sroce_poller *p, bool look)
{
	struct sroce_dev *sdev;
	struct sroce_loop *loop;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(loop, &sroce_poll_devs, poll) {
		sdev = container_of(loop, struct sroce_dev, loop);
		if (look)
			found |= sroce_loop_pending(sdev, p->cpu);
		else
			found |= sroce_loop_poll(sdev, p->cpu);
	}
	rcu_read_unlock();
	return found;
}

/* Sleep until a doorbell wakes us, or kthread_stop(). */
static void sroce_poll_sleep(struct sroce_poller *p)
{
	set_current_state(TASK_INTERRUPTIBLE);
	WRITE_ONCE(p->polling, false);
	/*
	 * Pairs with sroce_poll_kick(): a doorbell that left a packet after
	 * we looked sees polling false, and wakes us.
	 */
	smp_mb();
	if (!sroce_poll_once(p, true) && !kthread_should_stop())
		schedule();
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(p->polling, true);
}

static int sroce_poll_thread(void *arg)
{
	struct sroce_poller *p = arg;
	u64 last = local_clock(), idle;

	while (!kthread_should_stop()) {
		if (sroce_poll_once(p, false)) {
			last = local_clock();
		} else {
			idle = local_clock() - last;
			/* idle, or idle a while and another task wants the CPU */
			if (idle > SROCE_POLL_IDLE_NS ||
			    (idle > SROCE_POLL_SHARE_NS && !single_task_running())) {
				sroce_poll_sleep(p);
				last = local_clock();
			} else {
				cpu_relax();
			}
		}
		cond_resched();
	}
	/* No doorbell finds us any more: receive what they left. */
	while (sroce_poll_once(p, false))
		cond_resched();
	return 0;
}

/**
 * sroce_poll_cpu() - where a streaming doorbell leaves its packets
 *
 * Bottom halves off, under rcu_read_lock() until after sroce_poll_kick().
 * Wakes a thread that sleeps: the next doorbells find it polling.
 *
 * Return: the polling CPU, or -1: none polls, or it is this one.
 */
int sroce_poll_cpu(void)
{
	struct sroce_poller *p = rcu_dereference(sroce_poller);

	if (!p || p->cpu == smp_processor_id())
		return -1;
	if (READ_ONCE(p->polling))
		return p->cpu;
	wake_up_process(p->task);
	return -1;
}

/**
 * sroce_poll_here() - will this CPU's thread drain what was just queued?
 *
 * Bottom halves off, after setting the queue's bit in this CPU's pending
 * word. Return: true if this is the polling CPU and its thread polls: it
 * sees the bit before it sleeps.
 */
bool sroce_poll_here(void)
{
	struct sroce_poller *p;
	bool here;

	/* Pairs with the barrier in sroce_poll_sleep(). */
	smp_mb__after_atomic();
	rcu_read_lock();
	p = rcu_dereference(sroce_poller);
	here = p && p->cpu == smp_processor_id() && READ_ONCE(p->polling);
	rcu_read_unlock();
	return here;
}

/**
 * sroce_poll_kick() - a packet was left to the polling CPU
 *
 * After marking it pending there, in the same RCU read section as the
 * sroce_poll_cpu() that named the CPU. Wakes the thread if it has just
 * gone to sleep.
 */
void sroce_poll_kick(void)
{
	struct sroce_poller *p = rcu_dereference(sroce_poller);

	/* Pairs with the barrier in sroce_poll_sleep(). */
	smp_mb__after_atomic();
	if (p && !READ_ONCE(p->polling))
		wake_up_process(p->task);
}

/* Stop the thread, once no doorbell can find it. */
static void sroce_poll_stop(void)
{
	struct sroce_poller *p;

	p = rcu_dereference_protected(sroce_poller,
				      lockdep_is_held(&sroce_poll_lock));
	if (!p)
		return;
	RCU_INIT_POINTER(sroce_poller, NULL);
	synchronize_rcu();
	kthread_stop(p->task);
	kfree(p);
}

static int sroce_poll_start(int cpu)
{
	struct sroce_poller *p;
	struct task_struct *t;

	lockdep_assert_held(&sroce_poll_lock);
	if (!cpu_online(cpu))
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->cpu = cpu;
	p->polling = true;
	t = kthread_create(sroce_poll_thread, p, "sroce_poll/%d", cpu);
	if (IS_ERR(t)) {
		kfree(p);
		return PTR_ERR(t);
	}
	kthread_bind(t, cpu);
	p->task = t;
	rcu_assign_pointer(sroce_poller, p);
	wake_up_process(t);
	return 0;
}

static int sroce_poll_set(const char *val, const struct kernel_param *kp)
{
	int cpu, err;

	err = kstrtoint(val, 0, &cpu);
	if (err)
		return err;
	if (cpu < -1 || cpu >= (int)nr_cpu_ids)
		return -EINVAL;
	/* No CPU goes offline under us (sroce_poll_cpu_down()). */
	cpus_read_lock();
	mutex_lock(&sroce_poll_lock);
	if (sroce_poll_ready) {
		sroce_poll_stop();
		sroce_poll_param = -1;
		if (cpu >= 0)
			err = sroce_poll_start(cpu);
	}
	if (!err)
		sroce_poll_param = cpu;
	mutex_unlock(&sroce_poll_lock);
	cpus_read_unlock();
	return err;
}

/*
 * The polling CPU is going offline: polling stops first, its thread
 * receiving what it was left on that CPU. Set poll_cpu again to restart.
 */
static int sroce_poll_cpu_down(unsigned int cpu)
{
	struct sroce_poller *p;

	mutex_lock(&sroce_poll_lock);
	p = rcu_dereference_protected(sroce_poller,
				      lockdep_is_held(&sroce_poll_lock));
	if (p && p->cpu == cpu) {
		pr_info("CPU %u goes offline: poll_cpu off\n", cpu);
		sroce_poll_stop();
		sroce_poll_param = -1;
	}
	mutex_unlock(&sroce_poll_lock);
	return 0;
}

static const struct kernel_param_ops sroce_poll_ops = {
	.set = sroce_poll_set,
	.get = param_get_int,
};

module_param_cb(poll_cpu, &sroce_poll_ops, &sroce_poll_param, 0644);
MODULE_PARM_DESC(poll_cpu,
		 "CPU whose kernel thread receives streaming QPs' loopback traffic (-1: none, the default)");

/* Poll the queues of a new device too. */
void sroce_poll_add(struct sroce_loop *loop)
{
	mutex_lock(&sroce_poll_lock);
	list_add_tail_rcu(&loop->poll, &sroce_poll_devs);
	mutex_unlock(&sroce_poll_lock);
}

/* No longer: when this returns, the thread is done with the device. */
void sroce_poll_del(struct sroce_loop *loop)
{
	mutex_lock(&sroce_poll_lock);
	list_del_rcu(&loop->poll);
	mutex_unlock(&sroce_poll_lock);
	synchronize_rcu();
}

/*
 * Start the thread the parameter asked for at load time. A CPU that is
 * not online leaves polling off, rather than the module unloaded.
 */
int sroce_poll_init(void)
{
	int err = 0;

	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "sroce/poll",
					NULL, sroce_poll_cpu_down);
	if (err < 0)
		return err;
	sroce_poll_hp = err;
	err = 0;
	cpus_read_lock();
	mutex_lock(&sroce_poll_lock);
	sroce_poll_ready = true;
	if (sroce_poll_param >= 0)
		err = sroce_poll_start(sroce_poll_param);
	if (err) {
		pr_warn("poll_cpu=%d: cannot poll there (%d), polling off\n",
			sroce_poll_param, err);
		sroce_poll_param = -1;
	}
	mutex_unlock(&sroce_poll_lock);
	cpus_read_unlock();
	return 0;
}

void sroce_poll_exit(void)
{
	cpuhp_remove_state_nocalls(sroce_poll_hp);
	mutex_lock(&sroce_poll_lock);
	sroce_poll_stop();
	sroce_poll_ready = false;
	mutex_unlock(&sroce_poll_lock);
}
