// SPDX-License-Identifier: GPL-2.0
/*
 * where's first screen: what holds the machine's memory, largest first, each
 * figure with its holders. The figures are the census classes (pages) and
 * summary's unaccounted, grouped as a user asks about them (anonymous memory,
 * page cache, shmem, slab, free, ...); the holders come from the module's
 * other files when it has them (a capabilities file row says so): the
 * processes (procs), the files (files), the caches (slabs), the memory
 * cgroups (cgroups, dying ones as a figure of their own, each with the file
 * and slab cache that keep it: files, cgroup_slabs) and the call sites
 * (allocs/table, when armed). A holder file the module lacks leaves its
 * holders '-' and a note naming it; nothing here is required but the census.
 */
#include "cli.h"
#include "mountinfo.h"
#include "parse.h"
#include "status.h"
#include "views.h"
#include "where_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RANK_HOLDERS	3	/* holders named per figure */
#define RANK_TEXT	2048

static const char *const rank_fields[] = { "rank", "figure", "kb", "pct", "holders", NULL };

struct rank_src;

/* one figure: census classes summed (NULL-ended), or summary's unaccounted */
struct rank_figure {
	const char *name;
	const char *classes[4];
	void (*holders)(const struct rank_src *src, char *buf, size_t len);
};

/* the module's optional files, each NULL where it has none */
struct rank_src {
	struct mi_table *procs, *files, *slabs, *cgroups, *cgslabs, *allocs;
	bool *files_shmem;	/* per files record, from files_resolve() */
	long long page_kb;
};

/* a holder candidate: its name and size, for the top RANK_HOLDERS */
struct rank_holder {
	char name[160];
	long long kb;
};

static void top_insert(struct rank_holder *top, const char *name, long long kb)
{
	int i = RANK_HOLDERS - 1;

	if (kb <= 0 || kb <= top[i].kb)
		return;
	while (i > 0 && top[i - 1].kb < kb) {
		top[i] = top[i - 1];
		i--;
	}
	snprintf(top[i].name, sizeof(top[i].name), "%s", name);
	top[i].kb = kb;
}

/* "name (N kB), ..." of the non-empty candidates; "-" for none */
static void top_text(const struct rank_holder *top, const char *prefix, char *buf, size_t len)
{
	size_t o = strlen(buf);

	for (int i = 0; i < RANK_HOLDERS && top[i].kb > 0 && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s%s (%lld kB)", o ? ", " : "",
			      i ? "" : prefix, top[i].name, top[i].kb);
}

/* the top of table T by the kB that kb_of() gives each record, named by name_of() */
static void top_of(const struct mi_table *t, long long (*kb_of)(const struct mi_table *, size_t,
								 const struct rank_src *),
		   void (*name_of)(const struct mi_table *, size_t, char *, size_t),
		   const struct rank_src *src, const char *prefix, char *buf, size_t len)
{
	struct rank_holder top[RANK_HOLDERS] = { 0 };
	char name[160];

	if (!t)
		return;
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		long long kb = kb_of(t, r, src);

		if (kb <= 0)
			continue;
		name_of(t, r, name, sizeof(name));
		top_insert(top, name, kb);
	}
	top_text(top, prefix, buf, len);
}

static long long num(const struct mi_table *t, size_t r, const char *field)
{
	long long v;

	return mi_parse_s64(mi_get(t, r, field), &v) ? -1 : v;
}

/* a byte count of record r in kB; -1 where it is not a number */
static long long bytes_kb(const struct mi_table *t, size_t r, const char *field)
{
	long long b = num(t, r, field);

	return b < 0 ? -1 : b / 1024;
}

/* ---- the holders' sizes and names, per file ---- */

static long long procs_anon_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	(void)s;
	return num(t, r, "anonymous_kb");
}

static void procs_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s[%s]", mi_get(t, r, "comm"), mi_get(t, r, "pid"));
}

static long long files_pages_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	long long p = num(t, r, "pages");

	return p < 0 ? -1 : p * s->page_kb;
}

static long long files_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	return s->files_shmem[r] ? 0 : files_pages_kb(t, r, s);
}

static long long files_shmem_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	return s->files_shmem[r] ? files_pages_kb(t, r, s) : 0;
}

