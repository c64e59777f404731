#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace_bpf.sh CLI: `run --trace` cutting the hand-overs in the kernel (--trace-backend bpf), as
# root, through the real binary.
#  1. futex on one CPU, the default backend (auto): the result's trace block names "bpf", the
#     text says the hand-overs were cut in the kernel, two hand-overs and two switches per op,
#     the switches agree with getrusage, and every hand-over has its return to user.
#  2. The same run with --trace-backend ftrace cuts the same steps from the recorded events:
#     the same step names, and as many hand-overs per op within 2%.
#  3. SIGKILL during a long traced run leaves no ctxscope_* program (bpftool prog show).
#  4. Unprivileged (setpriv to nobody): --trace-backend bpf exits 2 with one sentence naming
#     CAP_BPF.
#  5. A kernel that refuses the programs at load (refuse_bpf_load.py): the default records the
#     same run with ftrace and its note gives the kernel's refusal; --trace-backend bpf fails
#     with it (exit 1: found at the traced run, after the untraced one).
#  6. futex across two CPUs, the default: bpf; every switch into a measured task is a hand-over
#     (as many per op as getrusage's switches, within 5%), each cross-CPU hand-over has the
#     wakee's CPU's state, the steps add up to the traced round trip within 10% (where every
#     round trip slept; else they cover the hand-overs' share of it), and each step
#     one backend cuts in at least 10% of its hand-overs the other cuts too (names and events);
#     the idle states they left are named as ftrace names them.
#  7. The same with a busy loop pinned to the wakee's CPU (a copy of sh named ctxscope-hog): the
#     wakee's CPU was busy in most hand-overs, the hog is named as the task preempted or waited
#     behind, and as the busiest other task on that CPU, with most of its time.
# Exit 77 (skipped) where this machine cannot run BPF at all (the sentence says why).
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-trace-bpf-XXXXXX)
chmod 755 "$dir"
bg=""
hog=""
cleanup() {
    [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
    [ -n "$hog" ] && kill -9 "$hog" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v bpftool >/dev/null || fail "bpftool is missing (./packaging/dev.sh deps)"
command -v jq >/dev/null || fail "jq is missing (./packaging/dev.sh deps)"
ours() { bpftool prog show 2>/dev/null | grep -c 'name ctxscope_ho_' || true; }
# The kernel frees a finished run's programs a moment after its process exits.
for _ in $(seq 1 30); do
    [ "$(ours)" = 0 ] && break
    sleep 0.1
done
[ "$(ours)" = 0 ] || fail "ctxscope traced-run programs are loaded before the test"

# 1. The default on one CPU: bpf.
"$cli" run futex --cpus 0,0 --iterations 2000 --repetitions 1 --trace --trace-ops 4000 --json "$dir/bpf.json" \
    >"$dir/bpf.txt" 2>"$dir/bpf.err"
code=$?
if [ $code -ne 0 ] && grep -q "BPF\|BTF" "$dir/bpf.err"; then
    echo "SKIP: $(cat "$dir/bpf.err")"
    exit 77
fi
[ $code -eq 0 ] || fail "the traced run failed ($code): $(cat "$dir/bpf.err")"
trace() { jq -r ".benchmarks[0].trace.$2" "$dir/$1.json"; }
[ "$(trace bpf backend)" = bpf ] || fail "the trace block names $(trace bpf backend), not bpf"
grep -q "^traced (bpf: cut in the kernel" "$dir/bpf.txt" || fail "the text does not say bpf: $(cat "$dir/bpf.txt")"
ops=$(trace bpf ops)
[ "$ops" = 4000 ] || fail "the traced run covered $ops ops, not 4000"
per_op() { jq -r --argjson ops "$2" ".benchmarks[0].trace.$3 / \$ops" "$dir/$1.json"; }
within() { # A B SHARE: |A - B| <= SHARE * B
    awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s * b) }'
}
handovers=$(per_op bpf "$ops" handovers)
within "$handovers" 2 0.02 || fail "$handovers hand-overs per op, not 2 (futex on one CPU)"
within "$(trace bpf switches_per_op)" "$(trace bpf rusage_switches_per_op)" 0.02 ||
    fail "$(trace bpf switches_per_op) switches per op against getrusage's $(trace bpf rusage_switches_per_op)"
