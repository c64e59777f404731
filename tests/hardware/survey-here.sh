#!/bin/sh
# SPDX-License-Identifier: MIT
# Measures the machine this is copied to with the portable bundle, for docs/machines/: the
# survey card, the pinning, inside-a-switch and spin-or-sleep lessons, and the all-pairs spin
# matrix, into one folder with a README saying how to add it. POSIX sh and coreutils only: it
# runs on a machine with nothing installed, as root or not (inside-a-switch traces, which needs
# root or a tracefs the user may read; without it that lesson's failure is recorded and the
# rest goes on).
#
# usage: sh survey-here.sh [BUNDLE] [OUT]
#   BUNDLE  the bundle (default: the ctxscope-cli-*-linux-x86_64 beside this script, or in the
#           current folder)
#   OUT     the results folder (default: ./ctxscope-HOSTNAME-DATE)
# Time: the survey's budget (CTXSCOPE_SURVEY_BUDGET, 120 s), three lessons at 0.1 s a
# repetition (a minute or two), the matrix's first pass of 0.02 s a pair (its estimate is
# printed after the first pair; N PUs have N*(N-1)/2 pairs).
set -u

here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:-}
if [ -z "$bundle" ]; then
    for f in "$here"/ctxscope-cli-*-linux-x86_64 ./ctxscope-cli-*-linux-x86_64; do
        [ -f "$f" ] && bundle=$f && break
    done
fi
[ -n "$bundle" ] && [ -f "$bundle" ] || {
    echo "survey-here.sh: no bundle: give its path (build it with ./packaging/dev.sh bundle)" >&2
    exit 2
}
[ -x "$bundle" ] || chmod u+x "$bundle" 2>/dev/null || true
host=$(uname -n)
out=${2:-./ctxscope-$host-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
budget=${CTXSCOPE_SURVEY_BUDGET:-120}
failed=""

# step NAME CMD...: runs CMD, its output to NAME.txt (and the terminal), its exit status kept.
step() {
    name=$1
    shift
    echo "== $name: ctxscope-cli $*" >&2
    start=$(date +%s)
    "$bundle" "$@" >"$out/$name.txt" 2>&1
    rc=$?
    cat "$out/$name.txt" >&2
    echo "$name: exit $rc, $(($(date +%s) - start)) s" | tee -a "$out/steps.txt" >&2
    [ $rc -eq 0 ] || failed="$failed $name"
}

"$bundle" --version >"$out/version.txt" 2>&1 || { echo "survey-here.sh: the bundle does not run here:" >&2; cat "$out/version.txt" >&2; exit 1; }
{
    echo "host: $host"
    echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
    echo "user: $(id -un 2>/dev/null || id -u)"
    echo "kernel: $(uname -srm)"
    echo "bundle: $(cat "$out/version.txt"), $(wc -c <"$bundle") bytes"
} >"$out/machine.txt"
step sysinfo sysinfo
"$bundle" sysinfo --json >"$out/sysinfo.json" 2>/dev/null || true
step topology topology
"$bundle" topology --format xml --anonymize >"$out/topology.xml" 2>/dev/null || true
step survey survey --budget "$budget" --json "$out/survey.json"
for lesson in pinning inside-a-switch spin-or-sleep; do
    step "lesson-$lesson" lesson "$lesson" --min-time 0.1 --repetitions 5 --json "$out/lesson-$lesson.json"
done
step matrix-spin matrix spin --all-pairs --json "$out/matrix-spin.json" --csv "$out/matrix-spin.csv"

cat >"$out/README.md" <<EOF
# ctxscope on $host

Measured $(date -u '+%Y-%m-%d') with \`$(cat "$out/version.txt")\` by \`tests/hardware/survey-here.sh\`
(details in machine.txt; exit status and time of each step in steps.txt).

| file | what |
|---|---|
| survey.json | the survey card (budget $budget s): \`ctxscope-cli compare survey.json OTHER.json\` |
| lesson-*.json, lesson-*.txt | the pinning, inside-a-switch and spin-or-sleep lessons, as JSON and as printed |
| matrix-spin.json, .csv | the all-pairs spin matrix: one-way hand-over between every pair of PUs |
| sysinfo.txt, .json, topology.txt, .xml | what the machine says of itself: kernel, CPU, governor, hypervisor, caches; its hwloc topology (anonymized) |

## Adding it to docs/machines/

1. Copy this folder into the repository as \`docs/machines/SHORT-NAME/\` (lower case, the
   machine's model or role, e.g. \`epyc-9654-2s\`); keep the files as they are.
2. Replace the first lines of this README with the machine's description: CPU model, sockets,
   memory, bare metal or which VM, and anything set for the run (governor, SMT, isolation).
   Take the figures from the files; never write a number that is not in them.
3. Failed steps (steps.txt, a non-zero exit) stay recorded: say why in the README (for
   example inside-a-switch needs root or a readable tracefs).
4. The app and \`ctxscope-cli compare\` read survey.json as it is.
EOF
if [ -n "$failed" ]; then
    echo "survey-here.sh: results in $out; these steps failed:$failed (steps.txt)" >&2
    exit 1
fi
echo "survey-here.sh: results in $out (README.md says how to add them to docs/machines/)" >&2
