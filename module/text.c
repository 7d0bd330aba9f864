// SPDX-License-Identifier: GPL-2.0
/*
 * Free text in the tables (text.h).
 */
#include <linux/ctype.h>
#include <linux/seq_file.h>

#include "text.h"

/*
 * A task's comm with spaces, backslashes and non-printing characters as
 * \ooo, "-" when empty.  Any task may name itself anything
 * (prctl(PR_SET_NAME)): printed raw, a newline or a space in it would
 * forge records and fields of a table.
 */
void mi_put_comm(struct seq_file *m, const char *comm)
{
	const char *p;

	if (!comm[0]) {
		seq_putc(m, '-');
		return;
	}
	for (p = comm; *p; p++) {
		unsigned char ch = *p;

		if (isgraph(ch) && ch != '\\')
			seq_putc(m, ch);
		else
			seq_printf(m, "\\%03o", ch);
	}
}
