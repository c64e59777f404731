#!/bin/sh
# SPDX-License-Identifier: MIT
# What the BPF watch's programs cost, by the kernel's own count: each ctxscope_* program's runs
# and run time (`bpftool prog show`'s run_cnt and run_time_ns) over a window of `ctxscope-cli
# watch PID --backend bpf`, on two programs:
#   pingpong  `workload pingpong` pinned to CPU: each thread's values touched every few µs
#   sleepers  `workload sleepers --threads THREADS`: each thread's values last touched 100 ms
#             before its wake-up
# Per program its ns a run; and all the programs' time over the wake-ups in the window (the runs
# of ctxscope_waking, on sched_waking: every task's wake-up on the machine, the watched
# program's nearly all of them here; a ping-pong makes 1.1 to 1.2 a round trip, not two, as the
# woken thread often preempts its waker, which then finds its answer and does not sleep): the
# probes' time a wake-up, their runs for other processes' events (each returns at its first
# compare) included. The kernel's count leaves out the tracepoint's call into a program
# (tests/perf/bpf_hook_cost.sh measures that floor) and adds two clock reads a run.
# The kernel counts run times only while statistics are enabled: a helper holds them enabled
# through BPF_ENABLE_STATS, whose file descriptor turns them off again when it closes, so that no
# exit of this script (SIGKILL included: the helper ends by itself after its window) leaves them
# on; kernel.bpf_stats_enabled is never written.
# Needs root, bpftool, python3, taskset and jq. Never part of ctest.
# Usage: tests/perf/watch_prog_cost.sh [path/to/ctxscope-cli]
#   env: CPU=0 CPU2=1 ROUNDS=3 THREADS=1000 WINDOW_S=4 OUT=file.json
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
CPU2=${CPU2:-1}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1000}
W=${WINDOW_S:-4}
for tool in bpftool python3 taskset jq; do
    command -v "$tool" >/dev/null || { echo "watch_prog_cost.sh: $tool is not installed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "watch_prog_cost.sh: needs root (BPF)" >&2; exit 2; }
case $(uname -m) in # the bpf system call's number
    x86_64) BPF_NR=321 ;;
    aarch64) BPF_NR=280 ;;
    *) echo "watch_prog_cost.sh: the bpf system call's number on $(uname -m) is not known here" >&2; exit 2 ;;
