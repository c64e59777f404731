#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracefs_shared.sh CLI: two ctxscope processes trace at once where tracefs was not mounted.
# The first mounts it and ends first: it must not unmount it under the second, still tracing
# (whose trace would then fail); the last to end unmounts what ctxscope mounted. Run in a
# private mount namespace (unshare -m) with tracefs unmounted there, so the machine's own
# tracefs is never touched. Needs root; exit 77 with the reason otherwise.
set -u
cli=$1
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: mounting tracefs needs root (running as $(id -un))"; exit 77; }
command -v unshare >/dev/null || { echo "SKIPPED: no unshare (util-linux)"; exit 77; }
unshare -m --propagation private true 2>/dev/null || { echo "SKIPPED: no private mount namespace here"; exit 77; }

exec unshare -m --propagation private bash -s "$cli" <<'INNER'
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-tracefs-XXXXXX)
first=""
long=""
cleanup() { for p in $first $long; do kill -9 "$p" 2>/dev/null; done; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
tracefs() { awk '$3 == "tracefs" { print $2 }' /proc/self/mounts; }
for m in $(tracefs | sort -r); do umount -l "$m" || fail "could not unmount $m in the private namespace"; done
[ -z "$(tracefs)" ] || fail "tracefs is still mounted in the private namespace: $(tracefs)"

# Waits until the traced run PID has its instance (so tracefs is mounted and in use by it).
traces() {
    for _ in $(seq 1 300); do
        ls -d "$(tracefs | head -1)"/instances/ctxscope-"$1"-* >/dev/null 2>&1 && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
run_traced() { # OPS OUT, backgrounded: exec, so $! is ctxscope's PID
    exec "$cli" run futex --cpus 0,0 --iterations 1000 --repetitions 1 --trace --trace-backend ftrace --trace-ops "$1" \
        --trace-buffer 131072 \
        >"$2" 2>&1
}

# The first mounts tracefs; the second starts while the first traces and outlives it: it traces
# the most a trace holds, so that it still traces when the first has ended, the first's analysis
# of its events included (seconds under a sanitizer). With fewer ops the second could finish
# tracing first, and the first, then rightly the last user, unmounted.
run_traced 150000 "$dir/first.txt" &
first=$!
traces "$first" || fail "the first traced run never traced: $(cat "$dir/first.txt")"
run_traced 1000000 "$dir/second.txt" &
long=$!
traces "$long" || fail "the second traced run never traced: $(cat "$dir/second.txt")"
# Both trace at once (a second ctxscope never waits for the first to end).
ls -d "$(tracefs | head -1)"/instances/ctxscope-"$first"-* >/dev/null 2>&1 ||
    fail "the first traced run had ended (or the second waited for it) before the second began tracing"
wait "$first" || fail "the first traced run failed: $(tail -3 "$dir/first.txt")"
first=""
kill -0 "$long" 2>/dev/null || fail "the second traced run ended before the first did: the test proves nothing"
[ -n "$(tracefs)" ] || fail "the first traced run, which mounted tracefs, unmounted it under the second"
wait "$long"
code=$?
long=""
[ "$code" -eq 0 ] || fail "the second traced run failed ($code) once the first ended: $(tail -3 "$dir/second.txt")"
grep -q "^traced: " "$dir/second.txt" || fail "the second traced run printed no 'traced:' line: $(tail -3 "$dir/second.txt")"
[ -z "$(tracefs)" ] || fail "tracefs stayed mounted after the last ctxscope ended: $(tracefs)"
echo "PASS: the run that mounted tracefs left it to the one still tracing, which unmounted it last"
INNER
