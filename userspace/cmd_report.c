// SPDX-License-Identifier: GPL-2.0
/*
 * report and export: every table the module's capabilities file lists, as
 * tables/JSON (report) or as Prometheus metrics (export; the mapping of
 * each file to metrics is export.c's).
 */
#include "cli.h"
#include "export.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * capabilities rows that name a directory of tables (docs/fault.md): the
 * tables in it that report shows and export exports, under the row's name.
 * The module lists a directory with kind "mechanism", not "file" (every
 * file row is one table, and test_capabilities.sh holds it to that).
 */
static const struct dir_row {
	const char *name;
	const char *report[4];	/* NULL-terminated */
	const char *export[3];
} dir_rows[] = {
	{ "fault", { "fault/settings", "fault/stats", "fault/log" }, { "fault/stats" } },
	{ "latency", { "latency/histograms", "latency/page_alloc", "latency/stallers" },
	  { "latency/histograms", "latency/page_alloc" } },
	{ "allocs", { "allocs/table", "allocs/outstanding" }, { "allocs/table" } },
};

/* The tables behind a file row: the file itself, or a directory's tables. */
static const char *const *row_files(const char *name, bool export, const char *one[2])
{
	for (size_t i = 0; i < sizeof(dir_rows) / sizeof(dir_rows[0]); i++)
		if (!strcmp(dir_rows[i].name, name))
			return export ? dir_rows[i].export : dir_rows[i].report;
	one[0] = name;
	one[1] = NULL;
	return one;
}

/* A row report and export read: a file, or a directory's mechanism row. */
static bool is_table_row(const struct mi_table *caps, size_t r)
{
	if (view_is_file_row(caps, r))
		return true;
	if (strcmp(mi_get(caps, r, "kind"), "mechanism"))
		return false;
	for (size_t i = 0; i < sizeof(dir_rows) / sizeof(dir_rows[0]); i++)
		if (!strcmp(dir_rows[i].name, mi_get(caps, r, "name")))
			return true;
	return false;
}

/*
 * report's and export's end: the files left out of this round were named
 * on stderr as they failed; count them there too. ST_PARTIAL whatever
 * each failure's own status was: the rest was printed, and under --watch
 * the next round is tried (a file the module is rebuilding, one that
 * lockdown refuses, must not end the exporter).
 */
static int partial(const char *cmd, size_t failed, size_t tried)
{
	if (!failed)
		return ST_OK;
	fprintf(stderr, "meminspect: %s: %zu of %zu files could not be read (named above); the others were %s\n",
		cmd, failed, tried, strcmp(cmd, "export") ? "printed" : "exported");
	return ST_PARTIAL;
}

/* Every table row of capabilities; a broken file is reported and skipped. */
int cmd_report(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *caps, *t;
	struct json j;
	size_t failed = 0, tried = 0;
	int st = view_load(c, "capabilities", &caps);

	(void)o;

	if (st)
		return st;
	json_init(&j, stdout);
	if (c->json)
		json_begin_object(&j);
	for (size_t r = 0; r < mi_nrecords(caps); r++) {
		const char *name = mi_get(caps, r, "name"), *one[2];
		const char *const *files = row_files(name, false, one);
		bool dir = files != one;

		if (!is_table_row(caps, r))
			continue;
		if (strcmp(mi_get(caps, r, "available"), "yes")) {
			if (!c->json)
				printf("== %s == (not available: %s)\n\n", name, mi_get(caps, r, "detail"));
			continue;
		}
		/* a directory: {"fault": {"settings": [...], "stats": [...], ...}} */
		if (c->json && dir) {
			json_key(&j, name);
			json_begin_object(&j);
		}
		for (const char *const *fp = files; *fp; fp++) {
			const char *file = *fp;

			tried++;
			st = view_load(c, file, &t);
			if (st) {
				failed++;
				continue;
			}
			if (c->json) {
				json_key(&j, dir ? strrchr(file, '/') + 1 : file);
				view_json(&j, t, file);
			} else {
				printf("== %s ==\n", file);
				failed += view_print(c, t) != ST_OK;
				putchar('\n');
			}
			mi_table_free(t);
		}
		if (c->json && dir)
			json_end_object(&j);
	}
	if (c->json) {
		json_end_object(&j);
		json_finish(&j);
	}
	mi_table_free(caps);
	return partial("report", failed, tried);
}

