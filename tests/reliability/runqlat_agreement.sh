#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# runqlat_agreement.sh CLI: `watch PID --backend bpf` against libbpf-tools' `runqlat -p PID`
# over overlapping windows on the same program (20 threads waking on a 100 ms timer).
#
# The windows: runqlat starts first and is tracing (it says so) before the watch begins; it is
# stopped (SIGINT, which prints its histogram) after the watch ends, so its window holds the
# watch's. Totals over unequal windows do not compare; rates do: runqlat's count over the
# seconds between its "Tracing" line and the SIGINT, the watch's over its first reading to its
# last (the first sample's mono_ns - interval_s, the last sample's mono_ns). The sleepers wake
# on their own timers, so their wake-up rate does not depend on the window.
# The histograms: runqlat bins each wait by log2 of whole µs (slot 0 holds 0-1 µs, slot k
# 2^k..2^(k+1)-1 µs); the watch by log2 of ns with an exact count and sum. The bins do not line
# up, so the watch's bins are not re-binned exactly. Compared:
#  * the wake-up rates, within 10%;
#  * the watch's exact mean against the bounds runqlat's bins allow (every wait at its bin's
#    lower edge, every wait at its upper edge), 10% slack either side;
#  * the means estimated the same way from both: the watch's bins spread evenly over the µs
#    bins they overlap, each bin's waits at its midpoint, over the waits under 1 ms (below),
#    within 25%, not 10%: the watch's waits begin earlier (below), by 2-4 µs on the 2-vCPU
#    KVM guest, 10-20% of a 25 µs mean, seen as runqlat's 2-3 µs bin moving to 4-7 µs;
#  * the µs bin holding the median wait: the same or adjacent.
# The start of a wait: the watch counts from sched_waking, runqlat from sched_wakeup and
# sched_wakeup_new (the wakee enqueued, a little later): the watch's waits are longer by that
# step: a wake-up of a thread on another CPU goes to it by an interrupt (the wakee is queued on
# its CPU), several µs on a VM (docs/measurement.md).
# Needs root (exit 77 otherwise) and runqlat (dev.sh installs libbpf-tools). A loaded machine
# makes waits longer in both tools alike. stdbuf: runqlat says "Tracing" at once, not at exit. On failure the raw files are kept and named.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-runqlat-XXXXXX)
workload=""
runqlat=""
keep=""
cleanup() {
    [ -n "$runqlat" ] && kill -INT "$runqlat" 2>/dev/null
    [ -n "$workload" ] && kill "$workload" 2>/dev/null
    wait 2>/dev/null
    if [ -n "$keep" ]; then echo "the raw files are in $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    keep=1
    exit 1
}
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: BPF needs root here (running as $(id -un))"; exit 77; }
command -v runqlat >/dev/null || fail "runqlat is missing (dev.sh installs libbpf-tools)"
command -v python3 >/dev/null || fail "python3 is missing"

"$cli" workload sleepers --threads 20 --duration 60 >"$dir/workload.txt" 2>&1 &
workload=$!
for _ in $(seq 1 50); do grep -q "threads:" "$dir/workload.txt" && break; sleep 0.1; done
grep -q "threads:" "$dir/workload.txt" || fail "the workload did not start: $(cat "$dir/workload.txt")"

stdbuf -oL runqlat -p "$workload" >"$dir/runqlat.txt" 2>&1 &
runqlat=$!
for _ in $(seq 1 300); do grep -q "Tracing" "$dir/runqlat.txt" && break; sleep 0.02; done
began=$(date +%s.%N)
grep -q "Tracing" "$dir/runqlat.txt" || fail "runqlat did not start: $(cat "$dir/runqlat.txt")"
"$cli" watch "$workload" --backend bpf --interval 1 --duration 5 --json "$dir/watch.ndjson" \
    >"$dir/watch.txt" 2>&1 || fail "watch --backend bpf failed: $(cat "$dir/watch.txt")"
sleep 0.05 # runqlat outlasts the watch, by little: its extra time adds waits the watch has not
ended=$(date +%s.%N)
kill -INT "$runqlat"
wait "$runqlat"
runqlat=""

cat >"$dir/compare.py" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
samples = [l for l in lines if l["type"] == "watch_sample"]
summary = lines[-1]
assert summary["type"] == "watch_summary", "no watch_summary"
assert summary["backend"] == "bpf", f"the watch ran {summary['backend']}, not bpf"
seconds = (samples[-1]["mono_ns"] - samples[0]["mono_ns"]) / 1e9 + samples[0]["interval_s"]
theirs_seconds = float(sys.argv[4]) - float(sys.argv[3])

# A full map fails its update, counted as lost_events: no complete histogram to judge.
lost = sum((t.get("sched") or {}).get("lost_events", 0) for t in summary["threads"])
if lost:
    print(f"not judged: the watch lost {lost} events (a full map)")
    sys.exit(3)

