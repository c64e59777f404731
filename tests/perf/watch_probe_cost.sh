#!/bin/sh
# SPDX-License-Identifier: MIT
# What a watch's probes cost the watched program, per scheduler event, for each event backend:
# `ctxscope-cli workload pingpong` (two threads handing a message back and forth through
# futexes) pinned to one CPU prints its round trips each second; `ctxscope-cli watch PID
# --backend B` (pinned to another CPU, so that only its probes run on the program's CPU)
# watches it for the middle seconds of its run. The program's time per round trip while watched
# minus while alone (the medians of its seconds, the first watched second and the one after
# left out: the attach and detach), over the scheduler events a round trip makes on that CPU
# (counted by `perf stat` on the tracepoints in a second of its own), is each event's cost; over
# the wake-ups a round trip makes (its sched_waking events in the same count), each wake-up's. A
# round trip is not two wake-ups: on one CPU the woken thread often preempts its waker, which
# then finds its answer waiting and does not sleep (about 1.2 wake-ups a round trip, unwatched).
# ftrace's figure is its events' cost as a watch enables them (sched_switch, sched_waking,
# sched_wakeup with the watched threads' filter); bpf's, its programs on the same tracepoints.
# Needs root (BPF and tracefs), perf, taskset and jq.
# Usage: tests/perf/watch_probe_cost.sh [path/to/ctxscope-cli]
#   env: CPU=0 CPU2=1 ROUNDS=3 WATCH_S=6 BACKENDS="bpf ftrace" OUT=file.json
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
CPU2=${CPU2:-1}
ROUNDS=${ROUNDS:-3}
S=${WATCH_S:-6}
BACKENDS=${BACKENDS:-bpf ftrace}
for tool in perf taskset jq; do
    command -v "$tool" >/dev/null || { echo "watch_probe_cost.sh: $tool is not installed" >&2; exit 2; }
done
TMP=$(mktemp -d)
PROGRAM=""
cleanup() {
    [ -z "$PROGRAM" ] || kill "$PROGRAM" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }

# round BACKEND: the program alone S s, watched S s, alone S s; prints one JSON object.
round() {
    taskset -c "$CPU" "$CLI" workload pingpong --duration $((3 * S + 2)) >"$TMP/program.txt" 2>&1 &
    PROGRAM=$!
    begin=$(now)
    sleep 0.5
    pid=$(sed -n 's/.*(PID \([0-9]*\)).*/\1/p' "$TMP/program.txt")
    [ -n "$pid" ] || { echo "watch_probe_cost.sh: the program did not start" >&2; exit 2; }
    sleep $((S))
    # The events a round trip makes on the program's CPU, counted for 2 s while alone: at least
    # one of the program's seconds lies wholly inside, and its rate is the one they came at.
    stat_begin=$(now)
    perf stat -x, -C "$CPU" -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup -o "$TMP/stat.txt" sleep 2 \
        >/dev/null 2>&1 || true
    stat_end=$(now)
    watch_begin=$(now)
    taskset -c "$CPU2" "$CLI" watch "$pid" --backend "$1" --interval 1 --duration "$S" >/dev/null 2>>"$TMP/watch.log"
    watch_end=$(now)
    wait "$PROGRAM" || true
    PROGRAM=""
    events=$(awk -F, '$3 ~ /^sched:/ {n += $1} END {print n + 0}' "$TMP/stat.txt")
    wakings=$(awk -F, '$3 == "sched:sched_waking" {n += $1} END {print n + 0}' "$TMP/stat.txt")
    # Each line "T s  N round trips/s": its second is (T - 1, T] after the program's start.
    awk -v b="$begin" -v sb="$stat_begin" -v se="$stat_end" -v wb="$watch_begin" -v we="$watch_end" -v backend="$1" \
        -v events="$events" -v wakings="$wakings" '
        /round trips\/s/ {
            t = $1 + 0; rate = $3 + 0; from = b + t - 1; to = b + t
            if (to <= sb && from >= b + 0.9) alone[na++] = rate                 # before the count and the watch
            else if (from >= we + 1) alone[na++] = rate                          # after the watch and its detach
            else if (from >= wb + 1.5 && to <= we) watched[nw++] = rate          # the watch attached
            if (from >= sb && to <= se) counted[nc++] = rate                     # a second perf counted
        }
        function median(a, n,    i, j, x) {
            for (i = 1; i < n; i++) { x = a[i]; for (j = i - 1; j >= 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
            return n == 0 ? 0 : (n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2)
        }
        END {
            ra = median(alone, na); rw = median(watched, nw)
            printf "{\"backend\":\"%s\",\"alone_per_s\":%.0f,\"watched_per_s\":%.0f,\"alone_seconds\":%d,\"watched_seconds\":%d,\"events_per_s\":%.0f,\"wakings_per_s\":%.0f,\"stat_per_s\":%.0f}\n",
                backend, ra, rw, na, nw, events / (se - sb), wakings / (se - sb), median(counted, nc)
        }' "$TMP/program.txt"
}

: >"$TMP/rounds.jsonl"
for _ in $(seq "$ROUNDS"); do
    for b in $BACKENDS; do
        round "$b" | tee -a "$TMP/rounds.jsonl" >&2
    done
done

jq -s --argjson cpu "$CPU" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    . as $rounds
    | {cpu: $cpu, rounds: $rounds, backends: [ $rounds | group_by(.backend)[] | . as $g
        | ([$g[] | select(.alone_per_s > 0 and .watched_per_s > 0) | 1e9 / .watched_per_s - 1e9 / .alone_per_s] | median) as $added
        | ([$g[] | select(.stat_per_s > 0) | .events_per_s / .stat_per_s] | median) as $per
        | ([$g[] | select(.stat_per_s > 0 and .wakings_per_s != null) | .wakings_per_s / .stat_per_s] | median) as $woken
        | {backend: $g[0].backend,
           alone_ns: ([$g[] | select(.alone_per_s > 0) | 1e9 / .alone_per_s] | median),
           added_ns_per_round_trip: $added, events_per_round_trip: $per, wakeups_per_round_trip: $woken,
           ns_per_event: (if $added != null and $per != null and $per > 0 then $added / $per else null end)} ] }' \
    "$TMP/rounds.jsonl" >"$TMP/out.json"
jq -r '.backends[] | "\(.backend): a round trip of \(.alone_ns | round) ns alone, +\(.added_ns_per_round_trip | round) ns watched, \(.events_per_round_trip * 100 | round / 100) scheduler events a round trip: \(if .ns_per_event then (.ns_per_event | round | tostring) + " ns an event" else "no figure" end)"' "$TMP/out.json"
[ -z "${OUT:-}" ] || cp "$TMP/out.json" "$OUT"
