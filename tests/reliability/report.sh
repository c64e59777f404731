#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the reliability tests and rewrites the block of docs/reliability.md between its
# reliability-run markers with what this run found: the date, the commit, the build, the
# machine (CPUs, kernel, virtualization), the count of passed, skipped and failed tests, and
# each test's result and seconds. The block is never edited by hand; git keeps earlier ones.
# The tests run one at a time (ctest's default; CTEST_PARALLEL_LEVEL is unset here): the tests
# that trace share the kernel's tracing and assume a serial run.
# Usage: tests/reliability/report.sh [BUILD_DIR] [ctest args...]
#   BUILD_DIR  a configured and built tree (default build/asan, what ./packaging/dev.sh test builds)
#   ctest args what to run instead of `-L reliability` (e.g. nothing but `-L soak`, or `-LE soak`)
#   env DOC=   another page to rewrite; DOC= (empty) rewrites none and prints the block
# The test output stays in BUILD_DIR/reliability-report.xml (JUnit, each test's output included).
# Exit status: ctest's (0 when every test ran passed or skipped), 2 on bad usage.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="${1:-$ROOT/build/asan}"
[ $# -gt 0 ] && shift
[ -f "$B/CTestTestfile.cmake" ] || { echo "report.sh: $B is not a configured build tree" >&2; exit 2; }
B="$(cd "$B" && pwd)"
selection=("$@")
[ ${#selection[@]} -eq 0 ] && selection=(-L reliability)
DOC="${DOC-$ROOT/docs/reliability.md}"
XML="$B/reliability-report.xml"

# The machine and the tree, read before the run.
date=$(date -u +%Y-%m-%dT%H:%MZ)
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit with local changes"
build=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
preset=$(basename "$B")
cpus=$(nproc)
kernel=$(uname -r)
virt=$(systemd-detect-virt 2>/dev/null || true) # prints "none" on bare metal, exits 1
[ -n "$virt" ] || virt="not known (no systemd-detect-virt)"
load_start=$(cut -d' ' -f1 /proc/loadavg)

# The asan test preset's environment (CMakePresets.json), which `ctest --test-dir` does not apply;
# harmless for other builds. A value already set wins.
export ASAN_OPTIONS="${ASAN_OPTIONS-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM-offscreen}"

rc=0
(unset CTEST_PARALLEL_LEVEL; ctest --test-dir "$B" "${selection[@]}" --output-junit "$XML" >&2) || rc=$?
load_end=$(cut -d' ' -f1 /proc/loadavg)
[ -f "$XML" ] || { echo "report.sh: ctest wrote no $XML" >&2; exit "${rc:-1}"; }

export REPORT_DATE="$date" REPORT_COMMIT="$commit" REPORT_BUILD="$preset build (${build:-build type not set})" \
    REPORT_CTEST="ctest ${selection[*]}" REPORT_MACHINE="$cpus CPUs (nproc), kernel $kernel, virtualization $virt" \
    REPORT_LOAD="load average $load_start at the start, $load_end at the end"
block=$(python3 - "$XML" <<'EOF'
import os, sys, xml.etree.ElementTree as ET
e = os.environ
rows, passed, skipped, failed, total_s = [], 0, 0, 0, 0.0
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    seconds = float(case.get("time", "0"))
    total_s += seconds
    if case.find("failure") is not None or case.get("status") == "fail":
        result, failed = "**failed**", failed + 1
    elif case.find("skipped") is not None or case.get("status") in ("disabled", "notrun"):
        result, skipped = "skipped", skipped + 1
    else:
        result, passed = "pass", passed + 1
    rows.append(f"| `{case.get('name')}` | {result} | {seconds:.1f} |")
print(f"Last run of `tests/reliability/report.sh`: {e['REPORT_DATE']}, commit {e['REPORT_COMMIT']}, "
      f"{e['REPORT_BUILD']}, `{e['REPORT_CTEST']}` one test at a time, on {e['REPORT_MACHINE']}; "
      f"{e['REPORT_LOAD']}. **{passed} of {passed + skipped + failed} pass**, {skipped} skipped, "
      f"{failed} failed; {total_s:.0f} s of tests.")
print()
print("| test | result | seconds |")
print("|---|---|---|")
print("\n".join(rows))
EOF
)

if [ -z "$DOC" ]; then
    printf '%s\n' "$block"
    exit "$rc"
fi
REPORT_BLOCK="$block" python3 - "$DOC" <<'EOF'
import os, sys
doc = sys.argv[1]
begin = "<!-- reliability-run: written by tests/reliability/report.sh; edits here are overwritten -->"
end = "<!-- reliability-run end -->"
text = open(doc, encoding="utf-8").read()
if begin not in text or end not in text:
    sys.exit(f"report.sh: {doc} has no reliability-run markers; not rewritten")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w", encoding="utf-8").write(f"{head}{begin}\n{os.environ['REPORT_BLOCK']}\n{end}{tail}")
print(f"report.sh: {doc} rewritten", file=sys.stderr)
EOF
exit "$rc"
