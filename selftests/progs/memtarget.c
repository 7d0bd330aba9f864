// SPDX-License-Identifier: GPL-2.0
/*
 * memtarget: a process whose memory the mm/vmas tests and benches read.
 *
 *   memtarget basic DIR        anonymous, file-backed (DIR/memtarget.file),
 *                              shmem, THP and fork-shared memory; a child
 *                              shares part of it; then waits
 *   memtarget vmas N MIB       anonymous memory split into about N VMAs
 *                              (until mprotect fails at vm.max_map_count),
 *                              2 pages a VMA or MIB MiB if more, its first
 *                              MIB MiB touched; then waits
 *   memtarget churn [N MIB]    (after setting up as "vmas N MIB") maps,
 *                              touches and unmaps 64 KiB in a loop; on
 *                              SIGTERM prints "max_stall_us N", the longest
 *                              mmap+touch+munmap
 *   memtarget churn-one MIB    the same churn beside one VMA of MIB MiB in
 *                              4 KiB pages (MADV_NOHUGEPAGE), all touched:
 *                              a reader that holds mmap_lock for a whole
 *                              VMA holds it for MIB MiB of page tables
 *   memtarget swap DIR         (needs swap) anonymous memory, half pushed to
 *                              swap; shmem, half pushed to swap; a tmpfs file
 *                              DIR/memtarget.swap (if DIR is tmpfs) mapped
 *                              shared, half pushed to swap, and mapped
 *                              private and writable over the swapped half;
 *                              a range pushed to swap entirely, then
 *                              fork-shared with a child (swap entries used
 *                              twice: SwapPss is half of Swap); the parent
 *                              reads back a quarter of it; then waits.
 *                              Prints "swapped NAME KB" per range (its pages
 *                              not in memory, by mincore) before "ready"
 *   memtarget exit N MS        N VMAs, exits after MS milliseconds
 *   memtarget reserve          an ASan-style address space: 16 TiB
 *                              PROT_NONE and 2 TiB read-write, both
 *                              MAP_NORESERVE, 64 pages of the latter
 *                              touched 32 GiB apart (each under its own
 *                              page tables); then waits
 *   memtarget huge N           N default-size hugetlb pages (MAP_HUGETLB,
 *                              each touched: used, not only reserved) and
 *                              a 2 MiB-aligned 4 MiB anonymous range with
 *                              MADV_HUGEPAGE, touched (THPs where the
 *                              kernel gives them); then waits
 *   memtarget hugetlb FILE     default-size hugetlb pages, each touched:
 *                              2 MAP_PRIVATE|MAP_ANONYMOUS, 1
 *                              MAP_SHARED|MAP_ANONYMOUS and 2 of FILE (on a
 *                              hugetlbfs mount) MAP_SHARED; a child keeps
 *                              the first private page (fork: COW-shared),
 *                              inherits neither shared mapping
 *                              (MADV_DONTFORK) and maps FILE's first page
 *                              itself.  Parent: 2 pages shared (the
 *                              COW-shared one, FILE's first), 3 private;
 *                              child: 2 shared.  Then waits
 *   memtarget name NAME        names itself NAME (prctl(PR_SET_NAME): any
 *                              bytes, a newline and spaces included), and
 *                              forks a child that names itself NAME and
 *                              exits at once: a zombie until SIGTERM; then
 *                              waits
 *   memtarget noptrace FILE    drops CAP_SYS_PTRACE (and CAP_SYS_ADMIN,
 *                              CAP_PERFMON), opens /proc/CHILD/smaps_rollup
 *                              of a child running as nobody, writes the
 *                              child's pid to FILE, reads FILE; prints each
 *                              outcome
 *
 * Every mode that waits prints "ready PID [CHILD]" once set up and exits
 * 0 on SIGTERM (killing its child).  Exit 2: bad arguments; 1: failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#define MIB (1024UL * 1024)
#define PAGE 4096UL

static volatile sig_atomic_t stop;
static pid_t child;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	perror(what);
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

#include "pageout.h"

/* A 1 MiB file at @path, every byte @fill; its fd, open read-write */
static int make_file(const char *path, char fill)
{
	char buf[PAGE];
	size_t i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open");
	memset(buf, fill, sizeof(buf));
	for (i = 0; i < MIB / PAGE; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
	return fd;
}

static void touch(char *p, size_t len, size_t step)
{
	size_t i;

	for (i = 0; i < len; i += step)
		p[i] = (char)(i / step + 1);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void wait_for_term(void)
{
	sigset_t none;

	sigemptyset(&none);
	while (!stop)
		sigsuspend(&none);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

static void ready(void)
{
	if (child > 0)
		printf("ready %d %d\n", getpid(), child);
	else
		printf("ready %d\n", getpid());
	fflush(stdout);
}

static int basic(const char *dir)
{
	char path[4096], buf[PAGE];
	char *anon, *thp, *shm, *fpriv, *fshared, *forked;
	size_t i;
	int fd;

	/* file-backed: 1 MiB file, read through a private map, written shared */
	snprintf(path, sizeof(path), "%s/memtarget.file", dir);
	fd = make_file(path, 'f');
	fpriv = mmap(NULL, MIB, PROT_READ, MAP_PRIVATE, fd, 0);
	fshared = mmap(NULL, MIB / 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       MIB / 2);
	if (fpriv == MAP_FAILED || fshared == MAP_FAILED)
		die("mmap file");
	for (i = 0; i < MIB; i += PAGE)
		buf[0] ^= fpriv[i];
	touch(fshared, MIB / 4, PAGE);

	anon = map_anon(4 * MIB);
	touch(anon, 3 * MIB, PAGE);

	/* THP: a 2 MiB-aligned 4 MiB range with MADV_HUGEPAGE */
	thp = map_anon(8 * MIB);
	thp = (char *)(((uintptr_t)thp + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(thp, 4 * MIB, MADV_HUGEPAGE);
	touch(thp, 4 * MIB, PAGE);

	shm = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap shmem");
	touch(shm, 2 * MIB, PAGE);

	/* shared with the child below until someone writes */
	forked = map_anon(2 * MIB);
	touch(forked, 2 * MIB, PAGE);

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		/* reads half of the shmem again; writes nothing */
		for (i = 0; i < MIB; i += PAGE)
			buf[0] ^= shm[i];
		for (;;)
			pause();
	}
	/* the parent writes half of the fork-shared range: COW copies */
	touch(forked, MIB, PAGE);
	ready();
	wait_for_term();
	unlink(path);
	return 0;
}

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* push [p, p + len) to swap; "swapped NAME KB", its kB not in memory */
static void swap_out(const char *name, char *p, size_t len)
{
	printf("swapped %s %zu\n", name, page_out(p, len));
}

static int swapped(const char *dir)
{
	char path[4096], buf[PAGE];
	char *anon, *shm, *fsh = NULL, *fpriv = NULL, *forked;
	struct statfs sfs;
	size_t i;
	int fd = -1;

	anon = map_anon(4 * MIB);
	madvise(anon, 4 * MIB, MADV_NOHUGEPAGE);
	touch(anon, 4 * MIB, PAGE);
	swap_out("anon", anon, 2 * MIB);

	shm = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap shmem");
	touch(shm, 2 * MIB, PAGE);
	swap_out("shmem", shm, MIB);

	/*
	 * A tmpfs file: swapped through a shared map; the private writable
	 * map of it has holes there, which smaps counts per hole.
	 */
	snprintf(path, sizeof(path), "%s/memtarget.swap", dir);
	if (!statfs(dir, &sfs) && sfs.f_type == TMPFS_MAGIC) {
		fd = make_file(path, 's');
		fsh = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		fpriv = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			     fd, 0);
		if (fsh == MAP_FAILED || fpriv == MAP_FAILED)
			die("mmap tmpfs file");
		touch(fsh, MIB, PAGE);
		swap_out("tmpfs", fsh, MIB / 2);
		/* the private map: the resident half read, a page written */
		for (i = MIB / 2; i < MIB; i += PAGE)
			buf[0] ^= fpriv[i];
		fpriv[MIB - PAGE] = 1;
	} else {
		printf("tmpfs no\n");
	}

	forked = map_anon(2 * MIB);
	madvise(forked, 2 * MIB, MADV_NOHUGEPAGE);
	touch(forked, 2 * MIB, PAGE);
	swap_out("forked", forked, 2 * MIB);

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		for (;;)
			pause();
	}
	/* the parent faults a quarter back in; the child keeps its entries */
	for (i = 0; i < MIB / 2; i += PAGE)
		buf[0] ^= forked[i];
	ready();
	wait_for_term();
	if (fd >= 0)
		unlink(path);
	return 0;
}

/* Split len bytes at p into VMAs by protecting every other page. */
static long split(char *p, size_t len, long want)
{
	long n = 1;
	size_t off;

	for (off = PAGE; off + PAGE < len && n + 2 <= want; off += 2 * PAGE) {
		if (mprotect(p + off, PAGE, PROT_READ))
			break;
		n += 2;
	}
	return n;
}

/*
 * @want VMAs (2 pages each at least) of which the first @mib MiB are
 * touched.  Only @mib MiB: the mapping is stretched to fit the VMAs, and
 * touching all of it made 65530 VMAs 512 MiB of a 1 GiB test guest, which
 * cost the selftests' lane three minutes of page faults and reclaim.
 */
static void make_vmas(long want, long mib)
{
	size_t len = (size_t)mib * MIB, touched = len;
	char *p;

	if (len < (size_t)want * 2 * PAGE)
		len = (size_t)want * 2 * PAGE;
	p = map_anon(len);
	touch(p, touched, PAGE);
	split(p, len, want);
}

static int vmas(long want, long mib)
{
	make_vmas(want, mib);
	ready();
	wait_for_term();
	return 0;
}

/*
 * What ASan and other sanitizers reserve: a huge shadow, almost all of it
 * never touched.  The walk's cost must follow the page tables, not the
 * bytes spanned.
 */
static int reserve(void)
{
	const size_t tib = 1UL << 40, rw = 2 * tib, stride = rw / 64;
	char *none, *p;
	size_t off;

	none = mmap(NULL, 16 * tib, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (none == MAP_FAILED)
		die("mmap 16 TiB PROT_NONE");
	p = mmap(NULL, rw, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		die("mmap 2 TiB");
	/*
	 * 64 pages, not 64 THPs: each touch makes its own PTE table.  A
	 * kernel without THP (EINVAL) or without madvise() at all (ENOSYS:
	 * the debug lane's has no CONFIG_ADVISE_SYSCALLS) has no THP to
	 * turn off.
	 */
	if (madvise(p, rw, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS)
		die("madvise(MADV_NOHUGEPAGE)");
	for (off = 0; off < rw; off += stride)
		p[off] = 1;
	ready();
	wait_for_term();
	return 0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/*
 * Every churn iteration's time, for its percentiles: the longest alone is
 * mostly the host (a vCPU thread descheduled: 10-25 ms with nobody reading,
 * bench/procmem part 3), the 99th percentile is what a reader costs the
 * writer.  1M iterations is more than 10 s of churn under TCG.
 */
#define CHURN_SAMPLES (1 << 20)
static long long churn_us[CHURN_SAMPLES];

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * One VMA of @mib MiB in small pages: smaps_rollup drops mmap_lock for a
 * writer only between VMAs (show_smaps_rollup()), so it walks all of this
 * one in one hold; our walk stops at the next PMD (procmem_walk.c).
 */
static void make_one_vma(long mib)
{
	size_t len = (size_t)mib * MIB;
	char *p = map_anon(len);

	/* a kernel without THP (EINVAL) or madvise() (ENOSYS) has no THP */
	if (madvise(p, len, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS)
		die("madvise(MADV_NOHUGEPAGE)");
	touch(p, len, PAGE);
}

static int churn(long want, long mib, bool one)
{
	long long t, d, max = 0, sum = 0;
	size_t n = 0;
	char *p;

	if (one)
		make_one_vma(mib);
	else if (want > 0)
		make_vmas(want, mib);
	ready();
	while (!stop) {
		t = now_us();
		p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap");
		touch(p, 64 * 1024, PAGE);
		munmap(p, 64 * 1024);
		d = now_us() - t;
		if (d > max)
			max = d;
		if (n < CHURN_SAMPLES)
			churn_us[n++] = d;
		sum += d;
	}
	printf("max_stall_us %lld\n", max);
	if (n) {
		qsort(churn_us, n, sizeof(churn_us[0]), cmp_ll);
		printf("stalls %zu mean_us %lld p99_us %lld p999_us %lld\n", n,
		       sum / (long long)n, churn_us[n * 99 / 100], churn_us[n * 999 / 1000]);
	}
	return 0;
}

static int exit_after(long want, long ms)
{
	char *p = map_anon((size_t)want * 2 * PAGE);

	touch(p, (size_t)want * 2 * PAGE, PAGE);
	split(p, (size_t)want * 2 * PAGE, want);
	ready();
	usleep(ms * 1000);
	return 0;
}

/*
 * Drop what lets root read another user's mm: CAP_SYS_PTRACE, and from
 * 7.x also CAP_PERFMON or CAP_SYS_ADMIN (mm_access() -> may_access_mm()).
 */
static int drop_ptrace_cap(void)
{
	static const int caps[] = { CAP_SYS_PTRACE, CAP_SYS_ADMIN, 38 /* CAP_PERFMON */ };
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned int i;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		data[caps[i] / 32].effective &= ~(1U << (caps[i] % 32));
		data[caps[i] / 32].permitted &= ~(1U << (caps[i] % 32));
	}
	return syscall(SYS_capset, &hdr, data);
}

static int noptrace(const char *file)
{
	char buf[8192], line[64];
	ssize_t n;
	int fd, err;

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (setuid(65534))
			_exit(1);
		for (;;)
			pause();
	}
	usleep(200000);
	if (drop_ptrace_cap())
		die("capset");
	/* what the kernel itself decides for /proc/PID/smaps_rollup */
	snprintf(buf, sizeof(buf), "/proc/%d/smaps_rollup", child);
	fd = open(buf, O_RDONLY);
	printf("proc_smaps %s\n", fd < 0 ? strerrorname_np(errno) : "ok");
	if (fd >= 0)
		close(fd);
	fd = open(file, O_RDWR);
	if (fd < 0)
		die("open");
	snprintf(line, sizeof(line), "%d\n", child);
	n = write(fd, line, strlen(line));
	err = n < 0 ? errno : 0;
	printf("write_other %s\n", n < 0 ? strerrorname_np(err) : "ok");
	/* the file still shows the reader itself */
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		die("read");
	buf[n] = '\0';
	printf("self %d\n", getpid());
	printf("first_record_pid %d\n",
	       atoi(strchr(buf, '\n') ? strchr(buf, '\n') + 1 : "0"));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}

static int named(const char *name)
{
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		_exit(0);
	}
	if (prctl(PR_SET_NAME, name, 0, 0, 0))
		die("prctl(PR_SET_NAME)");
	ready();
	wait_for_term();
	return 0;
}

/* the default hstate's size (Hugepagesize: N kB), 2 MiB if not found */
static long hugepage_size(void)
{
	long hsize = 2 * MIB;
	char line[128];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return hsize;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %ld kB", &hsize) == 1) {
			hsize *= 1024;
			break;
		}
	fclose(f);
	return hsize;
}

static int huge(long n)
{
	long hsize = hugepage_size();
	char *h, *thp;

	if (n > 0) {
		h = mmap(NULL, n * hsize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (h == MAP_FAILED)
			die("mmap MAP_HUGETLB");
		touch(h, n * hsize, hsize);
	}
	thp = map_anon(8 * MIB);
	thp = (char *)(((uintptr_t)thp + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(thp, 4 * MIB, MADV_HUGEPAGE);
	touch(thp, 4 * MIB, PAGE);
	ready();
	wait_for_term();
	return 0;
}

static void *map_huge(size_t len, int flags, int fd)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p == MAP_FAILED)
		die("mmap hugetlb");
	touch(p, len, (size_t)hugepage_size());
	return p;
}

static int hugetlb(const char *path)
{
	size_t hsize = (size_t)hugepage_size();
	char *priv, *g;
	int fd, ack[2];
	char c = 0;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open");
	/* hugetlbfs has no write(): a file gets its pages by a mapping */
	if (ftruncate(fd, 2 * hsize))
		die("ftruncate");
	priv = map_huge(2 * hsize, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
			-1);
	if (madvise(map_huge(hsize, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB,
			     -1), hsize, MADV_DONTFORK) ||
	    madvise(map_huge(2 * hsize, MAP_SHARED, fd), 2 * hsize,
		    MADV_DONTFORK))
		die("madvise(MADV_DONTFORK)");
	if (pipe(ack))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		/* the private range's second page: the parent's alone */
		if (munmap(priv + hsize, hsize))
			die("munmap");
		/* a mapping of its own of FILE's first page, read */
		g = mmap(NULL, hsize, PROT_READ, MAP_SHARED, fd, 0);
		if (g == MAP_FAILED)
			die("mmap FILE");
		c = g[0];	/* written to the pipe: the read stays */
		if (write(ack[1], &c, 1) != 1)
			die("write");
		for (;;)
			pause();
	}
	if (read(ack[0], &c, 1) != 1)
		die("the child did not map FILE");
	ready();
	wait_for_term();
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "basic"))
		return basic(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "vmas"))
		return vmas(atol(argv[2]), atol(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "churn"))
		return churn(0, 0, false);
	if (argc == 4 && !strcmp(argv[1], "churn"))
		return churn(atol(argv[2]), atol(argv[3]), false);
	if (argc == 3 && !strcmp(argv[1], "churn-one"))
		return churn(0, atol(argv[2]), true);
	if (argc == 3 && !strcmp(argv[1], "swap"))
		return swapped(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "exit"))
		return exit_after(atol(argv[2]), atol(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "reserve"))
		return reserve();
	if (argc == 3 && !strcmp(argv[1], "noptrace"))
		return noptrace(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "name"))
		return named(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "huge"))
		return huge(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "hugetlb"))
		return hugetlb(argv[2]);
	fprintf(stderr, "usage: memtarget basic DIR | vmas N MIB | churn [N MIB] | churn-one MIB | swap DIR | exit N MS | reserve | noptrace FILE | name NAME | huge N | hugetlb FILE\n");
	return 2;
}
