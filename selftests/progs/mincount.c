// SPDX-License-Identifier: GPL-2.0
/*
 * mincount FILE...: for each FILE, the page-cache pages the kernel reports for it through
 * mincore(), the other way the kernel answers "which pages of this file are cached", and
 * the name /proc/self/maps gives its mapping.  One line a file:
 *   DEV INO RESIDENT PAGES MAPS-PATH
 * DEV as /proc/PID/maps prints it (hex major:minor), INO decimal, RESIDENT the pages
 * mincore() says are resident, PAGES the file's size in pages.  An empty file: "0 0 -".
 * test_files.sh compares RESIDENT with the files table's pages, in one bracket
 * (mincount, files, mincount), and MAPS-PATH with the reader's path.
 *
 * mincount -w FILE...: the same, then "ready", and the mappings kept until a signal ends
 * the process: a mapping whose /proc/PID/maps line another process reads
 * (test_cgroups_container.sh: a file of an overlay, mapped inside a container).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* the path of the mapping at addr, from /proc/self/maps */
static void maps_path(unsigned long addr, char *out, size_t len)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(out, len, "-");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		int off = 0;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || !off)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(out, len, "%s", line + off);
		break;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	int i, rc = 0, hold = argc > 1 && !strcmp(argv[1], "-w");

	for (i = 1 + hold; i < argc; i++) {
		unsigned long pages, resident = 0, j;
		unsigned char *vec;
		char path[4096];
		struct stat st;
		void *p;
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || fstat(fd, &st)) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		pages = (st.st_size + psz - 1) / psz;
		if (!pages) {
			printf("%02x:%02x %lu 0 0 -\n", major(st.st_dev), minor(st.st_dev),
			       (unsigned long)st.st_ino);
			close(fd);
			continue;
		}
		p = mmap(NULL, pages * psz, PROT_READ, MAP_SHARED, fd, 0);
		vec = malloc(pages);
		if (p == MAP_FAILED || !vec || mincore(p, pages * psz, vec)) {
			perror(argv[i]);
			rc = 1;
			close(fd);
			continue;
		}
		for (j = 0; j < pages; j++)
			resident += vec[j] & 1;
		maps_path((unsigned long)p, path, sizeof(path));
		printf("%02x:%02x %lu %lu %lu %s\n", major(st.st_dev), minor(st.st_dev),
		       (unsigned long)st.st_ino, resident, pages, path);
		if (!hold)
			munmap(p, pages * psz);
		free(vec);
		close(fd);
	}
	if (hold) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return rc;
}
