// SPDX-License-Identifier: GPL-2.0
/*
 * A read-only reader of the running kernel's BTF (see btf.h).
 *
 * The kernel keeps its own type information in the .BTF section between
 * __start_BTF and __stop_BTF, the blob /sys/kernel/btf/vmlinux shows.  Its
 * layout is UAPI (include/uapi/linux/btf.h, "Documentation/bpf/btf.rst"):
 * a header, then types back to back (each a struct btf_type plus a
 * kind-dependent tail), then a string section.  Type ids count from 1 in
 * the order the types appear.  mi_btf_open() checks the header, walks the
 * types once to index their offsets and refuses anything it does not
 * understand (an unknown kind, a type or string out of bounds), so every
 * later lookup only reads inside the blob.
 *
 * The kernel's own parser (btf_parse_vmlinux()) is not used: its entry
 * points are not exported, and calling them would need ksyms' static
 * calls for little gain; the blob needs no more than this.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/btf.h>

#include "btf.h"
#include "ksyms.h"

/*
 * BTF kinds (UAPI values).  5.10's header defines fewer of them and as
 * macros, later ones as an enum: spell out the values the blob may hold.
 */
enum {
	MI_BTF_INT = 1, MI_BTF_PTR, MI_BTF_ARRAY, MI_BTF_STRUCT, MI_BTF_UNION,
	MI_BTF_ENUM, MI_BTF_FWD, MI_BTF_TYPEDEF, MI_BTF_VOLATILE, MI_BTF_CONST,
	MI_BTF_RESTRICT, MI_BTF_FUNC, MI_BTF_FUNC_PROTO, MI_BTF_VAR,
	MI_BTF_DATASEC, MI_BTF_FLOAT, MI_BTF_DECL_TAG, MI_BTF_TYPE_TAG,
	MI_BTF_ENUM64,
};

/*
 * The header up to str_len is all this reader needs.  Newer headers are
 * longer ("btf: add kind layout section", in 7.3's UAPI: layout_off,
 * layout_len), and hdr_len says how long the blob's own header is.
 */
#define MI_BTF_HDR_MIN		offsetofend(struct btf_header, str_len)

/* enough for any qualifier chain a compiler emits */
#define MI_BTF_MAX_RESOLVE	32
/* anonymous struct-in-union nesting */
#define MI_BTF_MAX_DEPTH	8

static struct {
	const u8 *blob;
	size_t size;
	const u8 *types;	/* start of the type section */
	const char *strs;	/* start of the string section */
	u32 str_len;
	u32 *off;		/* off[id] = offset of type id in @types */
	u32 nr;			/* ids are 1..nr-1 */
} mi_btf;

static const struct btf_type *mi_btf_type(u32 id)
{
	if (!id || id >= mi_btf.nr)
		return NULL;
	return (const struct btf_type *)(mi_btf.types + mi_btf.off[id]);
}

static const char *mi_btf_name(u32 name_off)
{
	if (name_off >= mi_btf.str_len)
		return "";
	return mi_btf.strs + name_off;
}

/* Bytes that follow struct btf_type for this kind, or -1 if unknown. */
static long mi_btf_tail(const struct btf_type *t)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case MI_BTF_INT:
	case MI_BTF_VAR:
	case MI_BTF_DECL_TAG:
		return 4;
	case MI_BTF_PTR:
	case MI_BTF_FWD:
	case MI_BTF_TYPEDEF:
	case MI_BTF_VOLATILE:
	case MI_BTF_CONST:
	case MI_BTF_RESTRICT:
	case MI_BTF_FUNC:
	case MI_BTF_FLOAT:
	case MI_BTF_TYPE_TAG:
		return 0;
	case MI_BTF_ARRAY:
		return sizeof(struct btf_array);
	case MI_BTF_STRUCT:
	case MI_BTF_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case MI_BTF_ENUM:
		return (long)vlen * 8;
	case MI_BTF_FUNC_PROTO:
		return (long)vlen * 8;
	case MI_BTF_DATASEC:
	case MI_BTF_ENUM64:
		return (long)vlen * 12;
	default:
		return -1;
	}
}

