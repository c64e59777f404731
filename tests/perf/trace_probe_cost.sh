#!/bin/sh
# SPDX-License-Identifier: MIT
# What each group of a traced run's events costs a futex round trip on one PU: the probe
# effect, per op and per event (issue 40, item 3). An untraced `ctxscope-cli run futex --cpus
# CPU,CPU` runs inside a private ftrace instance (never the global one) that records one group
# of the events `run --trace` enables, on that CPU only, in rounds that alternate with the same
# run under an instance that records nothing:
#   sched     sched_waking, sched_wakeup, sched_wakeup_new, sched_switch, sched_migrate_task,
#             sched_wake_idle_without_ipi
#   syscalls  raw_syscalls sys_enter and sys_exit, filtered to the hand-over's calls as
#             `run --trace` filters them (futex, read, write, sched_yield)
#   others    ipi_send_cpu, cpu_idle, irq_handler_entry/exit, softirq_entry/exit
#   all       the three together: what `run --trace` enables (without its per-task filter on
#             the sched events: on one PU nearly every event is the two tasks' own)
# A group's cost per op is its run's median per op (p50: a mean moves with whatever else runs)
# minus the nothing run's, the median over the rounds; its events per op are counted in one `run futex --trace --trace-out` text of the same
# placement, so the cost per event is the one over the other. Needs root (tracefs) and jq.
# Usage: tests/perf/trace_probe_cost.sh [path/to/ctxscope-cli]
#   env: CPU=0 ROUNDS=3 OUT=file.json (the rounds, the counts and each group's figures)
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
ROUNDS=${ROUNDS:-3}
command -v jq >/dev/null || { echo "trace_probe_cost.sh: jq is not installed" >&2; exit 2; }
T=/sys/kernel/tracing
[ -d "$T/instances" ] || T=/sys/kernel/debug/tracing
[ -w "$T/instances" ] || { echo "trace_probe_cost.sh: needs root (no writable $T/instances)" >&2; exit 2; }
[ "$CPU" -lt 32 ] || { echo "trace_probe_cost.sh: CPU must be below 32 (a one-word tracing_cpumask)" >&2; exit 2; }
TMP=$(mktemp -d)
INST=$T/instances/ctxscope-probe-$$
# The instance goes on every way out, its events first (an instance with events on cannot go).
cleanup() {
    if [ -d "$INST" ]; then
        echo 0 >"$INST/tracing_on" 2>/dev/null || true
        : >"$INST/set_event" 2>/dev/null || true
        rmdir "$INST" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SCHED="sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new sched:sched_switch sched:sched_migrate_task sched:sched_wake_idle_without_ipi"
SYSCALLS="raw_syscalls:sys_enter raw_syscalls:sys_exit"
OTHERS="ipi:ipi_send_cpu power:cpu_idle irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit"
# This architecture's numbers of the hand-over's calls, as run --trace takes them from <sys/syscall.h>.
sysno() { printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | cpp -P | tail -1; }
FILTER="id == $(sysno futex) || id == $(sysno read) || id == $(sysno write) || id == $(sysno sched_yield)"

events_of() {
    case $1 in
    nothing) echo "" ;;
    sched) echo "$SCHED" ;;
    syscalls) echo "$SYSCALLS" ;;
    others) echo "$OTHERS" ;;
    all) echo "$SCHED $SYSCALLS $OTHERS" ;;
    esac
}