static void files_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", mi_get(t, r, "path"));
}

/*
 * One look at /proc/self/mountinfo per files record, before any ranking:
 * s->files becomes a copy whose path is the one /proc/PID/maps prints (an
 * inode without a name, a block device's or an unlinked file's, "inode
 * dev:ino"), and the record is shmem's (its pages the census's shmem, not
 * file) when its mount is a tmpfs, devtmpfs or rootfs (an initramfs root,
 * tmpfs wherever the kernel has tmpfs: init/do_mounts.c). An inode on no
 * listed mount is on the kernel's internal shm mount when its name says so
 * (memfd_create(), SysV shm), else page cache (a file system lazily
 * unmounted). False: out of memory.
 */
static bool files_resolve(struct rank_src *s)
{
	struct mi_table *t = s->files, *v;
	struct mi_error e;
	int pc = mi_field_index(t, "path");

	v = mi_table_new_like(t, "files", &e);
	s->files_shmem = calloc(mi_nrecords(t) + 1, sizeof(*s->files_shmem));
	if (!v || !s->files_shmem || pc < 0) {
		mi_table_free(v);
		return false;
	}
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *path = mi_get(t, r, "path"), *dev = mi_get(t, r, "dev");
		char full[8192], fstype[64];

		mi_table_copy_record(v, t, r);
		if (mi_is_none(path)) {
			mi_table_setf(v, r, (size_t)pc, "inode %s:%s", dev, mi_get(t, r, "ino"));
		} else if (!mi_mount_path(dev, path, full, sizeof(full), fstype, sizeof(fstype))) {
			s->files_shmem[r] = !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5);
		} else {
			s->files_shmem[r] = !strcmp(fstype, "tmpfs") || !strcmp(fstype, "devtmpfs") ||
					    !strcmp(fstype, "rootfs");
			mi_table_set(v, r, (size_t)pc, full);
		}
	}
	mi_table_free(t);
	s->files = v;
	return !mi_table_error(v);
}

static long long slabs_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	(void)s;
	return bytes_kb(t, r, "memory_bytes");
}

static void name_field(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", mi_get(t, r, "name"));
}

static void cgroup_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", mi_get(t, r, "path"));
}

static long long cgroup_slab_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	(void)s;
	return bytes_kb(t, r, "slab_bytes");
}

static long long cgroup_shmem_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	long long p = num(t, r, "shmem_pages");

	return p < 0 ? -1 : p * s->page_kb;
}

/* a dying cgroup's pages and slab in kB; 0 for a live one */
static long long cgroup_dying_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	long long kb = 0, v;

	if (strcmp(mi_get(t, r, "state"), "dying"))
		return 0;
	for (const char *const *f = (const char *const[]){ "anon_pages", "file_pages",
							     "shmem_pages", NULL }; *f; f++) {
		v = num(t, r, *f);
		kb += v > 0 ? v * s->page_kb : 0;
	}
	v = cgroup_slab_kb(t, r, s);
	return kb + (v > 0 ? v : 0);
}

static long long allocs_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	(void)s;
	return bytes_kb(t, r, "live_bytes");
}

/* the call site without its offset: "allocs_fill [meminspect_test]" */
static void allocs_name(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	const char *site = mi_get(t, r, "site");
	size_t n = strcspn(site, "+ ");
	const char *mod = strchr(site, '[');
	const char *end = mod ? strchr(mod, ']') : NULL;

	if (mod && end && !strstr(site, " < "))
		snprintf(buf, len, "%.*s %.*s", (int)n, site, (int)(end - mod + 1), mod);
	else
		snprintf(buf, len, "%.*s", (int)n, site);
}

/* ---- each figure's holders ---- */

static void hold_anon(const struct rank_src *s, char *buf, size_t len)
{
	top_of(s->procs, procs_anon_kb, procs_name, s, "", buf, len);
}

static void hold_file(const struct rank_src *s, char *buf, size_t len)
{
	top_of(s->files, files_kb, files_name, s, "", buf, len);
}

