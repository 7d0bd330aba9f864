/* SPDX-License-Identifier: GPL-2.0 */
/* Which mount a module-printed device and path are under (mountinfo.c). */
#ifndef MI_MOUNTINFO_H
#define MI_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

/*
 * dev (hex "MAJ:MIN", as the module prints it) and path within that file
 * system, as /proc/PID/maps prints them: the mount point whose root is a
 * prefix of path joined with the rest, into buf; the mount's file system
 * type into fstype. From /proc/self/mountinfo ($MEMINSPECT_MOUNTINFO for
 * tests). False (buf and fstype untouched) where no mount matches.
 */
bool mi_mount_path(const char *dev, const char *path, char *buf, size_t len, char *fstype,
		   size_t flen);

#endif
