#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lesson_trace.sh CLI: `lesson inside-a-switch` through the real binary. Each of its placements
# (one PU, and the farthest class where the machine has two PUs) carries a trace block with
# segments in its result entry, the conclusion names a step those segments measured with its
# share, and --trace-out writes a trace.dat that trace-cmd reads. Then `lesson pinning --trace`
# quotes its traced step in the JSON too. Needs root (CI runs as root); exit 77 otherwise.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-lesson-trace-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: tracing needs root here (running as $(id -un))"; exit 77; }
command -v trace-cmd >/dev/null || fail "trace-cmd is missing (dev.sh installs it)"

"$cli" lesson inside-a-switch --min-time 0.02 --repetitions 2 --trace-ops 2000 --json "$dir/l.json" \
    --trace-out "$dir/t.dat" >"$dir/out.txt" 2>"$dir/err.txt" || fail "the lesson failed: $(cat "$dir/err.txt")"
grep -q "wrote the trace of futex on CPUs" "$dir/err.txt" || fail "no trace written: $(cat "$dir/err.txt")"
grep -q "% of it was" "$dir/out.txt" || fail "the text conclusion names no step: $(cat "$dir/out.txt")"
python3 - "$dir/l.json" <<'PY' || exit 1
import json, re, sys
lesson = json.load(open(sys.argv[1]))
def fail(why):
    print("FAIL:", why); print(json.dumps(lesson, indent=1)[:4000]); sys.exit(1)
if lesson["id"] != "inside-a-switch": fail("id")
results = lesson["results"]
if len(results) != len(lesson["steps"]) or not results: fail("one result per step")
if any(r["bench"] != "futex" for r in results): fail("futex only")
if lesson["failures"]: fail("failures: %s" % lesson["failures"])
names = set()
for r in results:
    seg = r.get("trace", {}).get("segments", [])
    if not seg: fail("no segments for CPUs %s" % r["cpus"])
    one_pu = len(set(r["cpus"])) == 1
    if any(s["cross_cpu"] == one_pu and s["count"] > 10 for s in seg if s["name"] == "return to user"):
        fail("the wrong kind of hand-over for CPUs %s" % r["cpus"])
    names |= {s["name"] for s in seg}
if len(lesson["steps"]) > 1 and len({len(set(r["cpus"])) for r in results}) != 2:
    fail("not one PU and across")
quoted = [m for c in lesson["conclusion"] for m in re.findall(r"(\d+)% of it was ([^(]+?) \(", c)]
if len(quoted) != len(results): fail("a share per placement: %s" % quoted)
for share, name in quoted:
    if name not in names: fail("%r is no measured segment" % name)
    if not 0 < int(share) <= 100: fail("share %s" % share)
PY
trace-cmd report "$dir/t.dat" >"$dir/report.txt" 2>"$dir/report.err" || fail "trace-cmd report failed: $(head -5 "$dir/report.err")"
grep -q "sched_switch" "$dir/report.txt" || fail "the trace.dat holds no sched_switch"

# pinning --trace traces its farthest futex step: one result carries a trace.
"$cli" lesson pinning --min-time 0.02 --repetitions 1 --trace --trace-ops 1000 --json "$dir/p.json" \
    >/dev/null 2>"$dir/err.txt" || fail "lesson pinning --trace failed: $(cat "$dir/err.txt")"
python3 -c 'import json,sys
l = json.load(open(sys.argv[1]))
traced = [r for r in l["results"] if "trace" in r]
n = 1 if len({tuple(r["cpus"]) for r in l["results"]}) > 2 else 0
sys.exit(0 if len(traced) == n else "%d traced results, expected %d" % (len(traced), n))' "$dir/p.json" ||
    fail "pinning --trace"
echo "PASS"
