#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pidstat_agreement.sh CLI: ctxscope's switch rates and affinities against the real tools.
#
# 1. Starts `ctxscope-cli workload pingpong`, pins the pair to one CPU (the observers run on
#    another, where there is one), and runs, side by side, `pidstat -w -t -p PID 5 1`
#    (sysstat) and `ctxscope-cli watch PID --interval 5 --duration 5 --json -`: both read the
#    threads' switch counters once when they start and once 5 s later. Each thread's voluntary +
#    involuntary switches per second must agree within ±10% (of pidstat's figure).
#    How the windows line up: both are started together and each records when it ended; both
#    end right after their second reading, so the difference of the end times is how far the
#    two 5 s windows are apart. An attempt whose windows are more than 150 ms (3%) apart
#    is not judged (the machine was too busy to start two programs together) and is tried
#    again, 3 times at most; when no attempt lines up the test is skipped (exit 77) with the
#    figures, never passed.
# 2. Pins the threads with `ctxscope-cli pin` (each thread to each allowed CPU in turn, then the
#    whole process back) and checks every affinity with `taskset -cp` after every pin.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-pidstat-XXXXXX)
workload=""
cleanup() {
    [ -n "$workload" ] && kill "$workload" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v pidstat >/dev/null || fail "pidstat (Debian's sysstat, packaging/dev.sh installs it) is missing"
command -v taskset >/dev/null || fail "taskset (util-linux) is missing"
command -v python3 >/dev/null || fail "python3 is missing"
now() { date +%s.%N; }

# shellcheck source=../workload.sh
. "$(dirname "$0")/../workload.sh"
start_pingpong 120

# --- 1. switch rates against pidstat -------------------------------------------------------
# The pair on one CPU and the two observers on another, where there are two: an unpinned pair's
# rate moves with what else runs (a wake-up into an idle vCPU costs an exit to the hypervisor,
# into a busy one far less), so a watcher busy starting up or exiting would change the rate
# within one tool's window and not the other's. Unpinned again for part 2.
allowed=$(taskset -cp "$$" | sed 's/.*: //')
observers=()
if [ "$(nproc)" -ge 2 ]; then
    pair_cpu=$(python3 -c "import os; print(sorted(os.sched_getaffinity(0))[0])")
    observer_cpu=$(python3 -c "import os; print(sorted(os.sched_getaffinity(0))[1])")
    taskset -a -cp "$pair_cpu" "$pid" >/dev/null || fail "taskset could not pin the pair to CPU $pair_cpu"
    observers=(taskset -c "$observer_cpu")
fi
judged=""
# Each tool's window is its first reading to its last; what starts a process (an ASan build's
# start-up above all) delays the first reading. The windows' misalignment is the difference of
# the tools' end times; the next attempt starts the earlier-ending tool that much later.
late_pidstat=0
late_watch=0
for attempt in 1 2 3; do
    (sleep "$late_pidstat"; LC_ALL=C S_TIME_FORMAT=ISO "${observers[@]}" pidstat -w -t -p "$pid" 5 1 \
        >"$dir/pidstat.txt" 2>&1
        now >"$dir/pidstat.end") &
    a=$!
    (sleep "$late_watch"; "${observers[@]}" "$cli" watch "$pid" --interval 5 --duration 5 --json - \
        >"$dir/watch.ndjson" 2>&1
        now >"$dir/watch.end") &
    b=$!
    wait "$a" "$b"
    # watch ended later by this many seconds (negative: pidstat did)
    skew=$(python3 -c "import sys; print(float(open(sys.argv[1]).read()) - float(open(sys.argv[2]).read()))" \
        "$dir/watch.end" "$dir/pidstat.end")
    read -r late_pidstat late_watch < <(python3 -c "
import sys
p, w, s = (float(x) for x in sys.argv[1:])
print(f'{max(0.0, p + s):.3f} {max(0.0, w - s):.3f}')
" "$late_pidstat" "$late_watch" "$skew")
    verdict=$(python3 - "$dir" "$ping" "$pong" <<'EOF'
import json, sys
d, tids = sys.argv[1], [int(t) for t in sys.argv[2:]]
gap = abs(float(open(d + "/pidstat.end").read()) - float(open(d + "/watch.end").read()))
# pidstat's "Average:" rows: Average: UID TGID TID cswch/s nvcswch/s Command; a thread's TGID is "-".
pidstat = {}
for row in open(d + "/pidstat.txt"):
    f = row.split()
    if len(f) >= 7 and f[0] == "Average:" and f[2] == "-" and f[3].isdigit():
        pidstat[int(f[3])] = (float(f[4]), float(f[5]))
summary = None
for row in open(d + "/watch.ndjson"):
    try:
        j = json.loads(row)
    except ValueError:
        continue
    if j.get("type") == "watch_summary":
        summary = j
if summary is None:
    print("error no watch_summary line in: " + open(d + "/watch.ndjson").read()[:400])
    sys.exit()
watch = {t["tid"]: (t["voluntary_per_s"], t["involuntary_per_s"]) for t in summary["threads"]}
words, worst = [], 0.0
for tid in tids:
    if tid not in pidstat or tid not in watch:
        print(f"error thread {tid} missing: pidstat has {sorted(pidstat)}, watch {sorted(watch)}")
        sys.exit()
    p, w = sum(pidstat[tid]), sum(watch[tid])
    off = abs(w - p) / p if p > 0 else (0.0 if w == 0 else 1.0)
    worst = max(worst, off)
    words.append(f"TID {tid}: pidstat {pidstat[tid][0]:.0f}+{pidstat[tid][1]:.0f}={p:.0f}/s, "
                 f"ctxscope {watch[tid][0]:.0f}+{watch[tid][1]:.0f}={w:.0f}/s ({off * 100:.1f}% apart)")
state = "apart" if gap > 0.150 else ("agree" if worst <= 0.10 else "disagree")
print(f"{state} windows {gap * 1000:.0f} ms apart; " + "; ".join(words))
EOF
)
    echo "attempt $attempt: $verdict"
    case $verdict in
    error*) fail "$verdict" ;;
    agree* | disagree*) judged=$verdict; break ;;
    esac
done
[ -n "$judged" ] || { echo "SKIP: the two 5 s windows never lined up within 150 ms (a busy machine): $verdict"; exit 77; }
[[ $judged == agree* ]] || fail "switch rates differ by more than 10%: $judged"

# --- 2. affinity after every pin against taskset -p ----------------------------------------
taskset -a -cp "$allowed" "$pid" >/dev/null || fail "taskset could not unpin the pair"
original=$(affinity "$ping")
pins=0
for tid in "$ping" "$pong"; do
    for cpu in $original; do
        out=$("$cli" pin "$tid" "$cpu") || fail "pin $tid $cpu failed: $out"
        [ "$(affinity "$tid")" = "$cpu" ] || fail "taskset -p says $(affinity "$tid") after pinning $tid to $cpu"
        pins=$((pins + 1))
    done
done
restore=$(echo "$original" | tr ' ' ,)
out=$("$cli" pin --process "$pid" "$restore") || fail "pin --process failed: $out"
pins=$((pins + 1))
for task in /proc/"$pid"/task/*; do
    tid=${task##*/}
    [ "$(affinity "$tid")" = "$original" ] || fail "taskset -p says $(affinity "$tid") for $tid after restoring $original"
done
echo "PASS: $judged; taskset -p agreed after each of $pins pins"