# measure GROUP: the untraced run's median (p50) per op in ns while the instance records GROUP.
measure() {
    mkdir "$INST"
    echo 0 >"$INST/tracing_on"
    printf '%x\n' $((1 << CPU)) >"$INST/tracing_cpumask"
    echo 4096 >"$INST/buffer_size_kb"
    for e in $(events_of "$1"); do
        echo "$e" >>"$INST/set_event" 2>/dev/null || true # an event this kernel lacks: as run --trace, left out
    done
    case $1 in
    syscalls | all)
        for e in sys_enter sys_exit; do
            [ ! -d "$INST/events/raw_syscalls/$e" ] || echo "$FILTER" >"$INST/events/raw_syscalls/$e/filter"
        done
        ;;
    esac
    echo 1 >"$INST/tracing_on"
    "$CLI" run futex --cpus "$CPU,$CPU" --min-time 0.25 --repetitions 5 --json "$TMP/run.json" >/dev/null 2>>"$TMP/log"
    echo 0 >"$INST/tracing_on"
    : >"$INST/set_event"
    rmdir "$INST"
    jq '.benchmarks[0].stats.p50' "$TMP/run.json"
}

GROUPS_="sched syscalls others all"
: >"$TMP/rounds.jsonl"
for r in $(seq "$ROUNDS"); do
    for g in $GROUPS_; do
        base=$(measure nothing)
        with=$(measure "$g")
        echo "{\"round\":$r,\"group\":\"$g\",\"nothing_p50_ns\":$base,\"with_p50_ns\":$with,\"load\":$(cut -d' ' -f1 /proc/loadavg)}" |
            tee -a "$TMP/rounds.jsonl" >&2
    done
done

# The events each op writes, by name, from one traced run of the same placement.
"$CLI" run futex --cpus "$CPU,$CPU" --trace --trace-out "$TMP/trace.txt" --json "$TMP/traced.json" >/dev/null 2>>"$TMP/log"
OPS=$(jq '.benchmarks[0].trace.ops' "$TMP/traced.json")
awk '$0 !~ /^#/ { for (i = 1; i <= NF; i++) if ($i ~ /:$/ && $(i - 1) ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); n[$i]++; break } }
     END { for (k in n) printf "{\"event\":\"%s\",\"count\":%d}\n", k, n[k] }' "$TMP/trace.txt" >"$TMP/counts.jsonl"

jq -n --slurpfile rounds "$TMP/rounds.jsonl" --slurpfile counts "$TMP/counts.jsonl" --argjson ops "$OPS" \
    --arg sched "$SCHED" --arg syscalls "$SYSCALLS" --arg others "$OTHERS" --argjson cpu "$CPU" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def names($list): $list | split(" ") | map(split(":")[1]);
    ($counts | map({(.event): .count}) | add // {}) as $c
    | {sched: names($sched), syscalls: names($syscalls), others: names($others)} as $g
    | ($g + {all: ($g.sched + $g.syscalls + $g.others)}) as $groups
    | {cpu: $cpu, traced_ops: $ops, events_per_op: ($c | map_values(. / $ops)), rounds: $rounds,
       groups: [ $groups | to_entries[] | .key as $k | .value as $names
         | ([$rounds[] | select(.group == $k) | .with_p50_ns - .nothing_p50_ns] | median) as $cost
         | ([$names[] | $c[.] // 0] | add / $ops) as $per_op
         | {group: $k, cost_ns_per_op: $cost,
            nothing_p50_ns: ([$rounds[] | select(.group == $k) | .nothing_p50_ns] | median),
            events_per_op: $per_op,
            ns_per_event: (if $per_op >= 0.05 and $cost != null then $cost / $per_op else null end)} ] }' >"$TMP/out.json"
jq -r '"events each futex op writes on CPU \(.cpu), traced: " + ([.events_per_op | to_entries[] | "\(.key) \(.value * 100 | round / 100)"] | join(", ")),
       (.groups[] | "\(.group): +\(.cost_ns_per_op | round) ns per op over \(.nothing_p50_ns | round) ns, \(.events_per_op * 100 | round / 100) events per op, \(if .ns_per_event then (.ns_per_event | round | tostring) + " ns per event" else "too few events for a cost per event" end)")' "$TMP/out.json"
[ -z "${OUT:-}" ] || cp "$TMP/out.json" "$OUT"
