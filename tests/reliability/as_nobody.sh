#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# as_nobody.sh TEST_BINARY GTEST_FILTER: runs the tests as user nobody with no capabilities and
# RLIMIT_RTPRIO 0 (setpriv), from a copy nobody can read when the build tree is private.
# Exit 77 (ctest SKIP_RETURN_CODE) with the reason when that is not possible here.
set -u
binary=$1
filter=$2
skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "switching to nobody needs root (running as $(id -un))"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
id nobody >/dev/null 2>&1 || skip "there is no user nobody"
group=nogroup
getent group nogroup >/dev/null || group=nobody
as_nobody=(setpriv --reuid=nobody --regid="$group" --clear-groups --inh-caps=-all)
"${as_nobody[@]}" true 2>/dev/null || skip "setpriv cannot switch to nobody here (no CAP_SETUID?)"

dir=""
trap '[ -n "$dir" ] && rm -rf "$dir"' EXIT
if ! "${as_nobody[@]}" test -x "$binary"; then
    dir=$(mktemp -d /tmp/ctxscope-nobody-XXXXXX)
    cp "$binary" "$dir/"
    chmod 755 "$dir" "$dir/$(basename "$binary")"
    binary=$dir/$(basename "$binary")
fi
ulimit -r 0 # root may hold RLIMIT_RTPRIO above 0; nobody must not inherit it
cd /tmp
CTXSCOPE_REQUIRE_UNPRIVILEGED=1 "${as_nobody[@]}" "$binary" --gtest_filter="$filter"
