#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of a lab machine without its running kernel's headers (README.md, "On a lab
# machine"): `make`, `make install` and `make dkms-install` stop at once, before building or
# fetching anything, with status 2 and the command that installs the headers
# (apt-get install linux-headers-RELEASE); an explicit KDIR that does not exist is named;
# `make KERNEL=6.1` (the matrix build) still builds, the missing headers notwithstanding.
# A fake uname on PATH makes the running release one with no /lib/modules/RELEASE/build.
# Runs in a copy of the checkout's files (as git lists them) under a scratch directory, in a
# private mount namespace with empty /usr/src and /var/lib/dkms and a fake dkms on PATH: a
# regression that went on to install writes nothing on this machine. TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/selftests/tap.sh"
tap_open

rel=0.0.0-mi-noheaders
mkdir -p "$t/bin" "$t/src" "$t/stage"
cat >"$t/bin/uname" <<EOT
#!/bin/sh
[ "\$1" = -r ] && { echo $rel; exit 0; }
exec /bin/uname "\$@"
EOT
printf '#!/bin/sh\necho "fake dkms $*" >>%s/dkms-calls\n' "$t" >"$t/bin/dkms"
chmod +x "$t/bin/uname" "$t/bin/dkms"
(cd "$top" && { git ls-files -co --exclude-standard 2>/dev/null ||
	find . -path ./build -prune -o -type f -print; } |
	while IFS= read -r f; do [ ! -f "$f" ] || echo "$f"; done | cpio -pdm --quiet "$t/src")

# mk LOG MAKE-ARGS...: make in the copy, no headers, nothing of the machine's writable
mk() {
	local log=$1
	shift
	timeout 300 unshare --mount --propagation private /bin/bash -c '
		mount -t tmpfs none /usr/src && mkdir -p /var/lib/dkms && mount -t tmpfs none /var/lib/dkms &&
		exec "$@"' mk env PATH="$t/bin:$PATH" make -C "$t/src" "$@" >"$log" 2>&1
}
# what a make that went on would leave: staged files, objects, modules
stage_files() { find "$t/stage" -type f; find "$t/src" -name '*.o' -o -name '*.ko'; }

want="apt-get install linux-headers-$rel"
for goal in "" install dkms-install; do
	s=$(date +%s%N)
	mk "$t/out" $goal DESTDIR="$t/stage" PREFIX=/usr/local
	rc=$? ms=$((($(date +%s%N) - s) / 1000000))
	built=$(stage_files)
	[ "$rc" = 2 ] && grep -qF "'$want'" "$t/out" && ! grep -q 'building for matrix kernel' "$t/out" &&
		[ -z "$built" ] && [ ! -e "$t/dkms-calls" ] && [ ! -e "$t/src/userspace/meminspect" ]
	tap_result $? "make ${goal:-(all)} without headers: status $rc in $ms ms, names '$want', builds nothing" \
		"$(head -c 2000 "$t/out"; echo "built: $built"; cat "$t/dkms-calls" 2>/dev/null)"
done

mk "$t/out" KDIR=/nonexistent/kdir
rc=$?
[ "$rc" = 2 ] && grep -q 'no kernel build tree at KDIR=/nonexistent/kdir' "$t/out"
tap_result $? "make KDIR=/nonexistent/kdir: status $rc, names that KDIR" "$(head -c 2000 "$t/out")"

# The targets that never read KDIR work without headers as ever.
mk "$t/out" -s userspace
tap_result $? "make userspace without headers builds the reader" "$(tail -n 20 "$t/out")"

# The matrix build: its kernel fetched into the shared cache (warm: nothing to fetch), built
# in a build root; MI_NO_CCACHE is left as the caller has it (make check: replay or ccache).
s=$(date +%s)
mk "$t/out" KERNEL=6.1
rc=$?
[ "$rc" = 0 ] && [ -f "$t/src/build/6.1/module/meminspect.ko" ] &&
	[ -f "$t/src/build/6.1/helper/meminspect_test.ko" ]
tap_result $? "make KERNEL=6.1 without the running kernel's headers builds build/6.1/ ($(($(date +%s) - s)) s)" \
	"$(tail -n 20 "$t/out")"
tap_close
