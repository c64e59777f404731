#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# packaging/test-failures.awk on a LastTest.log as ctest writes it: a failed googletest test is
# named with its failure's message, a failed test without one with its output's end, a passed
# test not at all; a run without a failure prints nothing.
set -euo pipefail
AWK_FILE=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

record() { # number name verdict output-lines...
    local number=$1 name=$2 verdict=$3
    shift 3
    printf '%s/3 Testing: %s\n%s/3 Test: %s\nCommand: "t"\nDirectory: /tmp\n' "$number" "$name" "$number" "$name"
    printf 'Output:\n----------------------------------------------------------\n'
    printf '%s\n' "$@"
    printf '<end of output>\nTest time =   0.51 sec\n----------------------------------------------------------\n'
    printf 'Test %s.\n"%s" end time: Nov 30 22:32 UTC\n' "$verdict" "$name"
    printf -- '----------------------------------------------------------\n\n'
}

{
    printf 'Start testing: Nov 30 22:32 UTC\n----------------------------------------------------------\n'
    record 1 Good.One Passed '[ RUN      ] Good.One' 'src/x.cpp:1: Failure' 'printed by a passing test' '[       OK ] Good.One'
    record 2 Trace.Window Failed '[ RUN      ] Trace.Window' 'noise before' \
        '/work/tests/engine/trace_live_test.cpp:473: Failure' 'Expected: (switches) > (100), actual: 12 vs 100' \
        '[  FAILED  ] Trace.Window (480 ms)'
    record 3 doc.links Failed 'checking 40 links' 'line a' 'line b' 'docs/x.md: no such anchor #y'
} >"$WORK/failed.log"

"${AWK:-awk}" -f "$AWK_FILE" "$WORK/failed.log" >"$WORK/out.txt"
cat "$WORK/out.txt"
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -qx -- '--- Trace.Window failed after 0.51 s:' "$WORK/out.txt" || fail "the failed googletest test is not named"
grep -q 'Expected: (switches) > (100), actual: 12 vs 100' "$WORK/out.txt" || fail "its failure's message is missing"
grep -q 'noise before' "$WORK/out.txt" && fail "output before the failure was printed"
grep -qx -- '--- doc.links failed after 0.51 s:' "$WORK/out.txt" || fail "the failed test without a googletest failure is not named"
grep -q 'no such anchor' "$WORK/out.txt" || fail "its output's end is missing"
grep -q 'Good.One\|passing test' "$WORK/out.txt" && fail "the passed test was printed"

# Seven failures: five with their reasons, the last two by name.
{
    for i in 1 2 3 4 5 6 7; do
        record "$i" "Many.T$i" Failed "x.cpp:$i: Failure" "reason $i"
    done
} >"$WORK/many.log"
"${AWK:-awk}" -f "$AWK_FILE" "$WORK/many.log" >"$WORK/many.txt"
grep -q 'reason 5' "$WORK/many.txt" || fail "the fifth failure's reason is missing"
grep -q 'reason 6' "$WORK/many.txt" && fail "a sixth failure was detailed"
grep -qx -- '--- and 2 more failed: Many.T6 Many.T7' "$WORK/many.txt" || fail "the failures past five are not named"

{ record 1 Good.One Passed '[       OK ] Good.One'; } >"$WORK/passed.log"
[ -z "$("${AWK:-awk}" -f "$AWK_FILE" "$WORK/passed.log")" ] || fail "a run without a failure printed something"
echo "test-failures.awk: all checks passed"
