#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace.sh CLI: the traced run through the real binary, and the peers reading its files.
# `run futex --trace --trace-out t.dat` prints the hand-over's steps and writes a trace.dat
# in which Debian's `trace-cmd report` finds the measured tasks' switches (about two
# switch-outs per round trip); the .txt export is the kernel's text format. Then the exits:
# SIGTERM mid-trace leaves no instance, a kill -9 leaves one that the next traced run
# removes. `watch --trace-out` writes a trace.dat with every switch-in the watch counted. Needs root (CI runs as root); exit 77 with the reason otherwise.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-trace-XXXXXX)
tracefs_before=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
bg=""
cleanup() {
    [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
    rm -rf "$dir"
    # What this test left mounted (the killed run's mount) goes; a mount found here stays.
    if [ -z "$tracefs_before" ]; then
        now=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
        [ -n "$now" ] && umount -l "$now"
    fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: tracing needs root here (running as $(id -un))"; exit 77; }
command -v trace-cmd >/dev/null || fail "trace-cmd is missing (dev.sh installs it)"
command -v jq >/dev/null && have_jq=1 || have_jq=0

# One CPU: every round trip is two switch-outs there (across CPUs a partner may take the token
# before it slept, so the count varies).
cpus=0,0
ops=3000
"$cli" run futex --cpus "$cpus" --iterations 2000 --repetitions 1 --trace --trace-ops $ops \
    --trace-out "$dir/t.dat" --json "$dir/r.json" >"$dir/out.txt" 2>"$dir/err.txt" ||
    fail "the traced run failed: $(cat "$dir/err.txt")"
grep -q "^traced: .* per op against .* untraced" "$dir/out.txt" || fail "no 'traced:' line: $(cat "$dir/out.txt")"
grep -q "return to user" "$dir/out.txt" || fail "no hand-over steps: $(cat "$dir/out.txt")"
grep -q '"trace"' "$dir/r.json" || fail "the JSON has no trace block"
grep -q '"segments"' "$dir/r.json" || fail "the JSON trace has no segments"
tasks=$(python3 -c 'import json,sys; print(" ".join(str(t) for t in json.load(open(sys.argv[1]))["benchmarks"][0]["trace"]["tasks"]))' "$dir/r.json")
[ -n "$tasks" ] || fail "the trace names no task"

trace-cmd report "$dir/t.dat" >"$dir/report.txt" 2>"$dir/report.err" || fail "trace-cmd report failed: $(head -5 "$dir/report.err")"
# The sched_switch lines of REPORT whose task at SIDE (out: switched out, in: switched in) is
# one of TIDS. trace-cmd's sched_switch plugin prints "prev_comm:prev_pid [prio] state ==>
# next_comm:next_pid [prio]".
switch_count() { # REPORT SIDE TIDS...
    local report=$1 side=$2 total=0 t
    shift 2
    for t in "$@"; do
        if [ "$side" = out ]; then
            total=$((total + $(grep -cE "sched_switch: +[^ ]+:$t \[" "$report")))
        else
            total=$((total + $(grep -cE "sched_switch: .* ==> +[^ ]+:$t \[" "$report")))
        fi
    done
    echo "$total"
}
# shellcheck disable=SC2086 # the task ids are words
switches=$(switch_count "$dir/report.txt" out $tasks)
# Two switch-outs per round trip (one per task), within 10% (the trace covers exactly the ops).
low=$((ops * 2 * 9 / 10)); high=$((ops * 2 * 11 / 10))
[ "$switches" -ge "$low" ] && [ "$switches" -le "$high" ] ||
    fail "trace-cmd report shows $switches switch-outs of tasks $tasks for $ops round trips (expected $low-$high)"
grep -q "ctxscope .*: futex" "$dir/report.txt" || fail "the trace does not say what it shows (no mark)"

"$cli" run futex --cpus "$cpus" --iterations 1000 --repetitions 1 --trace-ops 1000 --trace-out "$dir/t.txt" \
    >/dev/null 2>"$dir/err.txt" || fail "the text export failed: $(cat "$dir/err.txt")"
head -1 "$dir/t.txt" | grep -q "^# tracer: nop" || fail "the text export lacks the header Perfetto reads"
grep -q ": sched_switch: prev_comm=" "$dir/t.txt" || fail "the text export has no sched_switch line"

# watch --trace-out: a watched program's scheduler events in a trace.dat, with every switch-in
# the watch counted (the file starts when the trace does, a little before the first reading).
"$cli" workload sleepers --threads 5 --duration 20 >"$dir/sleepers.txt" 2>&1 &
bg=$!
for _ in $(seq 1 50); do grep -q "threads:" "$dir/sleepers.txt" && break; sleep 0.1; done
"$cli" watch "$bg" --interval 1 --duration 2 --trace-out "$dir/w.dat" --json "$dir/w.ndjson" >/dev/null \
    2>"$dir/err.txt" || fail "watch --trace-out failed: $(cat "$dir/err.txt")"
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=""
grep -q "wrote the trace to $dir/w.dat" "$dir/err.txt" || fail "watch did not say where the trace went: $(cat "$dir/err.txt")"
read -r counted tids < <(python3 -c '
import json, sys
summary = [json.loads(l) for l in open(sys.argv[1])][-1]
print(sum(t["sched"]["switch_ins"] for t in summary["threads"]), " ".join(str(t["tid"]) for t in summary["threads"]))' "$dir/w.ndjson")
trace-cmd report "$dir/w.dat" >"$dir/w.txt" 2>"$dir/report.err" || fail "trace-cmd report of the watch failed: $(head -5 "$dir/report.err")"
# shellcheck disable=SC2086
in_file=$(switch_count "$dir/w.txt" in $tids)
[ "$counted" -gt 0 ] || fail "the watch counted no switch-in of the sleepers"
[ "$in_file" -ge "$counted" ] || fail "the watch's trace.dat has $in_file switch-ins of the sleepers, the watch counted $counted"
grep -q "ctxscope .*: watch of process" "$dir/w.txt" || fail "the watch's trace does not say what it shows"

instances() { ls -d "$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)"/instances/ctxscope-* 2>/dev/null; }

# Starts a long traced run in the background and waits until its instance exists.
start_long_trace() {
    "$cli" run futex --cpus 0,0 --iterations 1000 --repetitions 1 --trace --trace-backend ftrace --trace-ops 1000000 \
        >/dev/null 2>&1 &
    bg=$!
    for _ in $(seq 1 300); do
        instances | grep -q "ctxscope-$bg-" && return 0
        sleep 0.1
    done
    fail "no instance of PID $bg appeared in 30 s"
}

start_long_trace
kill -TERM "$bg"
wait "$bg"
code=$?
bg=""
[ "$code" -eq 130 ] || fail "SIGTERM mid-trace exited $code, not 130"
[ -z "$(instances)" ] || fail "SIGTERM left $(instances)"

start_long_trace
kill -9 "$bg"
wait "$bg" 2>/dev/null
left=$(instances)
bg=""
[ -n "$left" ] || fail "a kill -9 left nothing behind, so this test proves nothing"
"$cli" run futex --cpus 0,0 --iterations 1000 --repetitions 1 --trace --trace-backend ftrace --trace-ops 1000 \
    >/dev/null 2>&1 ||
    fail "the traced run after the kill failed"
[ -z "$(instances)" ] || fail "the next traced run did not remove $left"
echo "PASS: $switches switch-outs in trace-cmd report for $ops round trips; the watch's file has $in_file switch-ins for its $counted; SIGTERM and kill -9 leave nothing"
