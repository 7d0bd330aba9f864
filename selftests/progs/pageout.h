/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pushed to swap, for the guest programs whose tests need pages
 * there (memtarget, vmarace).  The includer defines PAGE (the page size)
 * and die() (reports and exits 1).
 */
#ifndef MI_PROGS_PAGEOUT_H
#define MI_PROGS_PAGEOUT_H

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21		/* 5.4 */
#endif

/*
 * kB of [p, p + len) not in memory: mincore(), which counts swap cache.
 * 16 MiB at most.
 */
static size_t out_kb(char *p, size_t len)
{
	static unsigned char vec[4096];
	size_t i, n = len / PAGE, out = 0;

	if (n > sizeof(vec) || mincore(p, len, vec))
		die("mincore");
	for (i = 0; i < n; i++)
		out += !(vec[i] & 1);
	return out * (PAGE / 1024);
}

/*
 * Push [p, p + len) to swap with MADV_PAGEOUT; returns out_kb() after.
 * Pages still in a per-CPU LRU batch are not isolated by it, and a page
 * may linger in the swap cache: retry a few times until none is left in
 * memory.
 */
static size_t page_out(char *p, size_t len)
{
	int i;

	for (i = 0; i < 20 && out_kb(p, len) < len / 1024; i++) {
		if (madvise(p, len, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)");
		usleep(20000);
	}
	return out_kb(p, len);
}

#endif /* MI_PROGS_PAGEOUT_H */