int mi_btf_open(char *why, size_t len)
{
	const struct btf_header *h;
	unsigned long start, stop;
	u32 pos, nr, cap;

	start = mi_ksym("__start_BTF");
	stop = mi_ksym("__stop_BTF");
	if (!start || !stop || stop <= start + MI_BTF_HDR_MIN) {
		if (!mi_ksyms_available())
			snprintf(why, len,
				 "needs __start_BTF (not exported) but ksyms is unavailable");
		else if (IS_ENABLED(CONFIG_KALLSYMS_ALL))
			snprintf(why, len,
				 "symbols __start_BTF/__stop_BTF not found (no CONFIG_DEBUG_INFO_BTF?)");
		else
			snprintf(why, len,
				 "symbols __start_BTF/__stop_BTF not found%s",
				 mi_ksyms_scope());
		return -ENOENT;
	}
	h = (const struct btf_header *)start;
	mi_btf.blob = (const u8 *)start;
	mi_btf.size = stop - start;
	if (h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < MI_BTF_HDR_MIN || h->hdr_len > mi_btf.size ||
	    (u64)h->hdr_len + h->type_off + h->type_len > mi_btf.size ||
	    (u64)h->hdr_len + h->str_off + h->str_len > mi_btf.size ||
	    !h->str_len ||
	    mi_btf.blob[h->hdr_len + h->str_off + h->str_len - 1]) {
		snprintf(why, len,
			 "BTF header not understood (magic %#x version %u hdr %u types %u+%u strings %u+%u in %zu bytes)",
			 h->magic, h->version, h->hdr_len, h->type_off,
			 h->type_len, h->str_off, h->str_len, mi_btf.size);
		return -EINVAL;
	}
	mi_btf.types = mi_btf.blob + h->hdr_len + h->type_off;
	mi_btf.strs = (const char *)mi_btf.blob + h->hdr_len + h->str_off;
	mi_btf.str_len = h->str_len;

	/* every type is at least 12 bytes: that bounds the id count */
	cap = h->type_len / sizeof(struct btf_type) + 1;
	mi_btf.off = kvmalloc_array(cap, sizeof(u32), GFP_KERNEL);
	if (!mi_btf.off) {
		snprintf(why, len, "no memory for the BTF index");
		return -ENOMEM;
	}
	for (pos = 0, nr = 1; pos < h->type_len && nr < cap; nr++) {
		const struct btf_type *t;
		long tail;

		if (pos + sizeof(*t) > h->type_len)
			break;
		t = (const struct btf_type *)(mi_btf.types + pos);
		tail = mi_btf_tail(t);
		if (tail < 0) {
			snprintf(why, len, "BTF type %u has unknown kind %u",
				 nr, BTF_INFO_KIND(t->info));
			goto bad;
		}
		mi_btf.off[nr] = pos;
		pos += sizeof(*t) + tail;
	}
	if (pos != h->type_len) {
		snprintf(why, len, "BTF type section inconsistent at byte %u", pos);
		goto bad;
	}
	mi_btf.nr = nr;
	return 0;
bad:
	kvfree(mi_btf.off);
	mi_btf.off = NULL;
	return -EINVAL;
}

void mi_btf_close(void)
{
	kvfree(mi_btf.off);
	mi_btf.off = NULL;
	mi_btf.nr = 0;
}

void mi_btf_describe(char *buf, size_t len)
{
	snprintf(buf, len, "%zu bytes, %u types", mi_btf.size,
		 mi_btf.nr ? mi_btf.nr - 1 : 0);
}

