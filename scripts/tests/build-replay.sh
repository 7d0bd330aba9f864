#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host test of scripts/build-replay, the products of lint's clean module builds put back
# instead of building again (scripts/lint, the Makefile's build-kernel targets): in a scratch
# git checkout holding copies of the scripts and stand-in sources, with a scratch cache (a
# kernel's ready stamp, a build root's stamp and dpkg status, no kernel and no debootstrap).
# The same inputs give the same entry (asked for one build or three at once), which restores
# what was kept, newer than the sources, found by its inputs or by the key given;
# a changed or new source file, a touched or remade kernel, another package in the root or
# another sub-build gives another entry, and nothing to restore; MI_NO_CCACHE=1 and a kernel
# the user built (own-*) replay nothing; a comment in scripts/lib.sh changes nothing; keep
# leaves the newest 108 entries. TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/selftests/tap.sh"
tap_open

# the checkout: the scripts build-replay runs and hashes, stand-ins for the rest
s=$t/src
mkdir -p "$s/scripts" "$s/module" "$s/selftests/helper"
cp "$top"/scripts/{build-replay,build-root,build-roots,lib.sh} "$s/scripts/"
for f in Makefile Kbuild scripts/kbuild scripts/in-root scripts/sparse-cache scripts/lint; do
	echo "# $f" >"$s/$f"
done
echo 'int a;' >"$s/module/a.c"
echo 'int b;' >"$s/selftests/helper/b.c"
git -C "$s" init -q && git -C "$s" add -A && git -C "$s" -c user.name=t -c user.email=t@t commit -qm t
# the cache: kernel 6.1 "fetched", its bookworm root "made" (build-root finds its stamp)
export MEMINSPECT_CACHE=$t/cache
mkdir -p "$t/cache/kernels/6.1" "$t/cache/roots/bookworm/var/lib/dpkg"
echo 6.1-release >"$t/cache/kernels/6.1/ready"
read -r _ suite pkgs <<<"$(grep '^bookworm ' "$s/scripts/build-roots")"
echo "$suite $pkgs" >"$t/cache/roots/bookworm/.ready"
echo 'Package: gcc-12' >"$t/cache/roots/bookworm/var/lib/dpkg/status"

br() { "$s/scripts/build-replay" "$@"; }
k0=$(br key 6.1 module)
tap_check "a key for kernel 6.1's module build" test -n "$k0"
tap_is "the same inputs: the same key" "$(br key 6.1 module)" "$k0"
tap_is "keys of three builds at once: each as asked alone" "$(br key 6.1 module helper kunit | tr '\n' ' ')" \
	"$k0 $(br key 6.1 helper) $(br key 6.1 kunit) "
mkdir -p "$t/built" "$t/out"
echo ko >"$t/built/meminspect.ko"
: >"$t/built/.built"
echo obj >"$t/built/a.o"
tap_check "nothing to restore before a keep" sh -c '! "$0" restore 6.1 module "$1"' "$s/scripts/build-replay" "$t/out"
tap_check "keep" br keep 6.1 module "$t/built"
sleep 1.1
touch "$s/module/a.c"
tap_check "restore after keep" br restore 6.1 module "$t/out"
tap_is "restored: the .ko files and .built, not the objects" "$(cd "$t/out" && ls -A | tr '\n' ' ')" ".built meminspect.ko "
tap_check "restored products newer than the sources (make finds them built)" test "$t/out/meminspect.ko" -nt "$s/module/a.c"
tap_check "restore by the key given (as lint does): the same products" \
	sh -c '"$0" restore 6.1 module "$1" "$2" && [ -f "$1/meminspect.ko" ]' "$s/scripts/build-replay" "$t/out4" "$k0"

differs() { # DESCRIPTION: the key now differs from k0 and restore finds nothing
	local k
	k=$(br key 6.1 module)
	rm -rf "$t/out2"
	tap_check "$1: another key, nothing to restore" \
		sh -c '[ -n "$1" ] && [ "$1" != "$2" ] && ! "$3" restore 6.1 module "$4"' sh "$k" "$k0" \
		"$s/scripts/build-replay" "$t/out2"
}
undo() { git -C "$s" checkout -q -- . && git -C "$s" clean -qfd; }

echo '# a comment' >>"$s/scripts/lib.sh"
tap_is "a comment added to scripts/lib.sh: the same key" "$(br key 6.1 module)" "$k0"
undo
echo 'int c;' >>"$s/module/a.c"
differs "a module source changed"
undo
echo 'int d;' >"$s/module/new.c"
differs "a new, untracked module source"
undo
echo 'int e;' >>"$s/selftests/helper/b.c"
differs "a helper source changed"
undo
echo '# changed' >>"$s/Makefile"
differs "the Makefile changed"
undo
echo '# changed' >>"$s/scripts/lint"
differs "lint changed"
undo
tap_is "after the changes are undone: the same key again" "$(br key 6.1 module)" "$k0"
touch -d '@1' "$t/cache/kernels/6.1/ready"
differs "the kernel's ready stamp remade (its mtime)"
echo 6.1-release >"$t/cache/kernels/6.1/ready"
touch -d '@1' "$t/cache/kernels/6.1/ready"
k1=$(br key 6.1 module)
echo 6.1-other >"$t/cache/kernels/6.1/ready"
touch -d '@1' "$t/cache/kernels/6.1/ready"
tap_check "the kernel's ready stamp says another build: another key" test "$(br key 6.1 module)" != "$k1"
echo 6.1-release >"$t/cache/kernels/6.1/ready"
touch -d '@1' "$t/cache/kernels/6.1/ready"
echo 'Package: sparse' >>"$t/cache/roots/bookworm/var/lib/dpkg/status"
tap_check "another package in the build root: another key" test "$(br key 6.1 module)" != "$k1"
tap_check "another sub-build (helper): another key" test "$(br key 6.1 helper)" != "$(br key 6.1 module)"
tap_is "MI_NO_CCACHE=1: no key" "$(MI_NO_CCACHE=1 br key 6.1 module)" ""
tap_check "MI_NO_CCACHE=1: nothing restored" sh -c '! MI_NO_CCACHE=1 "$0" restore 6.1 module "$1"' \
	"$s/scripts/build-replay" "$t/out3"
for i in $(seq 1 110); do br keep 6.1 module "$t/built" "k$i"; done
tap_is "keep keeps the newest 108 entries" "$(ls "$t/cache/ccache/builds" | wc -l)" 108
tap_check "the newest kept" test -f "$t/cache/ccache/builds/k110.tar"
tap_is "a kernel the user built (own-*): no key" "$(br key own-mine module)" ""
rm -rf "$s/.git"
tap_is "outside a git checkout: no key" "$(br key 6.1 module)" ""
tap_close
