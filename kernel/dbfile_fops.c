// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dbfile_fops.c: sroce_dbfile.ko, the file operations of sroce's doorbell
 * files (dbfile.c).
 *
 * An open file pins the module that its operations live in, and a process
 * keeps its doorbell file as long as it likes. They live here, apart from
 * sroce.ko, so that sroce.ko can be unloaded under running processes, as
 * ib_uverbs lets any driver with disassociate_ucontext be (a verbs file
 * pins ib_uverbs, not the driver). sroce.ko registers what an ioctl()
 * calls; when it unregisters, the files that are still open answer EIO.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/srcu.h>
#include <rdma/uverbs_types.h>

#include "dbfile.h"

static struct srcu_struct sroce_dbfile_srcu;
static DEFINE_MUTEX(sroce_dbfile_lock);		/* writers of the ops */
static const struct sroce_dbfile_ops __rcu *sroce_dbfile_cur;

static long sroce_dbfile_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	const struct sroce_dbfile_ops *ops;
	long ret = -EIO;
	int idx;

	idx = srcu_read_lock(&sroce_dbfile_srcu);
	ops = srcu_dereference(sroce_dbfile_cur, &sroce_dbfile_srcu);
	if (ops)
		ret = ops->ring(file->private_data, cmd, arg);
	srcu_read_unlock(&sroce_dbfile_srcu, idx);
	return ret;
}

/* ib_uverbs requires its own release (it frees the object). */
const struct file_operations sroce_dbfile_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = sroce_dbfile_ioctl,
	.compat_ioctl = sroce_dbfile_ioctl,	/* the argument is a number */
	.release = uverbs_uobject_fd_release,
};
EXPORT_SYMBOL_GPL(sroce_dbfile_fops);

/**
 * sroce_dbfile_register() - give the doorbell files their handler
 * @ops: sroce.ko's, until sroce_dbfile_unregister()
 *
 * Return: 0, or -EBUSY if another is registered.
 */
int sroce_dbfile_register(const struct sroce_dbfile_ops *ops)
{
	int err = 0;

	mutex_lock(&sroce_dbfile_lock);
	if (rcu_access_pointer(sroce_dbfile_cur))
		err = -EBUSY;
	else
		rcu_assign_pointer(sroce_dbfile_cur, ops);
	mutex_unlock(&sroce_dbfile_lock);
	return err;
}
EXPORT_SYMBOL_GPL(sroce_dbfile_register);

/**
 * sroce_dbfile_unregister() - take the handler away
 * @ops: what sroce_dbfile_register() was given
 *
 * Returns once no ioctl() runs @ops any more.
 */
void sroce_dbfile_unregister(const struct sroce_dbfile_ops *ops)
{
	mutex_lock(&sroce_dbfile_lock);
	if (rcu_access_pointer(sroce_dbfile_cur) == ops)
		RCU_INIT_POINTER(sroce_dbfile_cur, NULL);
	mutex_unlock(&sroce_dbfile_lock);
	synchronize_srcu(&sroce_dbfile_srcu);
}
EXPORT_SYMBOL_GPL(sroce_dbfile_unregister);

static int __init sroce_dbfile_mod_init(void)
{
	return init_srcu_struct(&sroce_dbfile_srcu);
}

static void __exit sroce_dbfile_mod_exit(void)
{
	cleanup_srcu_struct(&sroce_dbfile_srcu);
}

module_init(sroce_dbfile_mod_init);
module_exit(sroce_dbfile_mod_exit);

MODULE_DESCRIPTION("sroce doorbell files: what outlives sroce.ko");
MODULE_AUTHOR("The sroce authors");
MODULE_LICENSE("Dual BSD/GPL");