static int export_to(const struct mi_cli *c, const struct export_opts *x, FILE *f)
{
	struct prom_out o = {
		.f = f, .per_pid = x->per_pid, .cgroup_series = x->cgroup_series };
	const char *info[] = { "reader_version", MI_VERSION, "module_version", "unknown", NULL };
	struct mi_table *caps = NULL, *t;
	char mod[64];
	const char **files = NULL, **ok = NULL;
	size_t nfiles = 0, failed = 0, tried = 0;
	struct json j;
	int st = view_load(c, "capabilities", &caps), worst = st;

	if (c->json) {
		json_init(&j, f);
		json_begin_array(&j);
		o.j = &j;
	}
	if (mi_module_version(&c->acc, mod, sizeof(mod)))
		info[3] = mod;
	prom_family(&o, "meminspect_up", "gauge",
		    "1 if the module's files could be read, 0 if not (see the reader's stderr)");
	prom_sample(&o, "meminspect_up", NULL, st ? "0" : "1");
	prom_family(&o, "meminspect_info", "gauge", "versions of the reader and the loaded module");
	prom_sample(&o, "meminspect_info", info, "1");
	if (st)
		goto out;
	files = calloc(mi_nrecords(caps) + 1, sizeof(*files));
	ok = calloc(mi_nrecords(caps) + 1, sizeof(*ok));
	if (!files || !ok) {
		fprintf(stderr, "meminspect: out of memory\n");
		worst = ST_FORMAT;
		goto out;
	}
	for (size_t r = 0; r < mi_nrecords(caps); r++) {
		const char *name = mi_get(caps, r, "name"), *one[2];
		int err;

		if (!is_table_row(caps, r) || strcmp(mi_get(caps, r, "available"), "yes"))
			continue;
		files[nfiles] = name;
		ok[nfiles] = "1";
		/* a directory row is ok when all its exported tables are */
		for (const char *const *fp = row_files(name, true, one); *fp; fp++) {
			const char *file = *fp;

			tried++;
			t = caps;
			if (strcmp(file, "capabilities")) {
				st = view_load(c, file, &t);
				if (st) {
					failed++;
					ok[nfiles] = "0";
					continue;
				}
			}
			err = prom_export_table(&o, file, t);
			if (err) {
				if (err == -ENOMEM)
					fprintf(stderr, "meminspect: out of memory\n");
				failed++;
				ok[nfiles] = "0";
			}
			if (t != caps)
				mi_table_free(t);
		}
		nfiles++;
	}
	prom_family(&o, "meminspect_file_ok", "gauge",
		    "1 if the file (available on this kernel) was read and exported");
	for (size_t i = 0; i < nfiles; i++) {
		const char *lab[] = { "file", files[i], NULL };

		prom_sample(&o, "meminspect_file_ok", lab, ok[i]);
	}
out:
	if (c->json) {
		json_end_array(&j);
		json_finish(&j);
	}
	prom_out_release(&o);
	free(files);
	free(ok);
	mi_table_free(caps);
	return worst ? worst : partial("export", failed, tried);
}

/*
 * node_exporter's textfile collector reads every DIR/NAME.prom whenever it is
 * scraped: write a hidden temporary file in DIR and rename it over
 * meminspect.prom, so a scrape sees the old file or the new one, never half
 * of one. The file is written even when the module cannot be read:
 * meminspect_up 0 says so, where a stale file would say nothing.
 */
static int export_textfile(const struct mi_cli *c, const struct export_opts *x)
{
	size_t len = strlen(x->textfile_dir) + 32;
	char *tmp = malloc(len), *dst = malloc(len);
	int fd = -1, st = ST_FORMAT, werr = 0;
	FILE *f;

	if (!tmp || !dst) {
		fprintf(stderr, "meminspect: out of memory\n");
		goto out;
	}
	snprintf(dst, len, "%s/meminspect.prom", x->textfile_dir);
	snprintf(tmp, len, "%s/.meminspect.prom.XXXXXX", x->textfile_dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "meminspect: --textfile-dir %s: cannot create a file there: %s\n",
			x->textfile_dir, strerror(errno));
		st = errno == EACCES || errno == EPERM || errno == EROFS ? ST_PERM : ST_USAGE;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0644)) {
		werr = errno;
		if (f)
			fclose(f);
		else
			close(fd);
	} else {
		st = export_to(c, x, f);
		if (fflush(f) || ferror(f) || fsync(fd))
			werr = errno ? errno : EIO;
		if (fclose(f) && !werr)
			werr = errno;
	}
	if (!werr && rename(tmp, dst))
		werr = errno;
	if (werr) {
		fprintf(stderr, "meminspect: writing %s: %s\n", dst, strerror(werr));
		unlink(tmp);
		st = ST_FORMAT;
	}
out:
	free(tmp);
	free(dst);
	return st;
}

int cmd_export(const struct mi_cli *c, struct cmd_opts *o)
{
	if (o->exp.textfile_dir)
		return export_textfile(c, &o->exp);
	return export_to(c, &o->exp, stdout);
}
