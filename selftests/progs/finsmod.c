// SPDX-License-Identifier: GPL-2.0
/*
 * finsmod FILE [PARAMS...]: load a module with one finit_module() call,
 * as kmod's insmod does, and exit 1 with the error if the kernel refuses.
 * busybox's insmod is not usable for an init sweep: when finit_module()
 * fails it tries again with init_module() (modutils.c, bb_init_module),
 * so every failure injected into an init is followed by a second init
 * that succeeds (test_fault_module.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[1024] = "";
	size_t len = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: finsmod FILE [PARAM=VALUE...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		int n = snprintf(params + len, sizeof(params) - len, "%s%s",
				 len ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - len) {
			fprintf(stderr, "finsmod: parameters too long\n");
			return 2;
		}
		len += (size_t)n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "finsmod: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		fprintf(stderr, "finsmod: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
