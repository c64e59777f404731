#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pin_kthreads.sh CLI refuse|move: re-pinning kthreadd (TID 2) through the real binary.
#   refuse: `pin 2 CPU` (CPU: the first this test may use, 0 on most machines) exits 2 with one
#           sentence on stderr that names kthreadd, the consequence and --kernel-threads, prints
#           nothing on stdout, and leaves kthreadd where it was.
#   move:   with --kernel-threads, kthreadd is moved to that one CPU, then given back its list
#           with `pin --process 2 LIST --kernel-threads`, each checked with taskset -p. Needs
#           root (CAP_SYS_NICE); the trap puts kthreadd back with taskset whatever fails.
# Prints SKIP: where TID 2 is not kthreadd (a container's PID namespace).
set -u
cli=$1
mode=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v taskset >/dev/null || fail "taskset (util-linux) is missing"
[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || { echo "SKIP: TID 2 is not kthreadd here"; exit 0; }
dir=$(mktemp -d /tmp/ctxscope-pin-kthreads-XXXXXX)
# shellcheck source=../workload.sh
. "$(dirname "$0")/../workload.sh"
original=$(affinity 2)
list=$(echo "$original" | tr ' ' ,)
cleanup() {
    [ "$(affinity 2)" = "$original" ] || taskset -cp "$list" 2 >/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
mine=$(affinity $$)
cpu=${mine%% *}

case $mode in
refuse)
    "$cli" pin 2 "$cpu" >"$dir/out" 2>"$dir/err"
    code=$?
    [ "$code" -eq 2 ] || fail "pin 2 $cpu exited $code, expected 2: $(cat "$dir/out" "$dir/err")"
    [ ! -s "$dir/out" ] || fail "a refused pin printed on stdout: $(cat "$dir/out")"
    [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$dir/err")"
    grep -q "thread 2 (kthreadd) creates every kernel thread: .*CPU $cpu.*; add --kernel-threads to move it anyway" \
        "$dir/err" || fail "not the sentence: $(cat "$dir/err")"
    [ "$(affinity 2)" = "$original" ] || fail "kthreadd moved to $(affinity 2) although refused"
    echo "refused: $(cat "$dir/err")"
    ;;
move)
    [ "$(id -u)" -eq 0 ] || { echo "SKIP: moving kthreadd needs root"; exit 0; }
    [[ " $mine " == *" ${original%% *} "* ]] || { echo "SKIP: kthreadd's CPUs are not all usable here"; exit 0; }
    out=$("$cli" pin 2 "$cpu" --kernel-threads) || fail "pin 2 $cpu --kernel-threads failed: $out"
    [[ $out == "thread 2 (kthreadd): "*" -> $cpu" ]] || fail "pin printed: $out"
    [ "$(affinity 2)" = "$cpu" ] || fail "taskset -p says $(affinity 2) after pinning kthreadd to $cpu"
    out=$("$cli" pin --process 2 "$list" --kernel-threads) || fail "pin --process 2 $list --kernel-threads failed: $out"
    [[ $out == "thread 2 (kthreadd): $cpu -> "* ]] || fail "the restore printed: $out"
    [ "$(affinity 2)" = "$original" ] || fail "taskset -p says $(affinity 2) after restoring $list"
    echo "moved and restored: $out"
    ;;
*) fail "mode $mode: expected refuse or move" ;;
esac
echo "PASS"