/* "; " and the cgroups' top by kb_of() after what buf holds, if any */
static void then_cgroups(const struct rank_src *s,
			 long long (*kb_of)(const struct mi_table *, size_t, const struct rank_src *),
			 char *buf, size_t len)
{
	size_t o = strlen(buf);

	if (!s->cgroups || o + 3 > len)
		return;
	if (o)
		memcpy(buf + o, "; ", 3), o += 2;
	top_of(s->cgroups, kb_of, cgroup_name, s, "cgroups: ", buf + o, len - o);
	if (o && !buf[o])
		buf[o - 2] = '\0';
}

static void hold_shmem(const struct rank_src *s, char *buf, size_t len)
{
	top_of(s->files, files_shmem_kb, files_name, s, "", buf, len);
	then_cgroups(s, cgroup_shmem_kb, buf, len);
}

static void hold_slab(const struct rank_src *s, char *buf, size_t len)
{
	top_of(s->slabs, slabs_kb, name_field, s, "", buf, len);
	then_cgroups(s, cgroup_slab_kb, buf, len);
}

/*
 * The record of @t with @key equal to @want and the largest @kb_of(); its
 * name by @name_of() and its kB into @top; nothing where none has any.
 */
static void largest_of(const struct mi_table *t, const char *key, const char *want,
		       long long (*kb_of)(const struct mi_table *, size_t, const struct rank_src *),
		       void (*name_of)(const struct mi_table *, size_t, char *, size_t),
		       const struct rank_src *s, struct rank_holder *top)
{
	long best = -1;

	top->kb = 0;
	for (size_t r = 0; t && r < mi_nrecords(t); r++) {
		long long kb = kb_of(t, r, s);

		if (kb > top->kb && !strcmp(mi_get(t, r, key), want)) {
			top->kb = kb;
			best = (long)r;
		}
	}
	if (best >= 0)
		name_of(t, (size_t)best, top->name, sizeof(top->name));
}

static long long cgslabs_kb(const struct mi_table *t, size_t r, const struct rank_src *s)
{
	(void)s;
	return bytes_kb(t, r, "bytes");
}

static void cache_field(const struct mi_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", mi_get(t, r, "cache"));
}

/*
 * The dying cgroups by what they hold, each with what keeps it: the file
 * with the most of its page cache (files' cgroup column names the cgroup
 * charged for most of a file's pages, tmpfs files included: their pages pin
 * it too) and its largest slab cache (cgroup_slabs, loaded only when a dying
 * cgroup still has slab: its objects move to the parent at offline).
 */
static void hold_dying(const struct rank_src *s, char *buf, size_t len)
{
	struct rank_holder top[RANK_HOLDERS] = { 0 }, pin;
	char name[160];
	size_t o = 0;

	for (size_t r = 0; s->cgroups && r < mi_nrecords(s->cgroups); r++) {
		long long kb = cgroup_dying_kb(s->cgroups, r, s);

		if (kb <= 0)
			continue;
		/* the record's index: its path and id are looked up below */
		snprintf(name, sizeof(name), "%zu", r);
		top_insert(top, name, kb);
	}
	for (int i = 0; i < RANK_HOLDERS && top[i].kb > 0 && o < len; i++) {
		size_t r = strtoul(top[i].name, NULL, 10);
		const char *path = mi_get(s->cgroups, r, "path");

		o += snprintf(buf + o, len - o, "%s%s (%lld kB", i ? ", " : "", path, top[i].kb);
		largest_of(s->files, "cgroup", path, files_pages_kb, files_name, s, &pin);
		if (pin.kb > 0 && o < len)
			o += snprintf(buf + o, len - o, "; file %s %lld kB", pin.name, pin.kb);
		largest_of(s->cgslabs, "id", mi_get(s->cgroups, r, "id"), cgslabs_kb, cache_field,
			   s, &pin);
		if (pin.kb > 0 && o < len)
			o += snprintf(buf + o, len - o, "; slab %s %lld kB", pin.name, pin.kb);
		if (o < len)
			o += snprintf(buf + o, len - o, ")");
	}
}

static void hold_unaccounted(const struct rank_src *s, char *buf, size_t len)
{
	top_of(s->allocs, allocs_kb, allocs_name, s, "allocs: ", buf, len);
}

