/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Member offsets of kernel structures, learnt at load time from the running
 * kernel's own BTF (CONFIG_DEBUG_INFO_BTF), so that no structure private to
 * mm/ is copied into this module.  The raw BTF blob is the kernel's
 * .BTF section (__start_BTF..__stop_BTF, found by ksyms); its format is
 * UAPI (include/uapi/linux/btf.h) and is parsed here, read-only.
 *
 * Open, look up, close: the index lives only between mi_btf_open() and
 * mi_btf_close(), at init.
 */
#ifndef MI_BTF_H
#define MI_BTF_H

#include <linux/types.h>

struct mi_btf_member {
	u32 bit_offset;		/* from the start of the outer structure */
	u32 bit_size;		/* 0 unless a bitfield */
	u32 type;		/* type id, typedefs and qualifiers resolved */
	u32 size;		/* bytes of @type (0 for a bitfield's int) */
};

int mi_btf_open(char *why, size_t len);
void mi_btf_close(void);
/* Summary for capabilities: "N bytes, M types" */
void mi_btf_describe(char *buf, size_t len);
/* Id of the struct called @name that has members, or 0. */
u32 mi_btf_struct(const char *name);
/* Member @name of struct/union @id, searched into anonymous members. */
bool mi_btf_member(u32 id, const char *name, struct mi_btf_member *m);
/* Size in bytes of type @id (typedefs and qualifiers resolved), or 0. */
u32 mi_btf_size(u32 id);
/* If @id is an array: its element type (resolved) and element count. */
bool mi_btf_array(u32 id, u32 *elem, u32 *nelems);
/* If @id is a pointer: the type it points to (resolved). */
bool mi_btf_ptr(u32 id, u32 *target);
/* Is @id a struct or union? */
bool mi_btf_is_struct(u32 id);

#endif /* MI_BTF_H */