returns=$(jq -r '.benchmarks[0].trace.segments[] | select(.name == "return to user") | .count' "$dir/bpf.json")
within "$returns" "$(trace bpf handovers)" 0.01 ||
    fail "$returns returns to user for $(trace bpf handovers) hand-overs"

# 2. ftrace cuts the same steps.
"$cli" run futex --cpus 0,0 --iterations 2000 --repetitions 1 --trace --trace-backend ftrace --trace-ops 4000 \
    --json "$dir/ftrace.json" >"$dir/ftrace.txt" 2>"$dir/ftrace.err" || fail "the ftrace run failed: $(cat "$dir/ftrace.err")"
[ "$(trace ftrace backend)" = ftrace ] || fail "the ftrace run's block names $(trace ftrace backend)"
steps() { jq -r '[.benchmarks[0].trace.segments[] | .name] | sort | join(",")' "$dir/$1.json"; }
[ "$(steps bpf)" = "$(steps ftrace)" ] || fail "bpf cut $(steps bpf), ftrace $(steps ftrace)"
within "$handovers" "$(per_op ftrace "$(trace ftrace ops)" handovers)" 0.02 ||
    fail "bpf found $handovers hand-overs per op, ftrace $(per_op ftrace "$(trace ftrace ops)" handovers)"

# 3. Nothing outlives a killed traced run.
"$cli" run futex --cpus 0,0 --iterations 1000 --repetitions 1 --trace --trace-backend bpf --trace-ops 1000000 \
    >/dev/null 2>&1 &
bg=$!
for _ in $(seq 1 300); do
    [ "$(ours)" -gt 0 ] && break
    sleep 0.05
done
[ "$(ours)" -gt 0 ] || fail "no ctxscope_ho_ program while the traced run ran"
kill -9 "$bg"
wait "$bg" 2>/dev/null
bg=""
for _ in $(seq 1 50); do
    [ "$(ours)" = 0 ] && break
    sleep 0.1
done
[ "$(ours)" = 0 ] || fail "programs outlived a killed traced run: $(bpftool prog show | grep ctxscope_ho_)"

# 4. Unprivileged.
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"
getent group nogroup >/dev/null && group=nogroup || group=nobody
cp "$cli" "$dir/cli" && chmod 755 "$dir/cli"
(cd /tmp && setpriv --reuid=nobody --regid="$group" --clear-groups --inh-caps=-all "$dir/cli" run futex \
    --cpus 0,0 --iterations 200 --repetitions 1 --trace --trace-backend bpf >"$dir/nobody.out" 2>"$dir/nobody.err")
code=$?
[ $code -eq 2 ] || fail "unprivileged --trace-backend bpf exited $code, not 2: $(cat "$dir/nobody.err")"
[ "$(wc -l <"$dir/nobody.err")" -eq 1 ] && grep -q "CAP_BPF" "$dir/nobody.err" ||
    fail "not one sentence naming CAP_BPF: $(cat "$dir/nobody.err")"

# 5. The programs refused at load.
refuse=(python3 "$(dirname "$0")/refuse_bpf_load.py")
"${refuse[@]}" "$cli" run futex --cpus 0,0 --iterations 2000 --repetitions 1 --trace --trace-ops 4000 \
    --json "$dir/refused.json" >"$dir/refused.txt" 2>"$dir/refused.err" ||
    fail "the default traced run failed where BPF is refused: $(cat "$dir/refused.err")"
