#!/bin/sh
# SPDX-License-Identifier: MIT
# ctxscope beside its peers on one CPU, in alternating rounds (ours first in odd rounds, the
# peer first in even ones) so background load hits both alike:
#   pipe round trip, processes / threads  vs  taskset -c CPU perf bench sched pipe [-T]
#   syscall (getppid)                      vs  taskset -c CPU perf bench syscall basic
#   coro-ucontext (2 swapcontext per op)   vs  stress-ng --context 1 --taskset CPU
#   switches the kernel counted per op     vs  perf stat -e context-switches on ctxscope-cli
# Prints each round and a table of medians and ratios; docs/performance.md says what each
# tool's figure counts. Needs perf, stress-ng, taskset and jq.
# Usage: tests/perf/compare-peers.sh [path/to/ctxscope-cli]
#   env: CPU=0 ROUNDS=3 POLICY=other|fifo OUT=file.json (the rows and the medians as JSON)
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
ROUNDS=${ROUNDS:-3}
POLICY=${POLICY:-other}
RT=""
[ "$POLICY" = fifo ] && RT="chrt -f 1"
for tool in perf stress-ng taskset jq; do
    command -v "$tool" >/dev/null || { echo "compare-peers.sh: $tool is not installed" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROWS=$TMP/rows.jsonl
: >"$ROWS"

load() { cut -d' ' -f1 /proc/loadavg; }

# ours BENCH MODE CPUS: "p50 mean" in ns per op.
ours() {
    "$CLI" run "$1" --mode "$2" --cpus "$3" --min-time 0.5 --repetitions 5 --policy "$POLICY" \
        --json "$TMP/ours.json" >/dev/null
    jq -r '.benchmarks[0].stats | "\(.p50) \(.mean)"' "$TMP/ours.json"
}

# Peers, each printing ns per its own op.
pipe_peer() { # [-T]: ns per round trip (perf prints total time / loops, a mean)
    $RT taskset -c "$CPU" perf bench sched pipe "$@" -l 100000 | awk '/usecs\/op/ {print $1 * 1000}'
}
syscall_peer() { # ns per getppid (a mean)
    $RT taskset -c "$CPU" perf bench syscall basic -l 5000000 | awk '/usecs\/op/ {print $1 * 1000}'
}
context_peer() { # ns per swapcontext: 1e9 / its "swapcontext calls per sec"
    $RT stress-ng --context 1 --taskset "$CPU" -t 3 --metrics 2>&1 |
        awk '/swapcontext calls per sec/ {for (i = 1; i <= NF; i++) if ($i == "swapcontext") {print 1e9 / $(i - 1); exit}}'
}

# row WHAT ROUND OURS_P50 OURS_MEAN PEER: ours per peer op (coro-ucontext: halved, one swap).
row() {
    echo "{\"what\":\"$1\",\"round\":$2,\"ours_p50\":$3,\"ours_mean\":$4,\"peer\":$5,\"load\":$(load)}" >>"$ROWS"
    printf '  %-16s ours p50 %9.1f ns, mean %9.1f ns | peer %9.1f ns\n' "$1" "$3" "$4" "$5"
}

# pair WHAT ROUND BENCH MODE CPUS DIVISOR PEER_COMMAND...
pair() {
    what=$1 round=$2 bench=$3 mode=$4 cpus=$5 div=$6
    shift 6
    if [ $((round % 2)) -eq 1 ]; then
        set -- "$(ours "$bench" "$mode" "$cpus")" "$("$@")"
    else
        peer=$("$@")
        set -- "$(ours "$bench" "$mode" "$cpus")" "$peer"
    fi
    p50=$(echo "$1" | awk -v d="$div" '{print $1 / d}')
    mean=$(echo "$1" | awk -v d="$div" '{print $2 / d}')
    row "$what" "$round" "$p50" "$mean" "$2"
}

# The kernel's count of our switches: perf stat on the whole ctxscope-cli process, at 1 and
# at 5 repetitions of N ops; the difference holds 4 N measured ops and nothing else (the
# warm-up, the check phase and thread start-up are the same in both), so it is comparable
# to the rusage counts ctxscope reports per measured op.
switches() {
    n=50000
    for reps in 1 5; do
        perf stat -x, -o "$TMP/stat$reps" -e context-switches \
            "$CLI" run futex --cpus "$CPU,$CPU" --iterations $n --repetitions $reps --policy "$POLICY" \
            --json "$TMP/sw$reps.json" >/dev/null
    done
    s1=$(grep context-switches "$TMP/stat1" | cut -d, -f1)
    s5=$(grep context-switches "$TMP/stat5" | cut -d, -f1)
    ours=$(jq '.benchmarks[0].observed.switches_per_op' "$TMP/sw5.json")
    engine_perf=$(jq '.benchmarks[0].observed.perf_switches_per_op' "$TMP/sw5.json")
    peer=$(awk -v a="$s1" -v b="$s5" -v n=$n 'BEGIN {print (b - a) / (4 * n)}')
    echo "{\"what\":\"switches/op\",\"round\":$1,\"ours_p50\":$ours,\"ours_mean\":$ours,\"peer\":$peer,\"perf_stat_total_1rep\":$s1,\"perf_stat_total_5rep\":$s5,\"ops\":$n,\"engine_perf_switches_per_op\":$engine_perf,\"load\":$(load)}" >>"$ROWS"
    printf '  %-16s ours (rusage) %.3f per op, (perf counters) %s | perf stat %.3f per op (%s and %s switches in all)\n' \
        switches/op "$ours" "$engine_perf" "$peer" "$s1" "$s5"
}

for round in $(seq "$ROUNDS"); do
    echo "== round $round of $ROUNDS, CPU $CPU, policy $POLICY, load average $(load)"
    pair pipe-process "$round" pipe process "$CPU,$CPU" 1 pipe_peer
    pair pipe-thread "$round" pipe thread "$CPU,$CPU" 1 pipe_peer -T
    pair syscall "$round" syscall thread "$CPU" 1 syscall_peer
    pair swapcontext "$round" coro-ucontext thread "$CPU" 2 context_peer
    switches "$round"
done

# Medians over the rounds; ratio = ours / peer (mean against mean: every peer gives a mean).
jq -s '
  def median: sort | if length == 0 then null else .[(length / 2 | floor)] end;
  { peer_tool: { "pipe-process": "taskset -c CPU perf bench sched pipe",
                 "pipe-thread": "taskset -c CPU perf bench sched pipe -T",
                 "syscall": "taskset -c CPU perf bench syscall basic",
                 "swapcontext": "stress-ng --context 1 --taskset CPU (1e9 / swapcontext calls per sec)",
                 "switches/op": "perf stat -e context-switches, (5 reps - 1 rep) / 4N" } } as $t
  | { rows: ., summary: (group_by(.what) | map({
      what: .[0].what, peer_tool: $t.peer_tool[.[0].what], rounds: length,
      ours_p50: (map(.ours_p50) | median), ours_mean: (map(.ours_mean) | median),
      peer: (map(.peer) | median), load: (map(.load) | median),
      ratio_mean: ((map(.ours_mean) | median) / (map(.peer) | median)),
      ratio_p50: ((map(.ours_p50) | median) / (map(.peer) | median)) })) }' "$ROWS" >"$TMP/out.json"
echo "== medians of $ROUNDS rounds (ratio = ours / peer; ns, switches/op: per op)"
jq -r '.summary[] | [.what, .ours_p50, .ours_mean, .peer, .ratio_mean, .ratio_p50] | @tsv' "$TMP/out.json" |
    awk -F'\t' 'BEGIN {printf "  %-14s %10s %10s %10s %11s %10s\n", "what", "ours p50", "ours mean", "peer", "mean/peer", "p50/peer"}
        {printf "  %-14s %10.3g %10.3g %10.3g %11.3f %10.3f\n", $1, $2, $3, $4, $5, $6}'
[ -n "${OUT:-}" ] && cp "$TMP/out.json" "$OUT"
exit 0
