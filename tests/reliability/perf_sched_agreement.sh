#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf_sched_agreement.sh CLI: `watch PID --trace` against `perf sched timehist` recorded over
# the same seconds on the same program (20 threads waking on a 100 ms timer). Per thread, the
# switch-ins and the mean scheduling delay (runnable -> running) must agree within 10%. perf
# records with CLOCK_MONOTONIC, the clock of the watch's "mono_ns", so the windows line up.
# Needs root; exit 77 with the reason otherwise. NOT YET IN CTEST: on the development VM it
# agrees in most runs but not all (under load ctxscope's mean delay came out above perf's for
# some threads, cause not found yet), so it is run by hand until it is understood.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-perfsched-XXXXXX)
workload=""
perf=""
busy=""
cleanup() {
    [ -n "$perf" ] && kill -INT "$perf" 2>/dev/null
    [ -n "$busy" ] && kill "$busy" 2>/dev/null
    [ -n "$workload" ] && kill "$workload" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: tracing needs root here (running as $(id -un))"; exit 77; }
command -v perf >/dev/null || fail "perf is missing (dev.sh installs linux-perf)"

# Low-priority busy threads keep every CPU from idling: on some VMs (seen on 6.18) ftrace drops a
# vCPU's switches out of its idle task while perf keeps them, and the watch then counts those
# runs as unrecorded, with no wait to compare. Both tools see the same busy machine.
nice -n 19 "$cli" workload busy --threads "$(nproc)" --duration 30 >/dev/null 2>&1 &
busy=$!
"$cli" workload sleepers --threads 20 --duration 30 >"$dir/workload.txt" 2>&1 &
workload=$!
for _ in $(seq 1 50); do grep -q "threads:" "$dir/workload.txt" && break; sleep 0.1; done
grep -q "threads:" "$dir/workload.txt" || fail "the workload did not start: $(cat "$dir/workload.txt")"

perf sched record -k CLOCK_MONOTONIC -a -o "$dir/perf.data" >"$dir/perf.txt" 2>&1 &
perf=$!
sleep 1 # perf is recording before the watch begins
"$cli" watch "$workload" --trace --interval 1 --duration 4 --json "$dir/watch.ndjson" >"$dir/watch.err" 2>&1 ||
    fail "watch --trace failed: $(cat "$dir/watch.err")"
sleep 0.5
kill -INT "$perf"
wait "$perf"
perf=""
perf sched timehist -i "$dir/perf.data" >"$dir/timehist.txt" 2>"$dir/timehist.err" ||
    fail "perf sched timehist failed: $(head -3 "$dir/timehist.err")"

python3 - "$dir/watch.ndjson" "$dir/timehist.txt" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
samples = [l for l in lines if l["type"] == "watch_sample"]
summary = lines[-1]
assert summary["type"] == "watch_summary", "no watch_summary"
# The trace's events run from the instance's start (just before the first interval) to the last drain.
start = (samples[0]["mono_ns"] - samples[0]["interval_s"] * 1e9) / 1e9
end = samples[-1]["mono_ns"] / 1e9
line = re.compile(r"^\s*(\d+\.\d+)\s+\[\d+\]\s+(.+?)\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
perf = {}
for text in open(sys.argv[2]):
    m = line.match(text)
    if not m:
        continue
    ts, tid, delay = float(m.group(1)), int(m.group(3)), float(m.group(5)) * 1e6
    # timehist prints a line when the task leaves the CPU; its run began "run time" earlier.
    began = ts - float(m.group(6)) / 1e3
    if start <= began <= end:
        perf.setdefault(tid, []).append(delay)
checked = 0
delays = 0
failures = []
for t in summary["threads"]:
    if not t["name"].startswith("sleeper"):
        continue
    s = t.get("sched")
    assert s, f"thread {t['tid']} has no sched block"
    # Switch-ins the kernel did not record (some VMs drop a vCPU's switches out of its idle
    # task from ftrace, not from perf) are counted apart: they count as runs, not as waits.
    ours_in, missing, ours_mean = s["switch_ins"], s["unrecorded_switch_ins"], s["wake_latency"]["mean_ns"]
    theirs = perf.get(t["tid"], [])
    theirs_mean = sum(theirs) / len(theirs) if theirs else 0
    checked += 1
    if not theirs or abs(ours_in + missing - len(theirs)) > 0.10 * len(theirs):
        failures.append(f"{t['tid']}: {ours_in} switch-ins and {missing} unrecorded, perf {len(theirs)}")
        continue
    if missing > 0:
        print(f"{t['tid']} {t['name']}: {ours_in} switch-ins + {missing} the kernel did not record ({len(theirs)} in perf)")
        continue
    delays += 1
    if abs(ours_mean - theirs_mean) > 0.10 * theirs_mean:
        failures.append(f"{t['tid']}: mean delay {ours_mean:.0f} ns, perf {theirs_mean:.0f} ns")
    else:
        print(f"{t['tid']} {t['name']}: {ours_in} switch-ins ({len(theirs)} in perf), "
              f"mean delay {ours_mean/1e3:.1f} us ({theirs_mean/1e3:.1f} us in perf)")
assert checked == 20, f"{checked} sleeper threads in the summary, not 20"
if delays < 5:
    failures.append(f"only {delays} threads had their switch-ins recorded: too few to compare delays")
if failures:
    print("FAIL: " + "; ".join(failures))
    sys.exit(1)
print(f"PASS: 20 threads' runs and {delays} threads' mean delays agree with perf sched timehist within 10% "
      f"over {end - start:.1f} s")
PY
