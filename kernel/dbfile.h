/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dbfile.h: the doorbell file. Its file operations are in sroce_dbfile.ko
 * (dbfile_fops.c), the rest in sroce.ko (dbfile.c).
 */
#ifndef SROCE_DBFILE_H
#define SROCE_DBFILE_H

#include <linux/fs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * What a doorbell file's ioctl() calls, in an SRCU read section that
 * sroce_dbfile_unregister() waits for.
 */
struct sroce_dbfile_ops {
	long (*ring)(struct ib_uobject *uobj, unsigned int cmd,
		     unsigned long arg);
};

/* sroce_dbfile.ko */
extern const struct file_operations sroce_dbfile_fops;
int sroce_dbfile_register(const struct sroce_dbfile_ops *ops);
void sroce_dbfile_unregister(const struct sroce_dbfile_ops *ops);

/* sroce.ko */
extern const struct uapi_definition sroce_uapi_defs[];
int sroce_dbfile_init(void);
void sroce_dbfile_exit(void);

#endif /* SROCE_DBFILE_H */
