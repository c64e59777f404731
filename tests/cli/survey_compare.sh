#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# survey_compare.sh CLI: a short survey (--budget 6) writes a machine card; its figures agree
# with the same benchmarks run alone; compare reads it against itself, against a copy whose
# futex figures were doubled (those rows change, no other row does), in all four formats; and
# refuses a missing file, a directory and JSON of another kind with one sentence and exit 2.
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-survey-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v jq >/dev/null || fail "jq is missing (packaging/dev.sh deps installs it)"

"$cli" survey --budget 6 --json "$dir/card.json" >"$dir/summary.txt" 2>"$dir/err.txt" \
    || fail "survey failed: $(cat "$dir/err.txt")"
jq -e '.survey.suite_version == 2 and .survey.budget_seconds == 6 and (.benchmarks | length) > 0' "$dir/card.json" \
    >/dev/null || fail "the card has no survey block or no figures: $(jq -c .survey "$dir/card.json")"
jq -e '.benchmarks[0].bench == "syscall"' "$dir/card.json" >/dev/null \
    || fail "the survey's first run is not syscall: $(jq -r '.benchmarks[0].name' "$dir/card.json")"
# Version 2's parts: the knee's block (6 s leave its runs out, each named), the traced block, and
# every spin run's line with its first toucher and its node (or the kernel's reason).
jq -e '(.survey.working_set | has("sizes") and has("knee")) and (.survey.traced | type == "array")
    and ([.survey.skipped[] | select(.what | test("^(futex thread|touch), one PU \\(CPU [0-9]+\\), W = "))] | length > 0)' \
    "$dir/card.json" >/dev/null || fail "the knee's runs are not in the block or not named as skipped: $(jq -c .survey "$dir/card.json")"
jq -e '[.benchmarks[] | select(.bench == "spin") | select(.line.first_task != 0 or (.line.node == null and .line.node_error == null))]
    | length == 0' "$dir/card.json" >/dev/null || fail "a spin run has no line: $(jq -c '[.benchmarks[] | select(.bench == "spin") | .line]' "$dir/card.json")"
seconds=$(jq '.survey.seconds' "$dir/card.json")
jq -e '.survey.seconds <= 6' "$dir/card.json" >/dev/null || fail "the survey took $seconds s with a budget of 6 s"
jq -e '.context.ctxscope.sysinfo | has("microcode") and has("idle_states") and has("idle_governor")
    and has("cpu_dma_latency_us") and has("haltpoll_ns")' "$dir/card.json" >/dev/null \
    || fail "the card's context has no microcode or idle configuration: $(jq -c '.context.ctxscope.sysinfo' "$dir/card.json")"
# The idle configuration is in the summary too (the PM QoS limit, or why it is unknown).
grep -Eq "^ *cpu_dma_latency" "$dir/summary.txt" || fail "the summary does not give cpu_dma_latency: $(cat "$dir/summary.txt")"
grep -Eq "^skipped: touch, one PU \(CPU [0-9]+\), W = 4 KiB: " "$dir/summary.txt" || fail "the summary does not say what it skipped: $(cat "$dir/summary.txt")"
grep -Eq "^syscall +same-pu " "$dir/summary.txt" || fail "the summary has no syscall row: $(cat "$dir/summary.txt")"

# The card's figures agree with the same benchmarks run on their own, with the card's time per
# repetition: the ratio of the medians between 0.5 and 2. The machine that runs the tests is
# shared (a futex round trip on one PU measured 4.7, 6.0 and 6.9 us in three runs there), so
# tighter fails on load alone; a wrong placement (futex across PUs is 5-7 times one PU there)
# or unit is off by far more.
min_time=$(jq '.survey.min_time_seconds' "$dir/card.json")
for pick in 'syscall thread same-pu' 'futex thread same-pu'; do
    set -- $pick
    cpus=$(jq -r --arg b "$1" --arg m "$2" --arg r "$3"         '[.benchmarks[] | select(.bench == $b and .mode == $m and .relation == $r)][0].cpus | map(tostring) | join(",")' "$dir/card.json")
    "$cli" run "$1" --mode "$2" --cpus "$cpus" --min-time "$min_time" --repetitions 3 --json "$dir/alone.json" >/dev/null 2>&1 \
        || fail "run $pick failed"
    "$cli" compare "$dir/card.json" "$dir/alone.json" --format json >"$dir/alone-cmp.json" || fail "compare with run $pick failed"
    jq -e --arg b "$1" --arg m "$2" --arg r "$3" \
        '[.rows[] | select(.bench == $b and .mode == $m and .relation == $r)][0].cells[1].ratio | . > 0.5 and . < 2' \
        "$dir/alone-cmp.json" >/dev/null \
        || fail "$pick on its own is far from the card's: $(jq -c '.rows[] | select(.bench == "'"$1"'")' "$dir/alone-cmp.json")"
done

# A card against itself: every row has a ratio of 1, and no verdict says it matters.
"$cli" compare "$dir/card.json" "$dir/card.json" --format json >"$dir/self.json" || fail "compare with itself failed"
rows=$(jq '.rows | length' "$dir/self.json")
[ "$rows" -eq "$(jq '.benchmarks | length' "$dir/card.json")" ] || fail "$rows rows for $(jq '.benchmarks | length' "$dir/card.json") runs"
jq -e '[.rows[].cells[1] | select(.ratio != 1 or .verdict == "matters")] | length == 0' "$dir/self.json" >/dev/null \
    || fail "the card differs from itself: $(jq -c '.rows[].cells[1]' "$dir/self.json")"