[ "$(trace refused backend)" = ftrace ] || fail "the refused run's block names $(trace refused backend), not ftrace"
jq -e '.benchmarks[0].trace.notes | any(startswith("Recorded with ftrace") and contains("refused the BPF programs"))' \
    "$dir/refused.json" >/dev/null || fail "no note gives the refusal: $(jq -c '.benchmarks[0].trace.notes' "$dir/refused.json")"
[ "$(steps refused)" = "$(steps bpf)" ] || fail "the fallback cut $(steps refused), bpf $(steps bpf)"
"${refuse[@]}" "$cli" run futex --cpus 0,0 --iterations 200 --repetitions 1 --trace --trace-backend bpf \
    >/dev/null 2>"$dir/refused-bpf.err"
code=$?
[ $code -eq 1 ] && grep -q "refused the BPF programs" "$dir/refused-bpf.err" ||
    fail "--trace-backend bpf where the programs are refused exited $code: $(cat "$dir/refused-bpf.err")"
# 6. Across two CPUs.
if [ "$(nproc)" -ge 2 ]; then
    "$cli" run futex --cpus 0,1 --iterations 1000 --repetitions 1 --trace --trace-ops 3000 --json "$dir/x-bpf.json" \
        >"$dir/x-bpf.txt" 2>"$dir/x-bpf.err" || fail "the traced run across CPUs failed: $(cat "$dir/x-bpf.err")"
    "$cli" run futex --cpus 0,1 --iterations 1000 --repetitions 1 --trace --trace-backend ftrace --trace-ops 3000 \
        --json "$dir/x-ftrace.json" >"$dir/x-ftrace.txt" 2>"$dir/x-ftrace.err" ||
        fail "the ftrace run across CPUs failed: $(cat "$dir/x-ftrace.err")"
    [ "$(trace x-bpf backend)" = bpf ] || fail "across CPUs the default cut with $(trace x-bpf backend), not bpf"
    xops=$(trace x-bpf ops)
    within "$(per_op x-bpf "$xops" handovers)" "$(trace x-bpf rusage_switches_per_op)" 0.05 ||
        fail "$(per_op x-bpf "$xops" handovers) hand-overs per op against $(trace x-bpf rusage_switches_per_op) switches"
    states=$(jq -r '.benchmarks[0].trace.target_states | .idle + .preempting + .waiting + .unknown' "$dir/x-bpf.json")
    cross=$(jq -r '[.benchmarks[0].trace.segments[] | select(.cross_cpu and .name == "return to user") | .count] | add' \
        "$dir/x-bpf.json")
    within "$states" "$cross" 0.01 || fail "the wakee's CPU's state of $states hand-overs, $cross across CPUs"
    # The steps chain along each hand-over. A round trip whose partner took the token before it
    # slept has no hand-over there (no switch), and its time is in no step: in eight runs here
    # 0.80 to 2.00 hand-overs an op, the steps 89.6% to 99.95% of the round trip, the least
    # with the fewest hand-overs. Where nearly every round trip slept twice (1.9 an op) they
    # add up to it within 10%; else they are no more than 10% over it and cover at least the
    # hand-overs' share.
    seg=$(trace x-bpf segment_ns_per_op)
    rt=$(trace x-bpf ns_per_op)
    xh=$(per_op x-bpf "$xops" handovers)
    if awk -v h="$xh" 'BEGIN { exit !(h >= 1.9) }'; then
        within "$seg" "$rt" 0.10 || fail "the steps add up to $seg ns per op, the traced run took $rt ($xh hand-overs an op)"
    else
        awk -v s="$seg" -v r="$rt" -v h="$xh" 'BEGIN { exit !(s <= 1.10 * r && s >= 0.9 * h / 2 * r) }' ||
            fail "the steps add up to $seg ns per op, the traced run took $rt with $xh hand-overs an op"
    fi
    steps_over() { # FILE SHARE: the steps at least SHARE of the hand-overs took: name, events, across CPUs or not
        jq -r --argjson share "$2" '.benchmarks[0].trace as $t | [$t.segments[]
            | select(.count >= $share * $t.handovers) | "\(.name):\(.from_event)>\(.to_event):\(.cross_cpu)"]
            | sort | .[]' "$dir/$1.json"
    }
    # Each step one backend cut in a tenth of its hand-overs, the other cut in at least 1% of its own
    # (how often a wake-up needs no IPI, say, moves from run to run).
    for pair in "x-bpf x-ftrace" "x-ftrace x-bpf"; do
        set -- $pair
        missing=$(comm -23 <(steps_over "$1" 0.10) <(steps_over "$2" 0.01) | paste -sd, -)
        [ -z "$missing" ] || fail "across CPUs $1 cut $missing, which $2 did not: $1 $(steps_over "$1" 0.01 |
            paste -sd, -); $2 $(steps_over "$2" 0.01 | paste -sd, -)"
    done
    idle() { jq -r '[.benchmarks[0].trace.idle_states[]? | select(.count >= 100) | .name] | sort | join(",")' "$dir/$1.json"; }
    [ "$(idle x-bpf)" = "$(idle x-ftrace)" ] || fail "bpf's idle exits left $(idle x-bpf), ftrace's $(idle x-ftrace)"
    across="; across CPUs $(per_op x-bpf "$xops" handovers) hand-overs per op (ftrace $(per_op x-ftrace \
        "$(trace x-ftrace ops)" handovers)), the steps $(steps_over x-bpf 0.10 | paste -sd, -) as ftrace's"

    # 7. A busy loop on the wakee's CPU.
    cp /bin/sh "$dir/ctxscope-hog"
    taskset -c 1 "$dir/ctxscope-hog" -c 'while :; do :; done' &
    hog=$!
    sleep 0.2
    "$cli" run futex --cpus 0,1 --iterations 500 --repetitions 1 --trace --trace-ops 2000 --json "$dir/hog.json" \
        >"$dir/hog.txt" 2>"$dir/hog.err"
    code=$?
    kill -9 "$hog" 2>/dev/null
    wait "$hog" 2>/dev/null
    hog=""
    [ $code -eq 0 ] || fail "the traced run beside a busy loop failed ($code): $(cat "$dir/hog.err")"
    [ "$(trace hog backend)" = bpf ] || fail "beside a busy loop the default cut with $(trace hog backend), not bpf"
    busy=$(jq -r '.benchmarks[0].trace.target_states | (.preempting + .waiting) / (.idle + .preempting + .waiting + .unknown)' \
        "$dir/hog.json")
    awk -v b="$busy" 'BEGIN { exit !(b >= 0.3) }' || fail "the wakee's CPU was busy in $busy of the hand-overs beside a busy loop"
    jq -e '.benchmarks[0].trace | [(.preempted + .waited_behind)[] | select(.comm == "ctxscope-hog" and .cpu == 1)]
        | length > 0' "$dir/hog.json" >/dev/null ||
        fail "the busy loop is not named: $(jq -c '.benchmarks[0].trace | .preempted + .waited_behind' "$dir/hog.json")"
    share=$(jq -r '.benchmarks[0].trace | (.others[] | select(.comm == "ctxscope-hog") | .ns) / .cpu_time[1].span_ns' \
        "$dir/hog.json")
    awk -v s="$share" 'BEGIN { exit !(s >= 0.3) }' || fail "the busy loop had $share of CPU 1: $(jq -c '.benchmarks[0].trace.others' "$dir/hog.json")"
    across="$across; beside a busy loop the wakee's CPU was busy in $busy of the hand-overs, the loop had $share of it"
fi
echo "PASS: bpf $handovers hand-overs per op, the steps $(steps bpf) as ftrace's; kill -9 leaves no program; nobody refused; refused programs fall back to ftrace${across:-}"
