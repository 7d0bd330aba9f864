// SPDX-License-Identifier: GPL-2.0
/*
 * colsum: the column sums of one of the module's tables (docs/format.md:
 * a header line of field names, then one record per line, "#" notes),
 * for the 65530-VMA checks of test_procmem.sh: busybox awk took 31 s of
 * a TCG guest to add up 65530 vmas rows, this takes one.
 *
 *   colsum FILE
 *
 * Prints "rows N", then "NAME SUM" for every column whose values are all
 * decimal integers, in header order.  The last field may hold spaces (a
 * name): it is never summed.  Exit 0; 1 if FILE cannot be read or a
 * record has fewer fields than the header; 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 128

static char *names[MAX_COLS];
static long long sums[MAX_COLS];
static bool numeric[MAX_COLS];

/* Split @line at runs of spaces into at most @max fields; their count. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *save, *tok;

	for (tok = strtok_r(line, " \n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	return n;
}

static bool is_int(const char *s, long long *v)
{
	char *end;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return false;
	*v = strtoll(s, &end, 10);
	return *end == '\0';
}

int main(int argc, char **argv)
{
	char *line = NULL, *f[MAX_COLS];
	size_t cap = 0;
	long long rows = 0, v;
	int ncols = 0, n, i;
	FILE *fp;

	if (argc != 2) {
		fprintf(stderr, "usage: colsum FILE\n");
		return 2;
	}
	fp = fopen(argv[1], "r");
	if (!fp) {
		perror(argv[1]);
		return 1;
	}
	while (getline(&line, &cap, fp) > 0) {
		if (line[0] == '#')
			continue;
		if (!ncols) {
			ncols = split(line, f, MAX_COLS);
			for (i = 0; i < ncols; i++) {
				names[i] = strdup(f[i]);
				numeric[i] = i < ncols - 1;
			}
			continue;
		}
		n = split(line, f, MAX_COLS);
		if (n < ncols) {
			fprintf(stderr, "colsum: record %lld has %d fields, the header %d\n",
				rows + 1, n, ncols);
			return 1;
		}
		rows++;
		for (i = 0; i < ncols - 1; i++) {
			if (!numeric[i])
				continue;
			if (is_int(f[i], &v))
				sums[i] += v;
			else
				numeric[i] = false;
		}
	}
	fclose(fp);
	printf("rows %lld\n", rows);
	for (i = 0; i < ncols; i++)
		if (numeric[i])
			printf("%s %lld\n", names[i], sums[i]);
	return 0;
}