static const struct rank_figure rank_figures[] = {
	{ "anon", { "anon_lru", "anon_other" }, hold_anon },
	{ "page_cache", { "file_mapped", "file_unmapped" }, hold_file },
	{ "shmem", { "shmem" }, hold_shmem },
	{ "slab", { "slab" }, hold_slab },
	{ "large_kmalloc", { "large_kmalloc" }, NULL },
	{ "free", { "buddy_free", "free_other" }, NULL },
	{ "pagetable", { "pagetable" }, NULL },
	{ "hugetlb", { "hugetlb_used", "hugetlb_free" }, NULL },
	{ "zsmalloc", { "zsmalloc" }, NULL },
	{ "reserved", { "reserved" }, NULL },
	{ "offline", { "offline" }, NULL },
	{ "unaccounted", { NULL }, hold_unaccounted },
	{ "dying_cgroups", { NULL }, hold_dying },
};

/* ---- loading ---- */

/* file, when capabilities has a file row for it; NULL (and a note) otherwise */
static struct mi_table *rank_load(const struct mi_cli *c, const struct mi_table *caps,
				  const char *file, const char *what, struct mi_table *v)
{
	struct mi_table *t = NULL;
	long r = caps ? mi_find(caps, "name", file) : -1;

	if (r < 0 || !view_is_file_row(caps, (size_t)r)) {
		mi_table_add_note(v, "no %s file in this module: %s not named", file, what);
		return NULL;
	}
	if (view_load(c, file, &t))
		mi_table_add_note(v, "%s could not be read: %s not named", file, what);
	return t;
}

/* whether any record of @t has a number in @field */
static bool any_number(const struct mi_table *t, const char *field)
{
	for (size_t r = 0; t && r < mi_nrecords(t); r++)
		if (num(t, r, field) >= 0)
			return true;
	return false;
}

/*
 * The caches of /proc/slabinfo as "name memory_bytes" (num_slabs x
 * pagesperslab pages), for a kernel whose slabs file cannot size them
 * (no BTF: capabilities slabs.memory_bytes no); NULL if it cannot be read.
 */
static struct mi_table *slabinfo_load(long long page_kb)
{
	static const char *const fields[] = { "name", "memory_bytes", NULL };
	struct mi_error e;
	struct mi_table *t;
	char line[512], name[128];
	unsigned long long slabs, pps;
	FILE *f = where_proc_open("slabinfo");

	if (!f)
		return NULL;
	t = mi_table_new("slabinfo", fields, &e);
	while (t && fgets(line, sizeof(line), f)) {
		long r;

		/* name active_objs num_objs objsize objperslab pagesperslab : tunables
		 * limit batchcount sharedfactor : slabdata active_slabs num_slabs sharedavail */
		if (sscanf(line, "%127s %*u %*u %*u %*u %llu : tunables %*u %*u %*u : slabdata %*u %llu",
			   name, &pps, &slabs) != 3)
			continue;
		r = mi_table_add_record(t);
		if (r < 0)
			break;
		mi_table_set(t, (size_t)r, 0, name);
		mi_table_setf(t, (size_t)r, 1, "%llu", slabs * pps * (unsigned long long)page_kb * 1024);
	}
	fclose(f);
	return t;
}

/* whether a dying cgroup of @t still has slab objects of its own */
static bool dying_slab(const struct mi_table *t)
{
	for (size_t r = 0; t && r < mi_nrecords(t); r++)
		if (!strcmp(mi_get(t, r, "state"), "dying") && num(t, r, "slab_bytes") > 0)
			return true;
	return false;
}

static long long census_sum(const struct mi_table *p, const char *const *classes)
{
	long long sum = 0, b;

	for (size_t r = 0; r < mi_nrecords(p); r++)
		for (const char *const *c = classes; *c; c++)
			if (!strcmp(mi_get(p, r, "class"), *c) &&
			    !mi_parse_s64(mi_get(p, r, "bytes"), &b))
				sum += b;
	return sum / 1024;
}

static int rank_cmp(const struct mi_table *t, size_t a, size_t b, const void *arg)
{
	long long x = num(t, a, "kb"), y = num(t, b, "kb");

	(void)arg;
	return x < y ? 1 : x > y ? -1 : 0;
}

