/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A PSI file as the kernel prints it (psi_show(): /proc/pressure/memory, a
 * cgroup v2 directory's memory.pressure): pressure --watch --cgroup reads
 * the cgroup's itself, the module has no view of cgroups.
 */
#ifndef MI_PSI_FILE_H
#define MI_PSI_FILE_H

#include <stdbool.h>

/* "some" and "full": avg10 in centipercent (as the module's), total in us */
struct mi_psi_line {
	bool have;
	unsigned long long avg10;
	unsigned long long total;
};

struct mi_psi_rec {
	struct mi_psi_line some, full;
};

/*
 * Reads PATH: 0, or -errno (-EINVAL when a "some" line is missing or a
 * field does not parse; "full" is optional, as on kernels before 5.x's cpu
 * full).
 */
int mi_psi_read(const char *path, struct mi_psi_rec *r);

#endif
