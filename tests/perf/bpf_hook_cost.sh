#!/bin/sh
# SPDX-License-Identifier: MIT
# What BPF programs on a traced run's events would cost a futex round trip on one PU (issue 40,
# item 3: computing the hand-over's segments in BPF), before any of them does any work: the
# programs of tests/perf/bpf_hooks (compiled here with clang and g++ against libbpf) are loaded
# into `ctxscope-cli run futex --cpus CPU,CPU`'s process only, in rounds that alternate with the
# same run without them:
#   sched       tp_btf sched_switch, sched_waking, sched_wakeup: compare the tgid, return
#   syscalls    tp_btf sys_enter, sys_exit (a syscall tracepoint also sends every system call
#               of the machine through the kernel's slow path)
#   all         the five
#   all_record  the five, each also writing a 32-byte record into a ring buffer read every 50 ms
#               (no wake-up per record): the least that hands the events to user space
# A set's cost per op is its run's median per op (p50) minus the plain run's, the median over
# the rounds. The records of all_record, over the run's ops (--iterations x --repetitions; the
# run's start and its calibration add a few), give the events per op, so its cost per event.
# Also asks whether this kernel allows fentry and kprobe programs (on __x64_sys_futex), which
# would hook the hand-over's calls without the syscall tracepoints.
# Needs root, clang, g++, libbpf-dev and jq. Never part of ctest.
# Usage: tests/perf/bpf_hook_cost.sh [path/to/ctxscope-cli]
#   env: CPU=0 CPU2=1 (the loader's) ROUNDS=3 OPS=50000 OUT=file.json
set -eu
CLI=${1:-build/release/app/cli/ctxscope-cli}
CPU=${CPU:-0}
CPU2=${CPU2:-1}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-50000}
REPS=5
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in clang g++ jq taskset; do
    command -v "$tool" >/dev/null || { echo "bpf_hook_cost.sh: $tool is not installed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bpf_hook_cost.sh: needs root (BPF)" >&2; exit 2; }
TMP=$(mktemp -d)
LOADER=""
cleanup() {
    [ -z "$LOADER" ] || kill "$LOADER" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

clang -g -O2 -target bpf -Wall -Werror -D__TARGET_ARCH_x86 -I"/usr/include/$(uname -m)-linux-gnu" \
    -I"$HERE/../../engine/src/bpf" -c "$HERE/bpf_hooks/hooks.bpf.c" -o "$TMP/hooks.bpf.o"
g++ -std=c++20 -O2 -Wall -Wextra -Werror "$HERE/bpf_hooks/load.cpp" -o "$TMP/load" -lbpf

programs_of() {
    case $1 in
    sched) echo sched_switch,sched_waking,sched_wakeup ;;
    syscalls) echo sys_enter,sys_exit ;;
    all | all_record) echo sched_switch,sched_waking,sched_wakeup,sys_enter,sys_exit ;;
    esac
}

# measure SET: the run's p50 per op in ns with SET's programs in its process ("plain": none);
# the loader's JSON goes to $TMP/loader.json.
measure() {
    rm -f "$TMP/go" "$TMP/pid" "$TMP/loader.json" "$TMP/loader.log"
    # The run waits for the programs: its process id is theirs to filter on before it starts.
    sh -c 'echo $$ >"$1/pid"; while [ ! -e "$1/go" ]; do sleep 0.05; done; shift; exec "$@"' sh "$TMP" \
        "$CLI" run futex --cpus "$CPU,$CPU" --iterations "$OPS" --repetitions "$REPS" --json "$TMP/run.json" \
        >/dev/null 2>>"$TMP/log" &
    RUN=$!
    while [ ! -s "$TMP/pid" ]; do sleep 0.02; done
    if [ "$1" != plain ]; then
        record=0
        [ "$1" != all_record ] || record=1
        taskset -c "$CPU2" "$TMP/load" "$TMP/hooks.bpf.o" "$(cat "$TMP/pid")" $record "$(programs_of "$1")" \
            >"$TMP/loader.json" 2>"$TMP/loader.log" &
        LOADER=$!
        while ! grep -q attached "$TMP/loader.log" 2>/dev/null; do
            kill -0 "$LOADER" 2>/dev/null || { cat "$TMP/loader.json" >&2; exit 1; }
            sleep 0.02
        done
    fi
    touch "$TMP/go"
    wait "$RUN"
    if [ -n "$LOADER" ]; then
        kill -TERM "$LOADER"
        wait "$LOADER" || true
        LOADER=""
    fi
    jq '.benchmarks[0].stats.p50' "$TMP/run.json"
}

allowed() { # allowed PROGRAM: "allowed" or the kernel's refusal
    "$TMP/load" "$TMP/hooks.bpf.o" 1 0 "$1" >"$TMP/probe.json" 2>/dev/null &
    P=$!
    sleep 0.5
    kill -TERM "$P" 2>/dev/null || true
    wait "$P" 2>/dev/null || true
    jq -r '.refused // "allowed"' "$TMP/probe.json"
}

SETS="sched syscalls all all_record"
: >"$TMP/rounds.jsonl"
RECORDED=0
for r in $(seq "$ROUNDS"); do
    for s in $SETS; do
        base=$(measure plain)
        with=$(measure "$s")
        [ "$s" != all_record ] || RECORDED=$(jq '.recorded' "$TMP/loader.json")
        echo "{\"round\":$r,\"set\":\"$s\",\"plain_p50_ns\":$base,\"with_p50_ns\":$with,\"load\":$(cut -d' ' -f1 /proc/loadavg)}" |
            tee -a "$TMP/rounds.jsonl" >&2
    done
done

jq -n --slurpfile rounds "$TMP/rounds.jsonl" --argjson ops $((OPS * REPS)) --argjson recorded "$RECORDED" \
    --argjson cpu "$CPU" --arg fentry "$(allowed fentry_futex)" --arg kprobe "$(allowed kprobe_futex)" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    ($recorded / $ops) as $per_op
    | {cpu: $cpu, ops: $ops, events_per_op: $per_op, fentry: $fentry, kprobe: $kprobe, rounds: $rounds,
       sets: [ $rounds | map(.set) | unique[] as $s
         | ([$rounds[] | select(.set == $s) | .with_p50_ns - .plain_p50_ns] | median) as $cost
         | ([$rounds[] | select(.set == $s) | .plain_p50_ns] | median) as $plain
         | {set: $s, cost_ns_per_op: $cost, plain_p50_ns: $plain, cost_share: ($cost / $plain),
            ns_per_event: (if $s == "all" or $s == "all_record" then $cost / $per_op else null end)} ] }' >"$TMP/out.json"
jq -r '"a futex round trip on CPU \(.cpu) makes \(.events_per_op * 100 | round / 100) of these events; fentry: \(.fentry); kprobe: \(.kprobe)",
       (.sets[] | "\(.set): +\(.cost_ns_per_op | round) ns per op over \(.plain_p50_ns | round) ns (+\(.cost_share * 100 | round)%)" +
         (if .ns_per_event then ", \(.ns_per_event | round) ns per event" else "" end))' "$TMP/out.json"
[ -z "${OUT:-}" ] || cp "$TMP/out.json" "$OUT"