esac
TMP=$(mktemp -d)
PROGRAM=""
WATCH=""
STATS=""
cleanup() {
    for p in $PROGRAM $WATCH $STATS; do kill "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }

# stats SECONDS: holds the kernel's BPF run-time statistics on for SECONDS, or until killed.
stats() {
    python3 -c '
import ctypes, sys, time
attr = ctypes.create_string_buffer(16)  # union bpf_attr: enable_stats.type = BPF_STATS_RUN_TIME (0)
fd = ctypes.CDLL(None, use_errno=True).syscall(int(sys.argv[2]), 32, attr, 16)  # bpf(BPF_ENABLE_STATS, ...)
if fd < 0:
    sys.exit("BPF_ENABLE_STATS refused: errno %d" % ctypes.get_errno())
print("on", flush=True)
time.sleep(float(sys.argv[1]))' "$1" "$BPF_NR" >"$TMP/stats.txt" &
    STATS=$!
    for _ in $(seq 50); do
        [ -s "$TMP/stats.txt" ] && return 0
        kill -0 "$STATS" 2>/dev/null || break
        sleep 0.1
    done
    echo "watch_prog_cost.sh: could not enable the kernel's BPF statistics" >&2
    exit 2
}

# snapshot FILE: every ctxscope program's runs and run time, and when.
snapshot() {
    t=$(now)
    bpftool prog show -j | jq --argjson t "$t" \
        '{t: $t, progs: (map(select((.name // "") | startswith("ctxscope_"))) | map({key: .name, value: {runs: (.run_cnt // 0), ns: (.run_time_ns // 0)}}) | from_entries)}' \
        >"$1"
}

# round WORKLOAD: one watch window; prints one JSON object.
round() {
    : >"$TMP/program.txt"
    if [ "$1" = pingpong ]; then
        taskset -c "$CPU" "$CLI" workload pingpong --duration $((W + 8)) >"$TMP/program.txt" 2>&1 &
    else
        "$CLI" workload sleepers --threads "$THREADS" --duration $((W + 8)) >"$TMP/program.txt" 2>&1 &
    fi
    PROGRAM=$!
    pid=""
    for _ in $(seq 100); do
        pid=$(sed -n 's/.*(PID \([0-9]*\)).*/\1/p' "$TMP/program.txt")
        [ -n "$pid" ] && break
        sleep 0.1
    done
    [ -n "$pid" ] || { echo "watch_prog_cost.sh: the $1 program did not start" >&2; exit 2; }
    stats $((W + 6))
    taskset -c "$CPU2" "$CLI" watch "$pid" --backend bpf --interval 0.5 --duration $((W + 3)) >/dev/null \
        2>>"$TMP/watch.log" &
    WATCH=$!
    sleep 1.5
    snapshot "$TMP/a.json"
    sleep "$W"
    snapshot "$TMP/b.json"
    wait "$WATCH" || { echo "watch_prog_cost.sh: the watch failed (see below)" >&2; cat "$TMP/watch.log" >&2; exit 2; }
    WATCH=""
    kill "$STATS" 2>/dev/null || true
    STATS=""
    wait "$PROGRAM" || true
    PROGRAM=""
    jq -n --arg w "$1" --slurpfile x "$TMP/a.json" --slurpfile y "$TMP/b.json" '
        ($x[0]) as $x | ($y[0]) as $y
        | [$y.progs | to_entries[] | select($x.progs[.key] != null)
            | {name: .key, runs: (.value.runs - $x.progs[.key].runs), ns: (.value.ns - $x.progs[.key].ns)}
            | select(.runs > 0)] as $p
        | ($y.t - $x.t) as $span
        | (($p | map(select(.name == "ctxscope_waking") | .runs) | add // 0) / $span) as $wakeups
        | {workload: $w, wakeups_per_s: $wakeups,
           programs: ($p | map({key: (.name | ltrimstr("ctxscope_")),
               value: {runs_per_s: (.runs / $span), ns_per_run: (.ns / .runs)}}) | from_entries),
           ns_per_wakeup: (if $wakeups > 0 then ($p | map(.ns) | add) / $span / $wakeups else null end)}'
}

: >"$TMP/rounds.jsonl"
for _ in $(seq "$ROUNDS"); do
    for w in pingpong sleepers; do
        round "$w" | tee -a "$TMP/rounds.jsonl" | jq -c '{workload, ns_per_wakeup}' >&2
    done
done

jq -s --argjson threads "$THREADS" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    . as $rounds
    | {threads: $threads, rounds: $rounds, workloads: [ $rounds | group_by(.workload)[] | . as $g
        | {workload: $g[0].workload,
           wakeups_per_s: ([$g[].wakeups_per_s] | median),
           ns_per_wakeup: ([$g[] | .ns_per_wakeup | select(. != null)] | median),
           ns_per_run: ([$g[].programs | keys[]] | unique | map(. as $k | {key: $k,
               value: ([$g[] | .programs[$k].ns_per_run | select(. != null)] | median)}) | from_entries)} ] }' \
    "$TMP/rounds.jsonl" >"$TMP/out.json"
jq -r '.workloads[] | "\(.workload): the programs \(.ns_per_wakeup | round) ns a wake-up (\(.wakeups_per_s | round) wake-ups/s); a run: \([.ns_per_run | to_entries[] | "\(.key) \(.value | round) ns"] | join(", "))"' \
    "$TMP/out.json"
[ -z "${OUT:-}" ] || cp "$TMP/out.json" "$OUT"
