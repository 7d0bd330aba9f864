// SPDX-License-Identifier: GPL-2.0
/*
 * The module prints an inode's device and its path within its file system
 * (files): /proc/self/mountinfo says where that file system is mounted, so
 * the reader can print the path a user knows, and its type (tmpfs: shmem).
 */
#include "mountinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mi_mount_path(const char *dev, const char *path, char *buf, size_t len, char *fstype,
		   size_t flen)
{
	const char *file = getenv("MEMINSPECT_MOUNTINFO");
	unsigned int dmaj, dmin, maj, min;
	char line[8192], r[4096], m[4096], t[64];
	bool found = false;
	FILE *f;

	if (!path || path[0] != '/' || sscanf(dev, "%x:%x", &dmaj, &dmin) != 2)
		return false;
	f = fopen(file ? file : "/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");
		size_t n;

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &maj, &min, r, m) != 4 ||
		    maj != dmaj || min != dmin)
			continue;
		n = strcmp(r, "/") ? strlen(r) : 0;
		if (strncmp(path, r, n) || (path[n] && path[n] != '/'))
			continue;
		if (!sep || sscanf(sep + 3, "%63s", t) != 1)
			snprintf(t, sizeof(t), "-");
		if (!path[n])	/* the mount's root itself */
			snprintf(buf, len, "%s", m);
		else
			snprintf(buf, len, "%s%s", strcmp(m, "/") ? m : "", path + n);
		snprintf(fstype, flen, "%s", t);
		found = true;
	}
	fclose(f);
	return found;
}
