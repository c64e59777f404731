#!/bin/sh
# SPDX-License-Identifier: MIT
# Every self-benchmark of ctxscope, on the release build, in one go (`./packaging/dev.sh perf`
# builds and calls this): harness overhead, watching a program (each backend, its peers, the
# app's stream, the probes' cost per event), tracing's cost (per op and per event, and BPF
# programs on the same events), agreement with peers, repeatability, the GUI's observer effect,
# GUI speed, the working-set sweep's time and the survey's. Each step records the load average next to its figures. Writes
# build/release/perf-report.json and prints a table.
# Rewrites the table at the top of docs/performance.md (DOC= another page, DOC= empty none).
# Usage: tests/perf/run_all.sh [BUILD_DIR]   (env: CPU=0 CPU2=1 ROUNDS=3 RUNS=5 WATCH_ROUNDS=3 APP_RUNS=4 DOC=...)
set -eu
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
# Absolute: perf_ssh hands the CLI's path to a shell on the server, which starts in $HOME.
B=$(cd "${1:-$ROOT/build/release}" && pwd)
CLI=$B/app/cli/ctxscope-cli
GUI=$B/app/gui/ctxscope
CPU=${CPU:-0}
CPU2=${CPU2:-1} # the other CPU of the cross-CPU traced run
RUNS=${RUNS:-5}
APP_RUNS=${APP_RUNS:-4} # the app's futex runs while its CPU time is measured
WATCH_ROUNDS=${WATCH_ROUNDS:-3}
OUT=$B/perf
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.txt "$OUT"/*.log
say() { printf '\033[1mperf:\033[0m %s (load average %s)\n' "$*" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }
p50() { jq '.benchmarks[0].stats.p50' "$1"; }
# stamp FILE: the start of a step, for its seconds and load average.
stamp() { echo "{\"start\":$(date +%s.%N),\"load_start\":$(load)}" >"$1"; }

date -u +%Y-%m-%dT%H:%M:%SZ >"$OUT/date.txt"
sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$B/CMakeCache.txt" | tr 'A-Z' 'a-z' >"$OUT/build.txt"
"$CLI" sysinfo --json >"$OUT/sysinfo.json"
"$CLI" sysinfo >"$OUT/sysinfo.txt"

say "1/6 harness overhead (perf_harness)"
stamp "$OUT/harness.stamp.json"
"$B/tests/perf/perf_harness" --json "$OUT/harness.json" || true

# Under SCHED_OTHER every tool is preempted by whatever else runs; at SCHED_FIFO (root or
# RLIMIT_RTPRIO) nothing else runs on the CPU, so the second pass shows the counting alone.
say "spin against a bare two-thread loop (perf_spin)"
stamp "$OUT/spin.stamp.json"
"$B/tests/perf/perf_spin" --json "$OUT/spin.json" || true

say "the interference accounting's cost on run syscall (perf_interference)"
"$B/tests/perf/perf_interference" --json "$OUT/interference.json" >"$OUT/interference.txt" || say "perf_interference: goal not met or could not run"

say "watching a process of 1,000 threads at 2 Hz (perf_watch)"
"$B/tests/perf/perf_watch" --json "$OUT/watch.json" >"$OUT/watch.txt" || say "perf_watch: goal not met or could not run"
"$B/tests/perf/perf_watch" --waking --json "$OUT/watch-waking.json" >>"$OUT/watch.txt" ||
    say "perf_watch --waking: could not run"

say "ctxscope-cli watch (each backend) and its peers on 1,000 threads waking every 100 ms (perf_watch_cli, $WATCH_ROUNDS rounds)"
"$B/tests/perf/perf_watch_cli" "$CLI" --rounds "$WATCH_ROUNDS" --seconds 10 --interval 0.5 --json-lines --peers \
    --json "$OUT/watch-cli.json" >"$OUT/watch-cli.txt" ||
    say "perf_watch_cli: a goal not met or could not run (see $OUT/watch-cli.txt)"
cat "$OUT/watch-cli.txt"
say "the app's traced watch without the widgets: the worker's full and lean streams of the same program (perf_worker_watch)"
"$B/tests/perf/perf_worker_watch" "$CLI" --rounds "$WATCH_ROUNDS" --seconds 10 --json "$OUT/worker-watch.json" \
    >"$OUT/worker-watch.txt" || say "perf_worker_watch: the goal not met or could not run (see $OUT/worker-watch.txt)"
cat "$OUT/worker-watch.txt"

# The watch's probes inside the watched program, per scheduler event, BPF against ftrace.
say "a watch's probes per scheduler event: workload pingpong on CPU $CPU watched from CPU $CPU2 (watch_probe_cost.sh)"
stamp "$OUT/watch-probe.stamp.json"
CPU=$CPU CPU2=$CPU2 ROUNDS=$WATCH_ROUNDS OUT="$OUT/watch-probe.json" "$ROOT/tests/perf/watch_probe_cost.sh" "$CLI" \
    >"$OUT/watch-probe.txt" 2>"$OUT/watch-probe.log" || say "watch_probe_cost.sh failed (see $OUT/watch-probe.log)"
cat "$OUT/watch-probe.txt"

# The BPF watch's programs by the kernel's own count, per run and per wake-up.
say "the BPF watch's programs by the kernel's count: pingpong on CPU $CPU and 1,000 sleepers (watch_prog_cost.sh)"
stamp "$OUT/watch-prog.stamp.json"
CPU=$CPU CPU2=$CPU2 ROUNDS=$WATCH_ROUNDS OUT="$OUT/watch-prog.json" "$ROOT/tests/perf/watch_prog_cost.sh" "$CLI" \
    >"$OUT/watch-prog.txt" 2>"$OUT/watch-prog.log" || say "watch_prog_cost.sh failed (see $OUT/watch-prog.log)"
cat "$OUT/watch-prog.txt"

# A traced run is a run of its own after the untraced one: its mean per op against the
# untraced mean is what tracing costs (needs root or a tracefs the group may write).
# On one PU and across two CPUs, each backend (bpf: cut in the kernel; ftrace: every event
# recorded), alternating.
say "tracing's cost: run futex --trace on one PU ($CPU,$CPU) and across CPUs ($CPU,$CPU2), bpf and ftrace, $RUNS each"
stamp "$OUT/trace.stamp.json"
for cpus in "$CPU,$CPU" "$CPU,$CPU2"; do
    for i in $(seq "$RUNS"); do
        for backend in bpf ftrace; do
            "$CLI" run futex --cpus "$cpus" --trace --trace-backend $backend \
                --json "$OUT/trace-$cpus-$backend-$i.json" >/dev/null 2>>"$OUT/trace.log" ||
                say "run futex --cpus $cpus --trace --trace-backend $backend failed (see $OUT/trace.log)"
        done
    done
done

# The same cost taken apart: each group of the traced run's events on its own, per op and per
# event (tests/perf/trace_probe_cost.sh: a private instance, never the global one).
say "tracing's cost per event group: run futex on one PU ($CPU,$CPU) under an instance recording each group"
stamp "$OUT/event-cost.stamp.json"
CPU=$CPU ROUNDS=$RUNS OUT="$OUT/event-cost.json" "$ROOT/tests/perf/trace_probe_cost.sh" "$CLI" \
    >"$OUT/event-cost.txt" 2>>"$OUT/trace.log" || say "trace_probe_cost.sh failed (see $OUT/trace.log)"
cat "$OUT/event-cost.txt"

# What BPF programs on the same events would cost before doing any work, and with each event
# handed to user space (tests/perf/bpf_hook_cost.sh; nothing pinned, gone with its loader).
say "BPF programs on a traced run's events: run futex on one PU ($CPU,$CPU) with each set loaded (bpf_hook_cost.sh)"
stamp "$OUT/bpf-hooks.stamp.json"
CPU=$CPU CPU2=$CPU2 ROUNDS=$RUNS OUT="$OUT/bpf-hooks.json" "$ROOT/tests/perf/bpf_hook_cost.sh" "$CLI" \
    >"$OUT/bpf-hooks.txt" 2>"$OUT/bpf-hooks.log" || say "bpf_hook_cost.sh failed (see $OUT/bpf-hooks.log)"
cat "$OUT/bpf-hooks.txt"

# One pair of an all-pairs spin matrix, repeated: its time x 8,128 (the pairs of 128 PUs).
say "time per pair of matrix spin --all-pairs (perf_matrix)"
stamp "$OUT/matrix.stamp.json"
"$B/tests/perf/perf_matrix" --json "$OUT/matrix.json" || true

say "2/6 agreement with peers (compare-peers.sh), SCHED_OTHER then SCHED_FIFO"
stamp "$OUT/peers.stamp.json"
OUT="$OUT/peers.json" CPU=$CPU "$ROOT/tests/perf/compare-peers.sh" "$CLI" || say "compare-peers.sh failed"
stamp "$OUT/peers-fifo.stamp.json"
OUT="$OUT/peers-fifo.json" CPU=$CPU POLICY=fifo "$ROOT/tests/perf/compare-peers.sh" "$CLI" ||
    say "compare-peers.sh (fifo) failed"

say "3/6 repeatability: $RUNS runs of futex same-pu (defaults)"
stamp "$OUT/repeat.stamp.json"
for i in $(seq "$RUNS"); do
    "$CLI" run futex --cpus "$CPU,$CPU" --json "$OUT/repeat-$i.json" >/dev/null
    echo "{\"run\":$i,\"p50\":$(p50 "$OUT/repeat-$i.json"),\"load\":$(load)}"
done | jq -s . >"$OUT/repeat.json"

say "4/6 observer effect: the GUI (live plot, offscreen) and the CLI alternately, $RUNS each"
stamp "$OUT/observer.stamp.json"
CONF=$(mktemp -d) # the GUI's default run settings (0.2 s x 5, SCHED_OTHER), the CLI's defaults
for i in $(seq "$RUNS"); do
    "$CLI" run futex --cpus "$CPU,$CPU" --json "$OUT/observer-cli-$i.json" >/dev/null
    XDG_CONFIG_HOME=$CONF QT_QPA_PLATFORM=offscreen "$GUI" --run futex --cpus "$CPU,$CPU" --plot live \
        --save-results "$OUT/observer-gui-$i.json" --quit 2>>"$OUT/observer-gui.log"
    echo "{\"pair\":$i,\"cli_p50\":$(p50 "$OUT/observer-cli-$i.json"),\"gui_p50\":$(p50 "$OUT/observer-gui-$i.json"),\"load\":$(load)}"
done | jq -s . >"$OUT/observer.json"
rm -rf "$CONF"

# The real app under Xvfb when it is installed (as on a desk), else offscreen: its own CPU time
# while its worker's tasks run, live plot then quiet stage.
say "the app's own CPU share during $APP_RUNS futex runs on CPUs $CPU,$CPU2 (perf_app_cpu)"
stamp "$OUT/app-cpu.stamp.json"
if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1280x800x24" "$B/tests/perf/perf_app_cpu" "$GUI" --cpus "$CPU,$CPU2" --runs "$APP_RUNS" \
        --json "$OUT/app-cpu.json" >"$OUT/app-cpu.txt" 2>&1 || say "perf_app_cpu: goal not met or could not run"
else
    QT_QPA_PLATFORM=offscreen "$B/tests/perf/perf_app_cpu" "$GUI" --cpus "$CPU,$CPU2" --runs "$APP_RUNS" \
        --json "$OUT/app-cpu.json" >"$OUT/app-cpu.txt" 2>&1 || say "perf_app_cpu: goal not met or could not run"
fi
cat "$OUT/app-cpu.txt"

say "5/6 GUI speed (perf_gui, offscreen)"
stamp "$OUT/gui.stamp.json"
"$B/tests/perf/perf_gui" --json "$OUT/gui.json" 2>"$OUT/gui.log" || true

say "opening a 200 MB session in the app (perf_open, offscreen)"
"$B/tests/perf/perf_open" --json "$OUT/open.json" >"$OUT/open.log" 2>&1 || say "perf_open: goal not met or could not run (see $OUT/open.log)"
cat "$OUT/open.log"

say "measuring through ssh on loopback (perf_ssh: a local sshd, the app through ssh and locally)"
stamp "$OUT/ssh.stamp.json"
"$B/tests/perf/perf_ssh" "$CLI" "$GUI" --runs "$RUNS" --cpu "$CPU" --json "$OUT/ssh.json" 2>"$OUT/ssh.log" ||
    say "perf_ssh: goal not met or could not run (see $OUT/ssh.log)"

say "6/6 working-set sweep: the default grid, then 2 points per octave"
for ppo in 1 2; do
    stamp "$OUT/sweep$ppo.stamp.json"
    start=$(date +%s.%N)
    "$CLI" sweep futex --cpus "$CPU,$CPU" --points-per-octave $ppo --json "$OUT/sweep$ppo-result.json" >/dev/null
    end=$(date +%s.%N)
    jq --argjson s "$start" --argjson e "$end" --argjson l "$(load)" --argjson ppo $ppo \
        '{points_per_octave: $ppo, points: (.benchmarks | length), seconds: ($e - $s), load_end: $l,
          largest_ws: ([.benchmarks[].ws_bytes // 0] | max)}' "$OUT/sweep$ppo-result.json" >"$OUT/sweep$ppo.json"
done

# The whole survey as a user runs it (its default budget), timed from outside: start-up, the
# context read, every run and the card written.
say "the survey's wall time (ctxscope-cli survey --json, default budget)"
stamp "$OUT/survey.stamp.json"
start=$(date +%s.%N)
if "$CLI" survey --json "$OUT/survey-card.json" >"$OUT/survey.txt" 2>"$OUT/survey.log"; then
    end=$(date +%s.%N)
    jq --argjson s "$start" --argjson e "$end" --argjson l "$(load)" \
        '{seconds: ($e - $s), runs: (.benchmarks | length), skipped: (.survey.skipped | length),
          budget: .survey.budget_seconds, estimate: .survey.estimate_seconds, load_end: $l}' \
        "$OUT/survey-card.json" >"$OUT/survey.json"
else
    say "ctxscope-cli survey failed (see $OUT/survey.log)"
fi

# Last: 10,000 threads waking together run up a load average of hundreds, which takes minutes
# to decay, and the steps that followed them were measured in its tail.
# The program takes the CPUs whole on a small machine and keeps thousands of tasks runnable: the
# watches run at SCHED_FIFO 1 (--realtime), so that their windows measure their work, not their
# wait in that queue.
say "the watch of 1,000 threads again with 10,000 threads (bpf and ftrace, at real-time priority; one round)"
"$B/tests/perf/perf_watch_cli" "$CLI" --rounds 1 --seconds 10 --interval 0.5 --json-lines --threads 10000 \
    --realtime --backends bpf,ftrace --json "$OUT/watch-cli-10k.json" >"$OUT/watch-cli-10k.txt" ||
    say "perf_watch_cli 10,000 threads: a goal not met or could not run (see $OUT/watch-cli-10k.txt)"
cat "$OUT/watch-cli-10k.txt"
# The same BPF watch of 10,000 threads with the program stopped (SIGSTOP): every thread is
# still read, compared and written each interval, with nothing competing for the CPUs. What the
# figure above owes to the crowded machine (performance.md, the misses).
say "the BPF watch of 10,000 threads again with the program stopped"
"$B/tests/perf/perf_watch_cli" "$CLI" --rounds 1 --seconds 10 --interval 0.5 --json-lines --threads 10000 --stopped \
    --backends bpf --json "$OUT/watch-cli-10k-stopped.json" >"$OUT/watch-cli-10k-stopped.txt" ||
    say "perf_watch_cli 10,000 threads stopped: could not run (see $OUT/watch-cli-10k-stopped.txt)"
cat "$OUT/watch-cli-10k-stopped.txt"

# The table at the top of docs/performance.md is this run's (git keeps the earlier ones).
python3 "$ROOT/tests/perf/perf_report.py" "$OUT" "$B/perf-report.json" "${DOC-$ROOT/docs/performance.md}"
