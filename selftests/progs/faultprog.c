// SPDX-License-Identifier: GPL-2.0
/*
 * faultprog: a workload for the fault injection tests (test_fault_task.sh,
 * test_fault_storm.sh).
 *
 *   faultprog open N [fork]
 *     Prints "pid P" (and "child C" with fork: a child forked now, before
 *     any arming, that does the same), flushes, then waits for SIGUSR1.
 *     On it, each process calls open("/", O_RDONLY) N times (closing each
 *     fd; getname() allocates, so an injected failure is ENOMEM), waits for
 *     a second SIGUSR1 and prints "P ok K enomem E other O".
 *   faultprog storm SECONDS
 *     Grows its stack and locks everything in memory (mlockall), so that
 *     an injected failure shows as a syscall error rather than in a page
 *     fault; then prints "pid P" (started: the test may arm), waits for
 *     SIGUSR1, and for SECONDS vforks children that each call pipe() and
 *     open() and exit, and reaps them.  Prints "forks F fork_errors E
 *     child_errors C" at the end.
 *
 *     vfork, not fork: a forked child maps its text afresh (fork copies no
 *     page table of a file mapping without anon pages), and an injected
 *     failure there (a page table, a page) is VM_FAULT_OOM, which the fault
 *     path retries for as long as the storm lasts, the parent waiting in
 *     waitpid() with nothing to report (6.12-arm64, 4 Dec 2026: 898716
 *     failures in one child's __do_fault, no error seen).  A vforked child
 *     runs in the parent's locked memory and faults nothing; the storm still
 *     fails copy_process() (task_struct, stack, credentials) and the
 *     child's pipe() and open().
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void wait_usr1(const sigset_t *set)
{
	int sig;

	do {
		if (sigwait(set, &sig))
			sig = 0;
	} while (sig != SIGUSR1);
}

static int do_open(long n, const sigset_t *set)
{
	long i, ok = 0, enomem = 0, other = 0;
	int fd;

	wait_usr1(set);
	for (i = 0; i < n; i++) {
		fd = open("/", O_RDONLY);
		if (fd >= 0) {
			ok++;
			close(fd);
		} else if (errno == ENOMEM) {
			enomem++;
		} else {
			other++;
		}
	}
	wait_usr1(set);
	printf("%d ok %ld enomem %ld other %ld\n", getpid(), ok, enomem, other);
	fflush(stdout);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fault in the stack below us, so that the storm's calls find it there. */
static __attribute__((noinline)) void grow_stack(void)
{
	volatile char pad[256 * 1024];

	memset((char *)pad, 1, sizeof(pad));
}

/*
 * One storm child: vforked (above), it calls pipe() and open() and exits
 * 1 if either failed.  A function of its own: nothing of the caller's is
 * live across vfork() for the child to clobber.
 */
static __attribute__((noinline)) pid_t spawn_child(void)
{
	pid_t pid = vfork();
	int p[2], fd, bad;

	if (pid != 0)
		return pid;
	bad = pipe(p) != 0;
	if (!bad)
		close(p[0]), close(p[1]);
	fd = open("/", O_RDONLY);
	if (fd < 0)
		bad = 1;
	else
		close(fd);
	_exit(bad);
}

static int do_storm(double seconds, const sigset_t *set)
{
	long forks = 0, fork_errors = 0, child_errors = 0;
	double end;
	int status;
	pid_t pid;

	grow_stack();
	mlockall(MCL_CURRENT);
	/*
	 * The vDSO's data page (vvar) is a PFN mapping, which mlockall()
	 * does not fault in, and its page table may be one of its own: read
	 * the clock once now, disarmed.  Else the storm's first now() faults
	 * it armed, the failed page table is VM_FAULT_OOM, retried until the
	 * disarm, and the loop then runs its SECONDS disarmed (6.12, 4 Dec
	 * 2026: 409187 failures all in pte_alloc_one, 33837 clean forks).
	 */
	now();
	/* started: the test may arm now, nothing of the start-up is left */
	printf("pid %d\n", getpid());
	fflush(stdout);
	wait_usr1(set);
	end = now() + seconds;
	while (now() < end) {
		pid = spawn_child();
		if (pid < 0) {
			fork_errors++;
			continue;
		}
		forks++;
		if (waitpid(pid, &status, 0) == pid &&
		    (!WIFEXITED(status) || WEXITSTATUS(status)))
			child_errors++;
	}
	printf("forks %ld fork_errors %ld child_errors %ld\n", forks,
	       fork_errors, child_errors);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t set;
	pid_t child = 0;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (argc >= 3 && !strcmp(argv[1], "storm"))
		return do_storm(atof(argv[2]), &set);
	if (argc < 3 || strcmp(argv[1], "open")) {
		fprintf(stderr, "usage: faultprog open N [fork] | storm SECONDS\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	if (argc > 3 && !strcmp(argv[3], "fork")) {
		fflush(stdout);
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0)
			return do_open(atol(argv[2]), &set);
		printf("child %d\n", child);
	}
	fflush(stdout);
	ret = do_open(atol(argv[2]), &set);
	if (child > 0)
		waitpid(child, NULL, 0);
	return ret;
}
