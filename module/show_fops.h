/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file operations of a debugfs file that prints its whole table in one
 * show() call (seq_file's single_open), like the kernel's
 * DEFINE_SHOW_ATTRIBUTE() but usable for the fops main.c lists, which are
 * not static: MI_SHOW_OPEN(name) defines name_open() around name_show(), and
 * MI_SHOW_FOPS(name) is the initializer of the fops that use it.
 */
#ifndef MEMINSPECT_SHOW_FOPS_H
#define MEMINSPECT_SHOW_FOPS_H

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#define MI_SHOW_OPEN(name)						\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, name##_show, inode->i_private);	\
}

#define MI_SHOW_FOPS(name) {						\
	.owner = THIS_MODULE,						\
	.open = name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

#endif /* MEMINSPECT_SHOW_FOPS_H */