# The futex figures doubled: those rows have ratio 2 and no other row changes.
jq '(.benchmarks[] | select(.bench == "futex")) |= (.real_time *= 2 | .cpu_time *= 2 | .stats.p50 *= 2
    | .repetition_medians |= map(. * 2))' "$dir/card.json" >"$dir/doubled.json"
"$cli" compare "$dir/card.json" "$dir/doubled.json" --format json >"$dir/doubled-cmp.json" || fail "compare with the copy failed"
jq -e '[.rows[] | select(.bench == "futex")] | length > 0' "$dir/doubled-cmp.json" >/dev/null || fail "no futex row"
# A doubled row is never "the same": it matters, or is unclear when its repetitions varied too
# much on this shared machine (the engine test checks matters on steady figures).
jq -e '([.rows[] | select(.bench == "futex") | .cells[1] | select(.ratio != 2 or .verdict == "the same")] | length == 0)
    and ([.rows[] | select(.bench == "futex") | .cells[1] | select(.verdict == "matters")] | length > 0)' \
    "$dir/doubled-cmp.json" >/dev/null \
    || fail "a doubled futex row does not matter: $(jq -c '.rows[] | select(.bench == "futex")' "$dir/doubled-cmp.json")"
jq -e '[.rows[] | select(.bench != "futex") | .cells[1] | select(.verdict == "matters" or .ratio != 1)] | length == 0' \
    "$dir/doubled-cmp.json" >/dev/null || fail "a row other than futex changed: $(jq -c .rows "$dir/doubled-cmp.json")"

# The four formats.
"$cli" compare "$dir/card.json" "$dir/doubled.json" >"$dir/t.txt" || fail "text failed"
grep -Eq "^futex thread +same-pu .* 2\.00 \(" "$dir/t.txt" || fail "the text has no futex row with ratio 2.00: $(cat "$dir/t.txt")"
"$cli" compare "$dir/card.json" "$dir/doubled.json" --format markdown | head -1 | grep -q "^| benchmark | class | card | doubled |" \
    || fail "markdown has no header row"
csv=$("$cli" compare "$dir/card.json" "$dir/doubled.json" --format csv) || fail "csv failed"
[ "$(echo "$csv" | head -1)" = "benchmark,mode,relation,ws_bytes,machine,median_ns,ratio,ratio_low,ratio_high,verdict" ] \
    || fail "csv header: $(echo "$csv" | head -1)"
[ "$(echo "$csv" | wc -l)" -eq $((1 + 2 * rows)) ] || fail "csv has $(echo "$csv" | wc -l) lines for $rows rows"
# --baseline picks the other file: the futex ratios become 0.5.
"$cli" compare "$dir/card.json" "$dir/doubled.json" --baseline "$dir/doubled.json" --format json \
    | jq -e '.baseline == "doubled" and ([.rows[] | select(.bench == "futex") | .cells[0].ratio] | all(. == 0.5))' >/dev/null \
    || fail "--baseline did not divide by the doubled file"

# A lesson file carries its machine's context and compares with the card by class.
"$cli" lesson mode-switch --min-time 0.01 --repetitions 2 --json "$dir/lesson.json" >/dev/null 2>&1 || fail "the lesson failed"
jq -e '.context.ctxscope.sysinfo.kernel | length > 0' "$dir/lesson.json" >/dev/null || fail "the lesson file has no context"
"$cli" compare "$dir/card.json" "$dir/lesson.json" --format json \
    | jq -e '(.notes | length == 0) and ([.rows[] | select(.cells[1].median_ns != null) | .bench] | index("syscall") != null)' \
    >/dev/null || fail "the lesson file does not compare with the card"

# Ctrl-C: the card is written with what finished, the rest named as interrupted, exit 130.
"$cli" survey --budget 6 --json "$dir/interrupted.json" >/dev/null 2>&1 &
survey=$!
sleep 1
kill -INT "$survey"
wait "$survey"
code=$?
[ "$code" -eq 130 ] || fail "an interrupted survey exits $code, not 130"
jq -e '.survey.cancelled and ([.survey.skipped[] | select(.why == "interrupted before it finished")] | length > 0)' \
    "$dir/interrupted.json" >/dev/null || fail "the interrupted card: $(jq -c .survey "$dir/interrupted.json")"

# Refused: one sentence on stderr, exit 2, nothing on stdout.
expect_refused() {
    local what=$1 pattern=$2
    shift 2
    "$cli" "$@" >"$dir/out" 2>"$dir/err"
    local code=$?
    [ "$code" -eq 2 ] || fail "$what: exit $code, not 2"
    [ ! -s "$dir/out" ] || fail "$what: wrote to stdout: $(cat "$dir/out")"
    [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$what: not one line: $(cat "$dir/err")"
    grep -q -- "$pattern" "$dir/err" || fail "$what: '$(cat "$dir/err")' does not say '$pattern'"
}
expect_refused "a missing file" "/nonexistent.json: No such file or directory" compare "$dir/card.json" /nonexistent.json
expect_refused "a directory" "$dir: not a regular file" compare "$dir/card.json" "$dir"
echo '{"version": 1, "runs": []}' >"$dir/session.json"
expect_refused "another kind of JSON" "session.json: not a ctxscope results file or machine card" \
    compare "$dir/card.json" "$dir/session.json"
echo '{"context": {' >"$dir/cut.json"
expect_refused "a cut file" "cut.json: " compare "$dir/card.json" "$dir/cut.json"
expect_refused "one file" "at least two files" compare "$dir/card.json"
expect_refused "a bad format" "--format must be text, markdown, csv or json" compare "$dir/card.json" "$dir/card.json" --format yaml
expect_refused "a budget too short" "budget must be 1 to 3600 seconds" survey --budget 0.5
echo "ok: survey of $rows runs in $seconds s, compared in four formats"
