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
# 2^k..2^(k+1)-1 µs); the watch's `wait_from_enqueue` holds the same bins (`log2_us_hist`) with
# an exact count and sum, over the waits runqlat times: from the enqueue (sched_wakeup or
# sched_wakeup_new, or a preemption) to the switch-in. Its `wake_latency` counts the same waits
# from sched_waking, earlier by the wake-up's way to the wakee's CPU (an IPI, an idle exit:
# 25-50% of the mean wait on the 2-vCPU KVM guest), which runqlat does not see. Compared:
#  * both counts of the watch are the same waits (within 2 a thread: a reading can land between
#    a wait's two counts), none longer from the enqueue than from sched_waking (the means);
#  * the wake-up rates, within 10%;
#  * the watch's exact mean against the bounds runqlat's bins allow (every wait at its bin's
#    lower edge, every wait at its upper edge) without the k waits its longer window holds beyond
#    the watch's (below), 10% slack either side;
#  * the means estimated the same way from both bins (each bin's waits at its midpoint) over the
#    waits under 1 ms, within 10% of runqlat's without the k waits its longer window holds
#    beyond the watch's (below): without its k longest, without its k shortest;
#  * the bin holding the median wait: the same or adjacent.
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

# The watch: the process's threads summed, its waits from the enqueue (runqlat's start, in
# runqlat's bins), and the same waits from sched_waking.
hist, count, total, wakes, wake_total, threads = [], 0, 0.0, 0, 0.0, 0
for t in summary["threads"]:
    s = t.get("sched") or {}
    w, q = s.get("wake_latency"), s.get("wait_from_enqueue")
    if not w or w["count"] == 0:
        continue
    assert q is not None, f"thread {t['tid']}: no wait_from_enqueue from the bpf backend"
    threads += 1
    wakes += w["count"]
    wake_total += w["mean_ns"] * w["count"]
    count += q["count"]
    total += q["mean_ns"] * q["count"]
    for i, n in enumerate(q["log2_us_hist"]):
        hist += [0] * (i + 1 - len(hist))
        hist[i] += n
assert sum(hist) == count, f"the watch's bins hold {sum(hist)} waits, its count {count}"

# runqlat: "lo -> hi : count" in whole µs, slot k from 2^k µs; as ns ranges [lo, hi + 1) µs.
bins = []
for text in open(sys.argv[2]):
    m = re.match(r"^\s*(\d+) -> (\d+)\s*: (\d+)", text)
    if m:
        bins.append((int(m[1]) * 1000, (int(m[2]) + 1) * 1000, int(m[3])))
theirs = sum(n for _, _, n in bins)
assert bins and theirs > 0, "runqlat printed no histogram"
assert bins[0][0] == 0, "runqlat's first bin does not start at 0"
# The same bins on both sides, past runqlat's last one too.
while len(bins) < len(hist):
    a, b = bins[-1][1], 2 * bins[-1][1]
    bins.append((a, b, 0))
ours = hist + [0] * (len(bins) - len(hist))
theirs_bins = [n for _, _, n in bins]

failures = []
text = (f"waits from the enqueue {count}, from sched_waking {wakes}; means {total / max(count, 1) / 1e3:.2f} us "
        f"and {wake_total / max(wakes, 1) / 1e3:.2f} us")
# Within 2 a thread: the program counts a wait from sched_waking, then from the enqueue, and a
# reading at either end of the window can land between the two (hence 1% on the means too,
# where the way to the CPU is short).
if abs(count - wakes) > 2 * threads or total / max(count, 1) > 1.01 * wake_total / max(wakes, 1):
    failures.append(text)
print(text)
rate, theirs_rate = count / seconds, theirs / theirs_seconds
text = f"wake-ups {count} over {seconds:.3f} s = {rate:.1f}/s, runqlat {theirs} over {theirs_seconds:.3f} s = {theirs_rate:.1f}/s"
if abs(rate - theirs_rate) > 0.10 * theirs_rate:
    failures.append(text)
print(text)

# runqlat's window holds the watch's and k more waits (its extra tenths of a second: the
# watch's start, loading its programs, and its exit, when a loaded machine's stalls of a
# millisecond or more happen too): the watch's means are compared with runqlat's without any k of
# its waits, from the mean without its k longest to the mean without its k shortest.
def mean_without(k, longest, value, at):
    left = [theirs_bins[j] for j in at]
    order = range(len(at) - 1, -1, -1) if longest else range(len(at))
    for i in order:
        took = min(k, left[i])
        left[i] -= took
        k -= took
    n = sum(left)
    return sum(value(at[i]) * left[i] for i in range(len(at))) / n if n else 0.0
every = list(range(len(bins)))
k_all = max(0, theirs - count)
mean = total / count
lo = mean_without(k_all, True, lambda j: bins[j][0], every)
hi = mean_without(k_all, False, lambda j: bins[j][1], every)
text = f"mean {mean / 1e3:.2f} us (exact), runqlat's bins allow {lo / 1e3:.2f}..{hi / 1e3:.2f} us without {k_all} of its waits"
if not 0.9 * lo <= mean <= 1.1 * hi:
    failures.append(text)
print(text)

# Waits of 1 ms and more are a loaded machine's stalls (another program's time slice): rare,
# bursty, and the few in runqlat's extra tenths of a second move a mean by more than 10%. The
# estimated means are compared over the waits under 1 ms (the bins below 1024 us); those
# over it are counted, and the exact mean above covers them.
# The same over the waits under 1 ms, k being runqlat's extra waits among them.
mid = [(a + b) / 2 for a, b, _ in bins]
short = [j for j, (a, _, _) in enumerate(bins) if a < 1_024_000]
ours_n, theirs_n = sum(ours[j] for j in short), sum(theirs_bins[j] for j in short)
ours_est = sum(mid[j] * ours[j] for j in short) / ours_n
k = max(0, theirs_n - ours_n)
theirs_lo = mean_without(k, True, lambda j: mid[j], short)
theirs_hi = mean_without(k, False, lambda j: mid[j], short)
text = (f"mean of the waits under 1 ms from the bins' midpoints {ours_est / 1e3:.2f} us over {ours_n}, "
        f"runqlat {mean_without(0, True, lambda j: mid[j], short) / 1e3:.2f} us over {theirs_n} ({theirs_lo / 1e3:.2f}..{theirs_hi / 1e3:.2f} us "
        f"without {k} of them); 1 ms and over: {count - ours_n}, runqlat {theirs - theirs_n}")
if not 0.9 * theirs_lo <= ours_est <= 1.1 * theirs_hi:
    failures.append(text)
print(text)

def median_bin(counts, n):
    seen = 0
    for j, c in enumerate(counts):
        seen += c
        if seen >= n / 2:
            return j
ours_med, theirs_med = median_bin(ours, count), median_bin(theirs_bins, theirs)
text = f"median in the bin {bins[ours_med][0] // 1000}..{bins[ours_med][1] // 1000 - 1} us, runqlat {bins[theirs_med][0] // 1000}..{bins[theirs_med][1] // 1000 - 1} us"
if abs(ours_med - theirs_med) > 1:
    failures.append(text)
print(text)
print("  bins (us: ours/runqlat):  " + " ".join(f"{a // 1000}:{o}/{t}" for (a, _, _), o, t in zip(bins, ours, theirs_bins)))
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
