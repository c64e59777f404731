#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace_as_nobody.sh CLI: `run --trace` as user nobody is one sentence on stderr saying what
# is missing and how to grant it, exit 2, before anything runs; without --trace the same run
# works. `lesson pinning --trace` is refused the same way, while `lesson inside-a-switch`, which
# always traces, runs untraced and says why in one note. Exit 77 with the reason when switching
# to nobody is not possible here.
set -u
cli=$1
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "switching to nobody needs root (running as $(id -un))"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
group=nogroup
getent group nogroup >/dev/null || group=nobody
as_nobody=(setpriv --reuid=nobody --regid="$group" --clear-groups --inh-caps=-all)
"${as_nobody[@]}" true 2>/dev/null || skip "setpriv cannot switch to nobody here"
dir=$(mktemp -d /tmp/ctxscope-nobody-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$cli" "$dir/" && chmod 755 "$dir" "$dir/$(basename "$cli")"
cli=$dir/$(basename "$cli")
cd /tmp

"${as_nobody[@]}" "$cli" run futex --cpus 0,0 --iterations 200 --repetitions 1 --trace >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" -eq 2 ] || fail "exit $code, not 2: $(cat "$dir/err")"
[ ! -s "$dir/out" ] || fail "printed on stdout before refusing: $(cat "$dir/out")"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "not one line: $(cat "$dir/err")"
grep -q "run as root" "$dir/err" || fail "does not say how to grant it: $(cat "$dir/err")"
refusal=$(cat "$dir/err")
"${as_nobody[@]}" "$cli" run futex --cpus 0,0 --iterations 200 --repetitions 1 >/dev/null 2>"$dir/err" ||
    fail "without --trace the run failed as nobody: $(cat "$dir/err")"

"${as_nobody[@]}" "$cli" lesson pinning --min-time 0.01 --repetitions 1 --trace >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" -eq 2 ] || fail "lesson pinning --trace: exit $code, not 2: $(cat "$dir/err")"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q "run as root" "$dir/err" ||
    fail "lesson pinning --trace: not the one sentence: $(cat "$dir/err")"
"${as_nobody[@]}" "$cli" lesson inside-a-switch --min-time 0.01 --repetitions 1 --json - >"$dir/out" 2>"$dir/err" ||
    fail "inside-a-switch as nobody failed: $(cat "$dir/err")"
python3 - "$dir/out" <<'PY' || fail "inside-a-switch as nobody: $(cat "$dir/out")"
import json, sys
lesson = json.load(open(sys.argv[1]))
notes = [n for n in lesson.get("notes", []) if n.startswith("Tracing is not allowed here, so the lesson ran untraced: ")]
assert len(notes) == 1 and "run as root" in notes[0] and notes[0].count(". ") == 0, notes
assert lesson["results"] and not any("trace" in r for r in lesson["results"]), "untraced results expected"
assert any("No placement was traced" in c for c in lesson["conclusion"]), lesson["conclusion"]
assert any(c.startswith("Untraced, a futex round trip") for c in lesson["conclusion"]), lesson["conclusion"]
PY
echo "PASS: $refusal"
