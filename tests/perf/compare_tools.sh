#!/bin/sh
# SPDX-License-Identifier: MIT
# ctxscope beside perf bench and stress-ng on one CPU, in alternating rounds so background
# load hits every tool alike. Prints each tool's own line; the README explains the counting.
# Usage: tests/perf/compare_tools.sh [path/to/ctxscope-cli]   (env: CPU=0 ROUNDS=3 POLICY=other|fifo)
# POLICY=fifo runs every tool at SCHED_FIFO priority 1 (chrt for the others), which keeps
# other work on the machine from preempting the measured tasks.
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
ROUNDS=${ROUNDS:-3}
POLICY=${POLICY:-other}
RT=""
[ "$POLICY" = fifo ] && RT="chrt -f 1"

ours() { # bench mode cpus
    "$CLI" run "$1" --mode "$2" --cpus "$3" --min-time 1 --repetitions 5 --policy "$POLICY" |
        sed -n 's/^  per op: /  ctxscope '"$1 $2"': /p'
}

for round in $(seq "$ROUNDS"); do
    echo "== round $round, policy $POLICY ($(cut -d' ' -f1-3 /proc/loadavg) load)"
    ours pipe process "$CPU,$CPU"
    echo "  perf bench sched pipe:    $($RT taskset -c "$CPU" perf bench sched pipe -l 300000 | grep usecs/op)"
    ours pipe thread "$CPU,$CPU"
    echo "  perf bench sched pipe -T: $($RT taskset -c "$CPU" perf bench sched pipe -T -l 300000 | grep usecs/op)"
    ours syscall thread "$CPU"
    echo "  perf bench syscall basic: $($RT taskset -c "$CPU" perf bench syscall basic -l 3000000 | grep usecs/op)"
    ours futex thread "$CPU,$CPU"
    ours futex process "$CPU,$CPU"
    echo "  stress-ng --switch:       $($RT stress-ng --switch 1 --taskset "$CPU" -t 5 --metrics-brief 2>&1 | awk '/nanosecs per context switch/ {for (i = 1; i < NF; i++) if ($(i + 1) == "nanosecs") print $i " ns per \"context switch\""}')"
done

# How many context switches each tool's "op" holds, counted by the kernel.
echo "== context switches per op (perf stat -e context-switches)"
n=200000
cs=$(perf stat -x, -e context-switches taskset -c "$CPU" perf bench sched pipe -l $n 2>&1 >/dev/null | grep context-switches | cut -d, -f1)
echo "  perf bench sched pipe: $cs switches for $n ops"
ops=$(perf stat -x, -o /tmp/ctxscope-stress.csv -e context-switches stress-ng --switch 1 --taskset "$CPU" -t 3 --metrics-brief 2>&1 |
    awk '$4 == "switch" && $5 ~ /^[0-9]+$/ {print $5}')
echo "  stress-ng --switch: $(grep context-switches /tmp/ctxscope-stress.csv | cut -d, -f1) switches for $ops bogo ops"
rm -f /tmp/ctxscope-stress.csv
