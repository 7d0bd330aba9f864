// SPDX-License-Identifier: GPL-2.0
/*
 * fcopy CMD-FIFO ACK-FIFO: copy files on request, from a process that exists before the
 * requests. Each line "SRC DST" (no spaces in either) read from CMD-FIFO copies SRC to DST
 * (created or truncated) and answers "ok" or "err ERRNO" on ACK-FIFO; "quit" or the end of
 * CMD-FIFO ends it.
 *
 * Why: test_allocs_allocinfo.sh reads /proc/allocinfo and the allocs table inside a window
 * whose every allocation is counted by both, so nothing may fork or exec at its edges (a
 * `cat` held its own pages, and the shell copied pages of its own on write while its child
 * started), and the shell's own `read` takes a byte per read(): 3 s an allocinfo reading on
 * the debug lane, four of them. Here one process, started and warmed up before the window,
 * copies with large reads into a buffer it has already touched: no fork, no exec, no page
 * fault of its own inside the window, and no libc call that could allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define BUF_SIZE (1 << 20)

static char buf[BUF_SIZE];
static char line[8192];

static int put(int fd, const char *s)
{
	size_t n = strlen(s);

	return write(fd, s, n) == (ssize_t)n ? 0 : -1;
}

/* errno as text without stdio (its first use could allocate) */
static void put_err(int fd, int err)
{
	char s[32] = "err ";
	char d[12];
	int i = 0, j = 4;

	do {
		d[i++] = '0' + err % 10;
		err /= 10;
	} while (err && i < 11);
	while (i)
		s[j++] = d[--i];
	s[j++] = '\n';
	s[j] = '\0';
	put(fd, s);
}

static int copy(const char *src, const char *dst)
{
	int in, out, err = 0;
	ssize_t n, w, off;

	in = open(src, O_RDONLY);
	if (in < 0)
		return errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, n - off);
			if (w < 0) {
				err = errno;
				goto done;
			}
		}
	}
	if (n < 0)
		err = errno;
done:
	close(in);
	if (close(out) && !err)
		err = errno;
	return err;
}

int main(int argc, char **argv)
{
	int cmd, ack, err;
	size_t len = 0;
	ssize_t n;
	char *nl, *sp;

	if (argc != 3) {
		put(2, "usage: fcopy CMD-FIFO ACK-FIFO\n");
		return 2;
	}
	memset(buf, 0, sizeof(buf));	/* every page of the buffer faulted in now */
	cmd = open(argv[1], O_RDONLY);
	ack = open(argv[2], O_WRONLY);
	if (cmd < 0 || ack < 0) {
		put(2, "fcopy: cannot open the FIFOs\n");
		return 1;
	}
	for (;;) {
		nl = memchr(line, '\n', len);
		if (!nl) {
			if (len == sizeof(line))
				return 1;	/* a line longer than any path pair */
			n = read(cmd, line + len, sizeof(line) - len);
			if (n <= 0)
				return 0;
			len += n;
			continue;
		}
		*nl = '\0';
		if (!strcmp(line, "quit"))
			return 0;
		sp = strchr(line, ' ');
		if (!sp) {
			put_err(ack, EINVAL);
		} else {
			*sp = '\0';
			err = copy(line, sp + 1);
			if (err)
				put_err(ack, err);
			else
				put(ack, "ok\n");
		}
		len -= nl + 1 - line;
		memmove(line, nl + 1, len);
	}
}
