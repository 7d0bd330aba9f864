// SPDX-License-Identifier: GPL-2.0
/*
 * A PSI file, "some avg10=0.12 avg60=0.00 avg300=0.00 total=1234" and the
 * same for "full" (psi_show() in kernel/sched/psi.c): avg10 to centipercent
 * exactly (the kernel prints "%lu.%02lu"), total as printed (us).
 */
#include "parse.h"
#include "psi_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "12.34" -> 1234; the kernel's two decimals, nothing else */
static int centi(const char *s, unsigned long long *v)
{
	char whole[32];
	const char *dot = strchr(s, '.');
	unsigned long long w, f;

	if (!dot || (size_t)(dot - s) >= sizeof(whole) || strlen(dot + 1) != 2)
		return -EINVAL;
	memcpy(whole, s, (size_t)(dot - s));
	whole[dot - s] = '\0';
	if (mi_parse_u64(whole, &w) || mi_parse_u64(dot + 1, &f) || w > 100)
		return -EINVAL;
	*v = w * 100 + f;
	return 0;
}

static int parse_line(char *line, struct mi_psi_line *l)
{
	char *save = NULL, *tok;
	bool avg = false, total = false;

	strtok_r(line, " \n", &save);	/* "some" / "full" */
	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (!strncmp(tok, "avg10=", 6)) {
			if (centi(tok + 6, &l->avg10))
				return -EINVAL;
			avg = true;
		} else if (!strncmp(tok, "total=", 6)) {
			if (mi_parse_u64(tok + 6, &l->total))
				return -EINVAL;
			total = true;
		}
	}
	if (!avg || !total)
		return -EINVAL;
	l->have = true;
	return 0;
}

int mi_psi_read(const char *path, struct mi_psi_rec *r)
{
	char line[256];
	FILE *f = fopen(path, "re");
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "some ", 5))
			err = parse_line(line, &r->some);
		else if (!strncmp(line, "full ", 5))
			err = parse_line(line, &r->full);
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (!err && !r->some.have)
		err = -EINVAL;
	return err;
}