# The watch: the process's threads summed.
hist, count, total = [], 0, 0.0
for t in summary["threads"]:
    w = (t.get("sched") or {}).get("wake_latency")
    if not w:
        continue
    count += w["count"]
    total += w["mean_ns"] * w["count"]
    for i, n in enumerate(w["log2_hist"]):
        hist += [0] * (i + 1 - len(hist))
        hist[i] += n
assert sum(hist) == count, f"the watch's bins hold {sum(hist)} waits, its count {count}"

# runqlat: "lo -> hi : count" in µs; the ns range [lo, hi + 1) µs of each bin.
bins = []
for text in open(sys.argv[2]):
    m = re.match(r"^\s*(\d+) -> (\d+)\s*: (\d+)", text)
    if m:
        bins.append((int(m[1]) * 1000, (int(m[2]) + 1) * 1000, int(m[3])))
theirs = sum(n for _, _, n in bins)
assert bins and theirs > 0, "runqlat printed no histogram"
assert bins[0][0] == 0, "runqlat's first bin does not start at 0"

failures = []
rate, theirs_rate = count / seconds, theirs / theirs_seconds
text = f"wake-ups {count} over {seconds:.3f} s = {rate:.1f}/s, runqlat {theirs} over {theirs_seconds:.3f} s = {theirs_rate:.1f}/s"
if abs(rate - theirs_rate) > 0.10 * theirs_rate:
    failures.append(text)
print(text)

mean = total / count
lo = sum(a * n for a, _, n in bins) / theirs
hi = sum(b * n for _, b, n in bins) / theirs
text = f"mean {mean / 1e3:.2f} us (exact), runqlat's bins allow {lo / 1e3:.2f}..{hi / 1e3:.2f} us"
if not 0.9 * lo <= mean <= 1.1 * hi:
    failures.append(text)
print(text)

# The watch's ns bins spread evenly over runqlat's µs bins (extended past its last one).
edges = [(a, b) for a, b, _ in bins]
while edges[-1][1] < 2 ** len(hist):
    a, b = edges[-1][1], 2 * edges[-1][1]
    edges.append((a, b))
ours_us = [0.0] * len(edges)
for i, n in enumerate(hist):
    a, b = (0 if i == 0 else 2 ** i), 2 ** (i + 1)
    for j, (c, d) in enumerate(edges):
        overlap = min(b, d) - max(a, c)
        if n and overlap > 0:
            ours_us[j] += n * overlap / (b - a)
theirs_us = [n for _, _, n in bins] + [0] * (len(edges) - len(bins))
# Waits of 1 ms and more are a loaded machine's stalls (another program's time slice): rare,
# bursty, and the few in runqlat's extra tenths of a second move a mean by more than 10%. The
# estimated means are compared over the waits under 1 ms (the bins below 1024 us); those
# over it are counted, and the exact mean above covers them.
mid = [(a + b) / 2 for a, b in edges]
short = [j for j, (a, _) in enumerate(edges) if a < 1_024_000]
ours_n, theirs_n = sum(ours_us[j] for j in short), sum(theirs_us[j] for j in short)
ours_est = sum(mid[j] * ours_us[j] for j in short) / ours_n
theirs_est = sum(mid[j] * theirs_us[j] for j in short) / theirs_n
text = (f"mean of the waits under 1 ms from the same us bins' midpoints {ours_est / 1e3:.2f} us over {ours_n:.0f}, "
        f"runqlat {theirs_est / 1e3:.2f} us over {theirs_n}; 1 ms and over: {count - ours_n:.0f}, runqlat {theirs - theirs_n}")
if abs(ours_est - theirs_est) > 0.25 * theirs_est:
    failures.append(text)
print(text)

def median_bin(counts, n):
    seen = 0
    for j, c in enumerate(counts):
        seen += c
        if seen >= n / 2:
            return j
ours_med, theirs_med = median_bin(ours_us, count), median_bin(theirs_us, theirs)
text = f"median in the µs bin {edges[ours_med][0] // 1000}..{edges[ours_med][1] // 1000 - 1} us, runqlat {edges[theirs_med][0] // 1000}..{edges[theirs_med][1] // 1000 - 1} us"
if abs(ours_med - theirs_med) > 1:
    failures.append(text)
print(text)
print("  us bin:  " + " ".join(f"{a // 1000}:{round(o)}/{t}" for (a, _), o, t in zip(edges, ours_us, theirs_us)))
if failures:
    print("FAIL: " + "; ".join(failures))
    sys.exit(1)
print(f"PASS: the process's wake-up histogram agrees with runqlat's over {seconds:.3f} s (rates, mean, median bin)")
PY
python3 "$dir/compare.py" "$dir/watch.ndjson" "$dir/runqlat.txt" "$began" "$ended"
case $? in
0) exit 0 ;;
3) echo "SKIPPED: the watch lost events, nothing to judge"; exit 77 ;;
*) fail "the figures disagree" ;;
esac
