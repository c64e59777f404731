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
# Exit 77 (skipped) where this machine cannot run BPF at all (the sentence says why).
set -u
cli=$1
dir=$(mktemp -d /tmp/ctxscope-trace-bpf-XXXXXX)
chmod 755 "$dir"
bg=""
cleanup() {
    [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v bpftool >/dev/null || fail "bpftool is missing (./packaging/dev.sh deps)"
command -v jq >/dev/null || fail "jq is missing (./packaging/dev.sh deps)"
ours() { bpftool prog show 2>/dev/null | grep -c 'name ctxscope_ho_' || true; }
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
echo "PASS: bpf $handovers hand-overs per op, the steps $(steps bpf) as ftrace's; kill -9 leaves no program; nobody refused; refused programs fall back to ftrace"