int where_rank_build(const struct mi_cli *c, const struct mi_table *s, const struct mi_table *p,
		     struct mi_table **out)
{
	struct mi_error e;
	struct mi_table *v = mi_table_new("where", rank_fields, &e), *caps = NULL;
	struct rank_src src = { .page_kb = sysconf(_SC_PAGESIZE) / 1024 };
	long long total = -1;
	long r;
	int st = ST_OK;

	if (!v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	if (view_load(c, "capabilities", &caps))
		caps = NULL;
	src.procs = rank_load(c, caps, "procs", "processes", v);
	src.files = rank_load(c, caps, "files", "files", v);
	if (src.files && !files_resolve(&src)) {
		mi_table_add_note(v, "files could not be resolved (out of memory): files not named");
		mi_table_free(src.files);
		src.files = NULL;
	}
	src.slabs = rank_load(c, caps, "slabs", "slab caches", v);
	/* no cache sized: none listed (no BTF: a note says why) or every size '-' */
	if (src.slabs && !any_number(src.slabs, "memory_bytes")) {
		mi_table_free(src.slabs);
		src.slabs = slabinfo_load(src.page_kb);
		mi_table_add_note(v, src.slabs ?
			"slab: caches sized from /proc/slabinfo (slabs' memory_bytes is unknown on this kernel: capabilities slabs.memory_bytes)" :
			"slab: caches not named (slabs' memory_bytes is unknown on this kernel and /proc/slabinfo could not be read)");
	}
	src.cgroups = rank_load(c, caps, "cgroups", "cgroups", v);
	if (dying_slab(src.cgroups))
		src.cgslabs = rank_load(c, caps, "cgroup_slabs", "dying cgroups' slab caches", v);
	src.allocs = rank_load(c, caps, "allocs/table", "call sites", v);
	r = mi_find(s, "field", "mem_total");
	if (r >= 0)
		total = num(s, (size_t)r, "value");
	for (size_t i = 0; i < sizeof(rank_figures) / sizeof(rank_figures[0]); i++) {
		const struct rank_figure *f = &rank_figures[i];
		char holders[RANK_TEXT] = "";
		long long kb;
		long rec;

		if (f->classes[0]) {
			kb = census_sum(p, f->classes);
		} else if (f->holders == hold_dying) {
			kb = 0;
			for (size_t k = 0; src.cgroups && k < mi_nrecords(src.cgroups); k++)
				kb += cgroup_dying_kb(src.cgroups, k, &src);
		} else {
			rec = mi_find(s, "field", "unaccounted");
			kb = rec < 0 ? -1 : num(s, (size_t)rec, "value");
		}
		if (kb <= 0)
			continue;
		if (f->holders)
			f->holders(&src, holders, sizeof(holders));
		rec = mi_table_add_record(v);
		if (rec < 0)
			break;
		mi_table_set(v, (size_t)rec, 1, f->name);
		mi_table_setf(v, (size_t)rec, 2, "%lld", kb);
		if (total > 0)
			mi_table_setf(v, (size_t)rec, 3, "%.1f", 100.0 * kb / total);
		else
			mi_table_set(v, (size_t)rec, 3, "-");
		mi_table_set(v, (size_t)rec, 4, holders[0] ? holders : "-");
	}
	mi_table_sort(v, rank_cmp, NULL);
	for (size_t i = 0; i < mi_nrecords(v); i++)
		mi_table_setf(v, i, 0, "%zu", i + 1);
	if (!src.allocs || !mi_nrecords(src.allocs))
		mi_table_add_note(v, "unaccounted: arm allocs (echo 1 > allocs/armed, docs/allocs.md) to name its call sites");
	mi_table_add_note(v, "kb from the census (pages) and summary's unaccounted; pct of mem_total; holders: the top %d of each, from procs, files, slabs, cgroups and allocs/table",
			  RANK_HOLDERS);
	if (mi_table_error(v)) {
		view_build_failed(v, "where");
		mi_table_free(v);
		st = ST_FORMAT;
	} else {
		*out = v;
	}
	mi_table_free(src.procs);
	mi_table_free(src.files);
	free(src.files_shmem);
	mi_table_free(src.slabs);
	mi_table_free(src.cgroups);
	mi_table_free(src.cgslabs);
	mi_table_free(src.allocs);
	mi_table_free(caps);
	return st;
}
