// SPDX-License-Identifier: GPL-2.0
/*
 * sysprog: a small program for `meminspect fault run|sweep` on a real
 * target (test_fault_target.sh).  It makes a few system calls that
 * allocate in the kernel and says which failed:
 *
 *   open /proc/self/status, read it, pipe2, eventfd2, epoll_create1,
 *   create, write and unlink a file of its own in /tmp (/tmp/sysprog.PID)
 *
 * One line per call ("sysprog: CALL ok" or "sysprog: CALL: errno E"), then
 * exits 0 if every call succeeded, 1 if one failed with ENOMEM (and none
 * otherwise), 2 on any other error.
 *
 * Built without libc (-nostdlib, raw syscalls, no writable data): between
 * its exec and its first system call it allocates nothing from the slab
 * (no brk, no TLS setup, no copy-on-write of a data page needing an
 * anon_vma), so the first slab allocation after the exec is its open().
 */
#include <asm/unistd.h>
#include <linux/fcntl.h>

#define ENOMEM	12

#define MI_AT_FDCWD	(-100)	/* open and unlink are openat/unlinkat: arm64 has no others */

#if defined(__x86_64__)
static long sys4(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile ("syscall"
			  : "=a" (ret)
			  : "a" (nr), "D" (a), "S" (b), "d" (c), "r" (r10)
			  : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long sys4(long nr, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile ("svc #0"
			  : "+r" (x0)
			  : "r" (x8), "r" (x1), "r" (x2), "r" (x3)
			  : "memory");
	return x0;
}
#else
#error "sysprog: no system call glue for this architecture"
#endif

static long sys(long nr, long a, long b, long c)
{
	return sys4(nr, a, b, c, 0);
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const char *s)
{
	sys(__NR_write, 1, (long)s, len(s));
}

/* 0 ok, 1 ENOMEM, 2 other */
static int check(const char *call, long ret)
{
	char num[8];
	int i = sizeof(num) - 1;
	long e = -ret;

	say("sysprog: ");
	say(call);
	if (ret >= 0) {
		say(" ok\n");
		return 0;
	}
	num[i] = '\0';
	do {
		num[--i] = '0' + e % 10;
		e /= 10;
	} while (e && i > 0);
	say(": errno ");
	say(&num[i]);
	say(-ret == ENOMEM ? " (ENOMEM)\n" : "\n");
	return -ret == ENOMEM ? 1 : 2;
}

static int worst(int a, int b)
{
	return a > b ? a : b;
}

void __attribute__((noreturn, used)) sysprog_main(void)
{
	static const char status[] = "/proc/self/status";
	char buf[256], tmp[32] = "/tmp/sysprog.";
	long pid = sys(__NR_getpid, 0, 0, 0);
	int n = 13, d;
	int fds[2];
	long fd, r;
	int st = 0;

	/* a file of its own: copies may run side by side */
	for (d = 1; pid / d >= 10; d *= 10)
		;
	for (; d; d /= 10)
		tmp[n++] = '0' + pid / d % 10;
	tmp[n] = '\0';
	fd = sys4(__NR_openat, MI_AT_FDCWD, (long)status, O_RDONLY, 0);
	st = worst(st, check("open", fd));
	if (fd >= 0) {
		r = sys(__NR_read, fd, (long)buf, sizeof(buf));
		st = worst(st, check("read", r));
		sys(__NR_close, fd, 0, 0);
	}
	r = sys(__NR_pipe2, (long)fds, O_CLOEXEC, 0);
	st = worst(st, check("pipe2", r));
	if (r >= 0) {
		sys(__NR_close, fds[0], 0, 0);
		sys(__NR_close, fds[1], 0, 0);
	}
	fd = sys(__NR_eventfd2, 0, O_CLOEXEC, 0);
	st = worst(st, check("eventfd2", fd));
	if (fd >= 0)
		sys(__NR_close, fd, 0, 0);
	fd = sys(__NR_epoll_create1, O_CLOEXEC, 0, 0);
	st = worst(st, check("epoll_create1", fd));
	if (fd >= 0)
		sys(__NR_close, fd, 0, 0);
	fd = sys4(__NR_openat, MI_AT_FDCWD, (long)tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	st = worst(st, check("create", fd));
	if (fd >= 0) {
		r = sys(__NR_write, fd, (long)status, sizeof(status));
		st = worst(st, check("write", r));
		sys(__NR_close, fd, 0, 0);
		st = worst(st, check("unlink", sys(__NR_unlinkat, MI_AT_FDCWD, (long)tmp, 0)));
	}
	sys(__NR_exit_group, st, 0, 0);
	for (;;)
		;
}

/* the entry: align the stack as a call would, then main */
#if defined(__x86_64__)
__asm__(".globl _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	and $-16, %rsp\n"
	"	call sysprog_main\n"
	"	hlt\n");
#else
__asm__(".globl _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	bl sysprog_main\n"
	"	b .\n");
#endif
