#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# programs.sh CLI: a running program through the real binary. Starts `workload pingpong`,
# watches it (--json -: watch_sample lines, then watch_summary; the text table's --rows busiest
# threads), pins its ping thread to one
# CPU and restores the process, checking each affinity with taskset -p; stops the workload with
# SIGTERM (a clean end, exit 130); watches a program that ends mid-watch (a sentence, exit 0).
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-programs-XXXXXX)
workload=""
cleanup() {
    [ -n "$workload" ] && kill "$workload" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v taskset >/dev/null || fail "taskset (util-linux) is missing"

# shellcheck source=../workload.sh
. "$(dirname "$0")/../workload.sh"
start_pingpong 20
[ "$pid" = "$workload" ] || fail "the workload says PID $pid, the shell started $workload"

"$cli" watch "$pid" --interval 0.2 --duration 1 --json - >"$dir/watch.ndjson" || fail "watch failed: $(cat "$dir/watch.ndjson")"
samples=$(grep -c '"type":"watch_sample"' "$dir/watch.ndjson")
[ "$samples" -ge 3 ] || fail "$samples watch_sample lines in 1 s at 0.2 s: $(cat "$dir/watch.ndjson")"
tail -n 1 "$dir/watch.ndjson" | grep -q '"type":"watch_summary"' || fail "the last line is not the watch_summary"
grep -q "\"name\":\"ping0\"" "$dir/watch.ndjson" && grep -q "\"tid\":$ping[,}]" "$dir/watch.ndjson" || fail "ping0 ($ping) is not watched"

# The text table shows the --rows busiest threads, the ping-pong pair first, and says how many
# it left out; the summary still has every thread.
text=$("$cli" watch "$pid" --interval 0.3 --duration 0.7 --rows 2) || fail "watch --rows 2 failed: $text"
first_sample=$(echo "$text" | sed -n '/^ *TID/,/^$/p' | head -4)
echo "$first_sample" | grep -Eq "^ +[0-9]+ (ping0|pong0) " || fail "the busiest rows are not the ping-pong pair: $first_sample"
echo "$text" | grep -q "quieter threads (--rows 0 shows every thread" || fail "watch --rows 2 did not say what it left out: $text"
threads=$(ls "/proc/$pid/task" | wc -l)
# (the summary's rate table ends at its rq-wait note; the scheduler's table after it, present
# with a backend that follows the scheduler's events, has a row per thread of its own)
summary_rows=$(echo "$text" | sed -n '/each thread.s average/,/^rq-wait:/p' | grep -Ec "^ +[0-9]+ ")
[ "$summary_rows" -eq "$threads" ] || fail "the summary has $summary_rows rows for $threads threads: $text"

original=$(affinity "$ping")
first=${original%% *}
out=$("$cli" pin "$ping" "$first") || fail "pin failed: $out"
[[ $out == "thread $ping (ping0): "*" -> $first" ]] || fail "pin printed: $out"
[ "$(affinity "$ping")" = "$first" ] || fail "taskset -p says $(affinity "$ping") after pinning to $first"
restore=$(echo "$original" | tr ' ' ,)
out=$("$cli" pin --process "$pid" "$restore") || fail "pin --process failed: $out"
[ "$(echo "$out" | grep -c '^thread ')" -ge 3 ] || fail "pin --process moved fewer than 3 threads: $out"
[ "$(affinity "$ping")" = "$original" ] || fail "taskset -p says $(affinity "$ping") after restoring $original"

kill -TERM "$workload"
wait "$workload"
code=$?
workload=""
[ "$code" -eq 130 ] || fail "the workload ended with $code on SIGTERM, expected 130: $(cat "$dir/workload.txt")"
grep -q "round trips/s" "$dir/workload.txt" || fail "the workload printed no rate: $(cat "$dir/workload.txt")"

sleep 3 & # long enough for an ASan watch to start on a loaded machine, short enough to end it
short=$!
out=$("$cli" watch "$short" --interval 0.1 --duration 10) || fail "watching a program that ends did not exit 0: $out"
echo "$out" | grep -q "The watch ended: process $short (sleep) ended." || fail "no ending sentence: $out"
echo "PASS"
