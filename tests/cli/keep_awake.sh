#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# keep_awake.sh CLI: `run futex --keep-awake` is an A/B (as is, then kept awake) with a verdict,
# both results in the JSON with the condition in the second's; SIGTERM mid-run leaves no
# keep-awake thread; without the right to open /dev/cpu_dma_latency, --pm-qos-us is one sentence
# and exit 2. As root (CI), a traced run beside a busy loop on the wakee's CPU names the loop as
# what the wakee waited behind or preempted. Needs two allowed CPUs (exit 77 otherwise).
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-awake-XXXXXX)
bg=""
loop=""
cleanup() {
    [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
    [ -n "$loop" ] && kill -9 "$loop" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
cpus=$(taskset -pc $$ | sed 's/.*: //')
first=$(python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(c[0], c[-1]) if len(c) > 1 else print("")')
[ -n "$first" ] || { echo "SKIPPED: needs two allowed CPUs (allowed: $cpus)"; exit 77; }
a=${first% *}
b=${first#* }
# The CPUs as the CLI writes a list (formatCpuList): "0-1" for a run, "0,3" otherwise.
kept=$(python3 -c "a, b = $a, $b; print(f'{a}-{b}' if b == a + 1 else f'{a},{b}')")

"$cli" run futex --cpus "$a,$b" --iterations 2000 --repetitions 3 --keep-awake "$a,$b" --json "$dir/r.json" \
    >"$dir/out.txt" 2>"$dir/err.txt" || fail "the A/B failed: $(cat "$dir/err.txt")"
grep -q "^with keep-awake $kept:" "$dir/out.txt" || fail "no kept-awake run: $(cat "$dir/out.txt")"
grep -q "^keep-awake: 2 threads took .* of CPU time" "$dir/out.txt" || fail "no keep-awake CPU time: $(cat "$dir/out.txt")"
grep -qE "^A/B: With keep-awake $kept, the futex op took|^A/B: With keep-awake $kept: No conclusion" "$dir/out.txt" ||
    fail "no A/B verdict: $(cat "$dir/out.txt")"
python3 - "$dir/r.json" "$kept" <<'PY' || fail "the JSON lacks the A/B's condition"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"]
assert len(b) == 2, len(b)
assert "condition" not in b[0], b[0].get("condition")
c = b[1]["condition"]
assert c["text"] == "keep-awake " + sys.argv[2], c
assert len(c["keep_awake_tasks"]) == 2 and c["keep_awake_cpu_ns"] > 0, c
assert b[0]["name"] != b[1]["name"]
PY

# SIGTERM mid-run: the process ends, and no keep-awake thread is left anywhere. The A/B runs the
# placement as is first: the kept-awake side starts after it (a second or two on a fast machine,
# about 10 s on a 2-vCPU VM), and is stopped while it runs.
"$cli" run futex --cpus "$a,$b" --iterations 200000 --repetitions 3 --keep-awake "$b" >/dev/null 2>&1 &
bg=$!
for _ in $(seq 1 600); do
    grep -qx ctxscope-awake /proc/"$bg"/task/*/comm 2>/dev/null && break
    sleep 0.05
done
grep -qx ctxscope-awake /proc/"$bg"/task/*/comm 2>/dev/null || fail "no keep-awake thread while the run went on"
kill -TERM "$bg"
wait "$bg"
code=$?
bg=""
[ "$code" -eq 130 ] || fail "SIGTERM gave exit $code, expected 130"
if grep -qx ctxscope-awake /proc/[0-9]*/task/*/comm 2>/dev/null; then fail "a keep-awake thread outlived the run"; fi

if [ "$(id -u)" -ne 0 ]; then
    "$cli" run futex --cpus "$a,$b" --pm-qos-us 0 >"$dir/out.txt" 2>"$dir/err.txt"
    [ $? -eq 2 ] || fail "--pm-qos-us without permission did not exit 2"
    grep -q "needs permission to open /dev/cpu_dma_latency" "$dir/err.txt" || fail "$(cat "$dir/err.txt")"
    echo "SKIPPED: the traced run beside a busy loop needs root (running as $(id -un))"
    exit 77
fi

# As root: a traced run beside a busy loop pinned on the wakee's CPU says it waited behind it.
cp "$(command -v bash)" "$dir/ctxs-busyloop" # its comm names it
taskset -c "$b" "$dir/ctxs-busyloop" -c 'while :; do :; done' &
loop=$!
sleep 0.2
"$cli" run futex --cpus "$a,$b" --iterations 300 --repetitions 1 --trace --trace-ops 300 >"$dir/out.txt" \
    2>"$dir/err.txt" || fail "the traced run failed: $(cat "$dir/err.txt")"
kill -9 "$loop"
loop=""
grep -q "running a task it waited behind" "$dir/out.txt" || fail "no target-state rows: $(cat "$dir/out.txt")"
# Named either way, never a plain switch-in: a kernel that preempts the loop at the wake-up
# (EEVDF, 6.6 and later, usually does within microseconds) gives "preempting", one that lets it
# run out its slice "waiting behind".
grep -qE "(waiting behind|preempting) ctxs-busyloop" "$dir/out.txt" || fail "the loop is not named: $(cat "$dir/out.txt")"
echo "PASS"
