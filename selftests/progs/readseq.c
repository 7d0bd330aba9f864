// SPDX-License-Identifier: GPL-2.0
/*
 * readseq OUTPREFIX FILE...: read each FILE whole, one after the other, in one process, then
 * write them to OUTPREFIX.0, OUTPREFIX.1, ...
 *
 * Why: tests bracket a meminspect file between two reads of its kernel counterpart
 * (/proc/slabinfo, SLABS, /proc/slabinfo). With one `cat` per read, the shell's fork, exec and
 * exit between the reads allocate and free maple nodes, vm_area_structs, task structs...: a
 * cache can move and come back, looking idle in the bracket while the middle read saw it busy
 * (strict 6.1 lane: maple_node 20 active in slabs, 10 in both slabinfo reads). Here all files
 * are opened first and read back to back into memory allocated beforehand, so nothing but the
 * reads themselves happens between them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES 8
#define BUF_SIZE (2 << 20)	/* the largest file read so: slabs with 2000 more caches, ~300 kB */

int main(int argc, char **argv)
{
	static char *buf[MAX_FILES];
	static size_t len[MAX_FILES];
	int fd[MAX_FILES], i, n = argc - 2;
	char path[4096];

	if (n < 1 || n > MAX_FILES) {
		fprintf(stderr, "usage: readseq OUTPREFIX FILE... (1 to %d files)\n", MAX_FILES);
		return 2;
	}
	for (i = 0; i < n; i++) {
		fd[i] = open(argv[i + 2], O_RDONLY);
		buf[i] = malloc(BUF_SIZE);
		if (fd[i] < 0 || !buf[i]) {
			perror(argv[i + 2]);
			return 1;
		}
		memset(buf[i], 0, BUF_SIZE);	/* fault the pages in now, not during the reads */
	}
	for (i = 0; i < n; i++) {
		ssize_t r;

		while ((r = read(fd[i], buf[i] + len[i], BUF_SIZE - len[i])) > 0)
			len[i] += r;
		if (r < 0 || len[i] == BUF_SIZE) {
			fprintf(stderr, "readseq: %s: %s\n", argv[i + 2], r < 0 ? "read error" : "too big");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s.%d", argv[1], i);
		f = fopen(path, "w");
		if (!f || fwrite(buf[i], 1, len[i], f) != len[i] || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