/* Skip typedefs and qualifiers. */
static u32 mi_btf_resolve(u32 id)
{
	int i;

	for (i = 0; i < MI_BTF_MAX_RESOLVE; i++) {
		const struct btf_type *t = mi_btf_type(id);

		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case MI_BTF_TYPEDEF:
		case MI_BTF_VOLATILE:
		case MI_BTF_CONST:
		case MI_BTF_RESTRICT:
		case MI_BTF_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

u32 mi_btf_struct(const char *name)
{
	u32 id;

	for (id = 1; id < mi_btf.nr; id++) {
		const struct btf_type *t = mi_btf_type(id);

		if (BTF_INFO_KIND(t->info) == MI_BTF_STRUCT &&
		    BTF_INFO_VLEN(t->info) &&
		    !strcmp(mi_btf_name(t->name_off), name))
			return id;
	}
	return 0;
}

bool mi_btf_is_struct(u32 id)
{
	const struct btf_type *t = mi_btf_type(mi_btf_resolve(id));
	u32 kind = t ? BTF_INFO_KIND(t->info) : 0;

	return kind == MI_BTF_STRUCT || kind == MI_BTF_UNION;
}

u32 mi_btf_size(u32 id)
{
	const struct btf_type *t;
	u32 elem, n;

	id = mi_btf_resolve(id);
	t = mi_btf_type(id);
	if (!t)
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case MI_BTF_INT:
	case MI_BTF_STRUCT:
	case MI_BTF_UNION:
	case MI_BTF_ENUM:
	case MI_BTF_ENUM64:
	case MI_BTF_FLOAT:
		return t->size;
	case MI_BTF_PTR:
		return sizeof(void *);
	case MI_BTF_ARRAY:
		if (!mi_btf_array(id, &elem, &n))
			return 0;
		return mi_btf_size(elem) * n;
	default:
		return 0;
	}
}

bool mi_btf_array(u32 id, u32 *elem, u32 *nelems)
{
	const struct btf_type *t = mi_btf_type(mi_btf_resolve(id));
	const struct btf_array *a;

	if (!t || BTF_INFO_KIND(t->info) != MI_BTF_ARRAY)
		return false;
	a = (const struct btf_array *)(t + 1);
	*elem = mi_btf_resolve(a->type);
	*nelems = a->nelems;
	return *elem != 0;
}

bool mi_btf_ptr(u32 id, u32 *target)
{
	const struct btf_type *t = mi_btf_type(mi_btf_resolve(id));

	if (!t || BTF_INFO_KIND(t->info) != MI_BTF_PTR)
		return false;
	*target = mi_btf_resolve(t->type);
	return true;
}

static bool mi_btf_member_at(u32 id, const char *name, u32 base, int depth,
			     struct mi_btf_member *m)
{
	const struct btf_type *t = mi_btf_type(mi_btf_resolve(id));
	const struct btf_member *mb;
	u32 i, vlen, kind;
	bool kflag;

	if (!t || depth > MI_BTF_MAX_DEPTH)
		return false;
	kind = BTF_INFO_KIND(t->info);
	if (kind != MI_BTF_STRUCT && kind != MI_BTF_UNION)
		return false;
	vlen = BTF_INFO_VLEN(t->info);
	kflag = BTF_INFO_KFLAG(t->info);
	mb = (const struct btf_member *)(t + 1);
	for (i = 0; i < vlen; i++, mb++) {
		u32 off = kflag ? BTF_MEMBER_BIT_OFFSET(mb->offset) : mb->offset;
		u32 bits = kflag ? BTF_MEMBER_BITFIELD_SIZE(mb->offset) : 0;
		const struct btf_type *mt;

		if (!mb->name_off) {
			/* anonymous struct or union: its members are ours */
			if (mi_btf_member_at(mb->type, name, base + off,
					     depth + 1, m))
				return true;
			continue;
		}
		if (strcmp(mi_btf_name(mb->name_off), name))
			continue;
		m->type = mi_btf_resolve(mb->type);
		m->bit_offset = base + off;
		mt = mi_btf_type(m->type);
		/* without kind_flag a bitfield is told by its int encoding */
		if (!kflag && mt && BTF_INFO_KIND(mt->info) == MI_BTF_INT) {
			u32 enc = *(const u32 *)(mt + 1);

			if (BTF_INT_BITS(enc) != mt->size * 8) {
				bits = BTF_INT_BITS(enc);
				m->bit_offset += BTF_INT_OFFSET(enc);
			}
		}
		m->bit_size = bits;
		m->size = bits ? 0 : mi_btf_size(m->type);
		return true;
	}
	return false;
}

bool mi_btf_member(u32 id, const char *name, struct mi_btf_member *m)
{
	return mi_btf_member_at(id, name, 0, 0, m);
}
