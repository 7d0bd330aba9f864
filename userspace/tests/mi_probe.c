// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver: exposes one parse.c/build.c/output.c call per invocation so that
 * run.sh can assert on its exact output. Exit 0 on success, 1 on a
 * reported error, 2 on bad usage of the probe itself.
 */
#include "output.h"
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fields: a|b|c, then "LINE: v1|v2|v3" per record, then "note: TEXT" */
static int dump(const struct mi_table *t)
{
	printf("fields:");
	for (size_t c = 0; c < mi_nfields(t); c++)
		printf("%s%s", c ? "|" : " ", mi_field_name(t, c));
	printf("\n");
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		printf("%u:", mi_record_line(t, r));
		for (size_t c = 0; c < mi_nfields(t); c++)
			printf("%s%s", c ? "|" : " ", mi_value(t, r, c));
		printf("\n");
	}
	for (size_t i = 0; i < mi_nnotes(t); i++)
		printf("note: %s\n", mi_note(t, i));
	return 0;
}

static int with_table(const char *path, const char *what)
{
	struct mi_error err;
	struct mi_table *t = mi_table_read(path, &err);
	struct out_opts o = { .human = !strcmp(what, "table-human") };
	struct json j;
	int rc = 0;

	if (!t) {
		fprintf(stderr, "%s (errno %d)\n", err.msg, err.sys_errno);
		return 1;
	}
	if (!strcmp(what, "parse")) {
		rc = dump(t);
	} else if (!strcmp(what, "json")) {
		json_init(&j, stdout);
		json_records(&j, t);
		json_finish(&j);
	} else {
		rc = out_table(stdout, t, &o) ? 1 : 0;
	}
	mi_table_free(t);
	return rc;
}

static int integer(const char *kind, const char *s)
{
	long long v;
	unsigned long long u;
	int rc = !strcmp(kind, "s64") ? mi_parse_s64(s, &v) : mi_parse_u64(s, &u);

	if (rc) {
		printf("%s\n", rc == -ERANGE ? "ERANGE" : rc == -EINVAL ? "EINVAL" : "?");
		return 1;
	}
	if (!strcmp(kind, "s64"))
		printf("%lld\n", v);
	else
		printf("%llu\n", u);
	return 0;
}

/* descending by the numeric field "n" */
static int by_n(const struct mi_table *t, size_t a, size_t b, const void *arg)
{
	long va = strtol(mi_value(t, a, 1), NULL, 10), vb = strtol(mi_value(t, b, 1), NULL, 10);

	(void)arg;
	return va == vb ? 0 : va < vb ? 1 : -1;
}

/*
 * build KEY=N ...: a table "key n text", one record per argument (text:
 * "row I"), sorted by n descending, the first value of each row decorated
 * with +I, then dumped; "bad-value" tries a value the format cannot hold
 * and prints the sticky error.
 */
static int build(int argc, char **argv)
{
	static const char *const fields[] = { "key", "n", "text", NULL };
	struct mi_error e;
	struct mi_table *t = mi_table_new("built", fields, &e);
	int rc;

	if (!t)
		return 1;
	for (int i = 0; i < argc; i++) {
		long r = mi_table_add_record(t);
		char *eq = strchr(argv[i], '=');

		if (!strcmp(argv[i], "bad-value")) {
			mi_table_set(t, (size_t)r, 0, "a b");
			continue;
		}
		if (!eq)
			return 2;
		*eq = '\0';
		mi_table_set(t, (size_t)r, 0, argv[i]);
		mi_table_set(t, (size_t)r, 1, eq + 1);
		mi_table_setf(t, (size_t)r, 2, "row %d", i);
	}
	mi_table_add_note(t, "%d rows", argc);
	if (mi_table_error(t)) {
		printf("error %d\n", mi_table_error(t));
		mi_table_free(t);
		return 1;
	}
	mi_table_sort(t, by_n, NULL);
	for (size_t r = 0; r < mi_nrecords(t); r++)
		mi_table_decorate(t, r, 1, (long long)r);
	rc = dump(t);
	mi_table_free(t);
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	char buf[256];
	const char *unit;

	if (argc == 3 && (!strcmp(cmd, "parse") || !strcmp(cmd, "json") ||
			  !strcmp(cmd, "table") || !strcmp(cmd, "table-human")))
		return with_table(argv[2], cmd);
	if (argc == 3 && (!strcmp(cmd, "s64") || !strcmp(cmd, "u64")))
		return integer(cmd, argv[2]);
	if (argc == 3 && !strcmp(cmd, "json-string")) {
		json_write_string(stdout, argv[2]);
		putchar('\n');
		return 0;
	}
	if (argc == 3 && !strcmp(cmd, "prom-label")) {
		prom_write_label_value(stdout, argv[2]);
		putchar('\n');
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(cmd, "prom-name")) {
		size_t len = argc == 5 ? strtoul(argv[4], NULL, 10) : sizeof(buf);

		if (len > sizeof(buf) || !prom_metric_name(buf, len, argv[2], argv[3])) {
			printf("too long\n");
			return 1;
		}
		printf("%s\n", buf);
		return 0;
	}
	if (argc == 4 && !strcmp(cmd, "human")) {
		out_human(buf, sizeof(buf), &unit, strtoll(argv[2], NULL, 10),
			  strtoull(argv[3], NULL, 10));
		printf("%s %s\n", buf, unit);
		return 0;
	}
	if (argc >= 2 && !strcmp(cmd, "build"))
		return build(argc - 2, argv + 2);
	fprintf(stderr, "usage: mi_probe parse|json|table|table-human FILE | s64|u64 STR |\n"
		"       json-string STR | prom-label STR | prom-name PREFIX NAME [BUFLEN] |\n"
		"       human VALUE UNIT_BYTES | build KEY=N... | build bad-value\n");
	return 2;
}
