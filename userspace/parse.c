// SPDX-License-Identifier: GPL-2.0
/* The meminspect line format (docs/format.md): parse once, validate strictly. */
#include "parse.h"
#include "table_priv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * debugfs reports size 0, so files are read to EOF; the cap turns a runaway
 * or wrong file (--dir pointed at a big log) into an error, not an OOM.
 */
#define MI_MAX_FILE (64u << 20)

static void set_err(struct mi_error *err, int sys_errno, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->sys_errno = sys_errno;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/*
 * Array p (cap elements of size bytes) with room for element n: p itself,
 * a bigger copy, or NULL on overflow/OOM (p is then still valid).
 */
void *mi_grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return p;
	if (ncap > ((size_t)-1) / size)
		return NULL;
	p = realloc(p, ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

/* [a-z0-9_]+ spelt out: islower() is a locale lookup, and a call per byte */
bool mi_valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9') && *s != '_')
			return false;
	return true;
}

/*
 * Field names compared where most pairs differ at the first byte: the
 * inline test spares a strcmp() call for them.  `top` parses a 47-field
 * header per process, and the duplicate check alone made 1081 calls (half
 * a parse's instructions; under the guests' TCG, most of top's extra time
 * over an smaps_rollup pass).
 */
static inline bool same_name(const char *a, const char *b)
{
	return a[0] == b[0] && strcmp(a, b) == 0;
}

bool mi_is_none(const char *v)
{
	return v && strcmp(v, "-") == 0;
}

int mi_parse_s64(const char *s, long long *out)
{
	char *end;
	long long v;

	/* strtoll alone would accept " 1", "+1" and "" (as 0) */
	if (!isdigit((unsigned char)s[*s == '-']))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int mi_parse_u64(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	/* also rejects '-': strtoull would silently negate */
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

bool mi_is_integer(const char *s)
{
	long long v;
	unsigned long long u;

	return mi_parse_s64(s, &v) == 0 || mi_parse_u64(s, &u) == 0;
}

void mi_table_free(struct mi_table *t)
{
	if (!t)
		return;
	if (t->owned)
		mi_table_free_owned(t);
	free(t->name);
	free(t->buf);
	free(t->fields);
	free(t->vals);
	free(t->lines);
	free(t->notes);
	free(t);
}

/* A byte of FNV-1a over the name: which bit of parse_header()'s filter */
static unsigned int name_bit(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 255;
}

/*
 * The last header line that passed parse_header()'s checks, as it was.  top
 * parses one mm table per process, each with the same 47-field header:
 * checking every name's characters and hashing it for the duplicate test
 * was most of a parse (9.6k of 25k instructions, callgrind); a line equal
 * to one that passed only needs splitting.
 */
static char *known_header;
static size_t known_len, known_nfields;

/*
 * Split the header line into t->fields; @check: check each name too (a
 * line equal to known_header was checked before).
 */
static bool split_header(struct mi_table *t, char *line, bool check,
			 struct mi_error *err)
{
	/*
	 * Names seen, one bit each of 256: a name whose bit is clear is new
	 * without a search.  The search of all earlier names was 1081
	 * comparisons for mm's 47 fields, most of a parse (top parses one
	 * header per process); with the filter a few names are searched.
	 */
	unsigned long long seen[4] = { 0 };
	size_t cap = 0;
	char *p = line, **nf;

	if (!check) {
		/* one allocation of the right size, not four of a growing one */
		t->fields = malloc(known_nfields * sizeof(*nf));
		cap = t->fields ? known_nfields : 0;
	}
	for (;;) {
		char *sp = strchr(p, ' ');

		if (sp)
			*sp = '\0';
		if (check && !mi_valid_name(p)) {
			set_err(err, 0, "%s:1: bad field name '%.40s' (want [a-z0-9_]+, single spaces)",
				t->name, p);
			return false;
		}
		unsigned int b = check ? name_bit(p) : 0;

		if (check && (seen[b / 64] & (1ULL << (b % 64)))) {
			for (size_t i = 0; i < t->nfields; i++) {
				if (same_name(t->fields[i], p)) {
					set_err(err, 0, "%s:1: duplicate field name '%s'", t->name, p);
					return false;
				}
			}
		}
		seen[b / 64] |= 1ULL << (b % 64);
		nf = mi_grow(t->fields, &cap, t->nfields, sizeof(*nf));
		if (!nf) {
			set_err(err, ENOMEM, "%s: out of memory", t->name);
			return false;
		}
		t->fields = nf;
		t->fields[t->nfields++] = p;
		if (!sp)
			return true;
		p = sp + 1;
	}
}

static bool parse_header(struct mi_table *t, char *line, struct mi_error *err)
{
	size_t len = strlen(line);
	char *copy;

	if (known_header && len == known_len && !memcmp(line, known_header, len))
		return split_header(t, line, false, err);
	if (!*line) {
		set_err(err, 0, "%s:1: empty header line", t->name);
		return false;
	}
	if (*line == '#') {
		set_err(err, 0, "%s:1: expected the header line, found a note", t->name);
		return false;
	}
	copy = malloc(len + 1);
	if (copy)
		memcpy(copy, line, len + 1);
	if (!split_header(t, line, true, err)) {
		free(copy);
		return false;
	}
	if (copy) {
		free(known_header);
		known_header = copy;
		known_len = len;
		known_nfields = t->nfields;
	}
	return true;
}

/* Room for one more record: vals and lines grow together, by whole rows. */
bool mi_grow_records(struct mi_table *t)
{
	size_t n = t->nfields, ncap = t->rec_cap ? t->rec_cap * 2 : 16;
	char **nv;
	unsigned int *nl;

	if (t->nrec < t->rec_cap)
		return true;
	if (ncap > ((size_t)-1) / n / sizeof(*nv))
		return false;
	nv = realloc(t->vals, ncap * n * sizeof(*nv));
	if (!nv)
		return false;
	t->vals = nv;
	nl = realloc(t->lines, ncap * sizeof(*nl));
	if (!nl)
		return false;
	t->lines = nl;
	t->rec_cap = ncap;
	return true;
}

static bool parse_record(struct mi_table *t, char *line, unsigned int lineno,
			 struct mi_error *err)
{
	size_t n = t->nfields;
	char **row;

	if (!mi_grow_records(t)) {
		set_err(err, ENOMEM, "%s: out of memory", t->name);
		return false;
	}
	row = t->vals + t->nrec * n;
	for (size_t i = 0; i < n; i++) {
		char *sp = i + 1 < n ? strchr(line, ' ') : NULL;

		if (i + 1 < n && !sp) {
			set_err(err, 0, "%s:%u: record has %zu value%s, header has %zu fields",
				t->name, lineno, i + 1, i ? "s" : "", n);
			return false;
		}
		if (sp)
			*sp = '\0';
		if (!*line) {
			set_err(err, 0, "%s:%u: empty value for field '%s' (use '-' for no value)",
				t->name, lineno, t->fields[i]);
			return false;
		}
		row[i] = line;
		if (sp)
			line = sp + 1;
	}
	t->lines[t->nrec++] = lineno;
	return true;
}

/* Takes ownership of buf (len bytes plus room for a terminating NUL). */
static struct mi_table *parse_owned(char *buf, size_t len, const char *name,
				    struct mi_error *err)
{
	struct mi_table *t = calloc(1, sizeof(*t));
	unsigned int lineno = 0;
	char *p;

	if (!t || !(t->name = strdup(name))) {
		free(t);
		free(buf);
		set_err(err, ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	t->buf = buf;
	buf[len] = '\0';
	if (len == 0) {
		set_err(err, 0, "%s: empty file, expected a header line", name);
		goto fail;
	}
	if (memchr(buf, '\0', len)) {
		set_err(err, 0, "%s: NUL byte in file, not a meminspect table", name);
		goto fail;
	}
	/* The format promises a final newline; its absence means a cut-off read. */
	if (buf[len - 1] != '\n') {
		set_err(err, 0, "%s: no newline at end of file (truncated?)", name);
		goto fail;
	}
	for (p = buf; *p; ) {
		char *line = p, *nl = strchr(p, '\n');

		*nl = '\0';
		p = nl + 1;
		lineno++;
		if (lineno == 1) {
			if (!parse_header(t, line, err))
				goto fail;
		} else if (*line == '#') {
			char **nn = mi_grow(t->notes, &t->note_cap, t->nnotes, sizeof(*nn));

			if (!nn) {
				set_err(err, ENOMEM, "%s: out of memory", name);
				goto fail;
			}
			t->notes = nn;
			line++;
			t->notes[t->nnotes++] = line + (*line == ' ');
		} else if (!parse_record(t, line, lineno, err)) {
			goto fail;
		}
	}
	return t;
fail:
	mi_table_free(t);
	return NULL;
}

struct mi_table *mi_table_parse(const char *text, size_t len, const char *name,
				struct mi_error *err)
{
	char *buf;

	if (len > MI_MAX_FILE) {
		set_err(err, 0, "%s: larger than %u MiB, not a meminspect table",
			name, MI_MAX_FILE >> 20);
		return NULL;
	}
	buf = malloc(len + 1);
	if (!buf) {
		set_err(err, ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	memcpy(buf, text, len);
	return parse_owned(buf, len, name, err);
}

struct mi_table *mi_table_read_fd(int fd, const char *name, struct mi_error *err)
{
	size_t len = 0, cap = 4096;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (!buf || len + 1 >= cap) {
			char *nb;

			if (buf)
				cap *= 2;
			if (cap > MI_MAX_FILE + 1) {
				set_err(err, 0, "%s: larger than %u MiB, not a meminspect table",
					name, MI_MAX_FILE >> 20);
				goto fail;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				set_err(err, ENOMEM, "%s: out of memory", name);
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			set_err(err, errno, "%s: %s", name, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return parse_owned(buf, len, name, err);
fail:
	free(buf);
	return NULL;
}

struct mi_table *mi_table_read(const char *path, struct mi_error *err)
{
	struct mi_table *t;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		set_err(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	t = mi_table_read_fd(fd, path, err);
	close(fd);
	return t;
}

const char *mi_table_name(const struct mi_table *t)
{
	return t->name;
}

size_t mi_nfields(const struct mi_table *t)
{
	return t->nfields;
}

const char *mi_field_name(const struct mi_table *t, size_t col)
{
	return col < t->nfields ? t->fields[col] : NULL;
}

/*
 * Where each name was found last, by the name's address: callers look the
 * same few names up in table after table (top: 15 lookups in each
 * process's 47-field mm table, a linear search each, a fifth of a parse).
 * A hint is only a guess, checked against the table before it is used, and
 * only in parsed tables, whose names are unique (parse_header()).
 */
#define NAME_HINTS 64
static struct {
	const char *name;
	size_t col;
} name_hint[NAME_HINTS];

int mi_field_index(const struct mi_table *t, const char *name)
{
	size_t h = ((size_t)name >> 3) % NAME_HINTS;

	if (t->buf && name_hint[h].name == name && name_hint[h].col < t->nfields &&
	    same_name(t->fields[name_hint[h].col], name))
		return (int)name_hint[h].col;
	for (size_t i = 0; i < t->nfields; i++) {
		if (same_name(t->fields[i], name)) {
			name_hint[h].name = name;
			name_hint[h].col = i;
			return (int)i;
		}
	}
	return -1;
}

size_t mi_nrecords(const struct mi_table *t)
{
	return t->nrec;
}

const char *mi_value(const struct mi_table *t, size_t rec, size_t col)
{
	if (rec >= t->nrec || col >= t->nfields)
		return NULL;
	return t->vals[rec * t->nfields + col];
}

const char *mi_get(const struct mi_table *t, size_t rec, const char *name)
{
	int col = mi_field_index(t, name);

	return col < 0 ? NULL : mi_value(t, rec, (size_t)col);
}

unsigned int mi_record_line(const struct mi_table *t, size_t rec)
{
	return rec < t->nrec ? t->lines[rec] : 0;
}

long mi_find(const struct mi_table *t, const char *name, const char *value)
{
	int col = mi_field_index(t, name);

	if (col < 0)
		return -1;
	for (size_t r = 0; r < t->nrec; r++)
		if (strcmp(mi_value(t, r, (size_t)col), value) == 0)
			return (long)r;
	return -1;
}

size_t mi_nnotes(const struct mi_table *t)
{
	return t->nnotes;
}

const char *mi_note(const struct mi_table *t, size_t i)
{
	return i < t->nnotes ? t->notes[i] : NULL;
}

bool mi_require_fields(const struct mi_table *t, struct mi_error *err,
		       const char *const *names)
{
	for (; *names; names++) {
		if (mi_field_index(t, *names) < 0) {
			set_err(err, 0, "%s:1: missing field '%s'", t->name, *names);
			return false;
		}
	}
	return true;
}
