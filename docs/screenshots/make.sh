#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes the README's screenshots on this machine: the app photographs itself (--screenshot)
# on a virtual display after real runs, sweeps and matrices measured here.
#   docs/screenshots/make.sh [BUILD_DIR] [OUT_DIR]   (defaults: build/release, docs/screenshots)
# ONLY="name ..." makes just those photographs (and measures nothing with the CLI first: the
# views that open its files are not among them then, but for compare-machines' two cards; CARDS=DIR
# keeps those two). Relative paths are taken from where it is called. Needs xvfb-run (package xvfb), python3,
# openssh-server and -client and two allowed CPUs (the placements use the first two). About a
# minute on a 2-vCPU VM. connected-ssh.png is this machine measured over ssh: the app connects
# to a throwaway sshd on 127.0.0.1 that loopback-sshd.sh starts for the shot and stops after it.
set -eu
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(absolute "${1:-$root/build/release}")
out=$(absolute "${2:-$root/docs/screenshots}")
app="$build/app/gui/ctxscope"
cli="$build/app/cli/ctxscope-cli"
for f in "$app" "$cli"; do
    [ -x "$f" ] || { echo "make.sh: $f is missing: build it first (cmake --build --preset release)" >&2; exit 2; }
done
command -v xvfb-run >/dev/null || { echo "make.sh: xvfb-run is missing (apt install xvfb xauth)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "make.sh: python3 is missing (apt install python3)" >&2; exit 2; }
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then # for connected-ssh.png
    echo "make.sh: sshd or ssh is missing (apt install openssh-server openssh-client)" >&2
    exit 2
fi
# The first two CPUs this process may use (a cgroup or taskset may leave out 0 or 1).
cpus=$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
# shellcheck disable=SC2086 # split into the two numbers
set -- $cpus
[ $# -eq 2 ] || { echo "make.sh: needs two allowed CPUs, this process may use only $*" >&2; exit 2; }
a=$1 b=$2 same="$1,$1" cross="$1,$2"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${hog:-}" ] || kill "$hog" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM # dash runs the EXIT trap only on exit
# Fresh settings: the run panel's remembered choices would change what is measured.
export XDG_CONFIG_HOME="$work/config" CTXSCOPE_CLI="$cli"

shot() { # [--over-ssh] [--screen WxH] NAME ARGS...: one window photograph; --over-ssh: with the
    # loopback sshd up; --screen: on a virtual screen of that size (1400x900 without it)
    via= screen=1400x900
    if [ "$1" = --over-ssh ]; then via="$root/docs/screenshots/loopback-sshd.sh"; shift; fi
    if [ "$1" = --screen ]; then screen=$2; shift 2; fi
    name=$1
    shift
    if [ -n "${ONLY:-}" ]; then case " $ONLY " in *" $name "*) ;; *) return 0 ;; esac; fi
    echo "  $name.png: ${via:+CTXSCOPE_SSH_COMMAND=\"ssh -F \$LOOPBACK_SSH_CONFIG\" }ctxscope $*"
    set -- "$app" "$@" --screenshot "$out/$name.png" --quit
    [ -z "$via" ] || set -- "$via" "$@" # it sets CTXSCOPE_SSH_COMMAND to its client config
    xvfb-run -a -s "-screen 0 ${screen}x24" "$@" 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
}
measure() { # what the CLI measures for the views that open files
    [ -z "${ONLY:-}" ] || return 0
    echo "  ctxscope-cli $*"
    "$cli" "$@" >/dev/null
}

echo "measuring with the CLI:"
measure sweep futex --cpus "$same" --repetitions 3 --min-time 0.05 --json "$work/sweep-same-pu.json"
measure sweep futex --cpus "$cross" --repetitions 3 --min-time 0.05 --json "$work/sweep-shared-l3.json"
measure matrix futex --all-pairs --json "$work/matrix-all.json"
measure matrix spin --all-pairs --json "$work/matrix-spin.json"
for spec in "futex --cpus $same" "futex --cpus $cross" "syscall --cpus $a" "pipe --cpus $same"; do
    # shellcheck disable=SC2086 # the words are the options
    measure run $spec --json "$work/earlier-$(echo "$spec" | tr -c 'a-z0-9\n' '-').json"
done
# Two machine cards of this machine for Compare machines: a quiet one, then one with a busy loop
# pinned to the second CPU (what a noisy neighbour does to each class). Made with ONLY too
# when it names compare-machines.
case " ${ONLY:-compare-machines} " in
*" compare-machines "* | *" compare-machines-figures "* | *" compare-machines-ws "* | *" compare-machines-articles "*)
    echo "  ctxscope-cli survey --budget 20 --json quiet.json, then cpu$b-busy.json beside a busy loop on CPU $b"
    "$cli" survey --budget 20 --json "$work/quiet.json" >/dev/null
    python3 -c "import os; os.sched_setaffinity(0, {$b}); exec('while True: pass')" &
    hog=$!
    "$cli" survey --budget 20 --json "$work/cpu$b-busy.json" >/dev/null
    kill "$hog"
    hog=
    # CARDS=DIR keeps the two cards, for the figures the user guide quotes from them.
    [ -z "${CARDS:-}" ] || { mkdir -p "$CARDS" && cp "$work/quiet.json" "$work/cpu$b-busy.json" "$CARDS/"; }
    ;;
esac
[ -n "${ONLY:-}" ] || python3 - "$work" <<'PY'
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/earlier-*.json"))
merged = json.load(open(files[0]))
for f in files[1:]:
    merged["benchmarks"] += json.load(open(f))["benchmarks"]
json.dump(merged, open(sys.argv[1] + "/earlier.json", "w"))
PY

echo "photographing the app:"
shot map-live --cpus "$cross"
shot map-synthetic-32 --synthetic 'pack:2 l3:2 core:4 pu:2' --cpus 0,2
shot map-256 --synthetic 'pack:2 l3:4 core:16 pu:2' --cpus 0,130
# One type size from 2 to 1024 PUs: small machines sit in the middle, large ones shrink their labels.
shot map-pus-2 --synthetic 'pack:1 core:1 pu:2'
shot map-pus-8 --synthetic 'pack:1 l3:1 core:4 pu:2'
shot map-pus-64 --synthetic 'pack:2 l3:2 core:8 pu:2'
shot map-pus-1024 --synthetic 'pack:2 numa:2 l3:8 core:16 pu:2'
# A real-shaped 384-PU server (24 packages, each a NUMA node of 8 cores x 2 PUs), as
# opened in the default window, then zoomed in where every level is labelled.
server="$root/tests/fixtures/topology/good/xeon-24-packages-384pu.xml"
shot map-server-384 --topology-xml "$server"
shot map-server-384-zoom --topology-xml "$server" --map-zoom 2.5
# A hybrid laptop (hand-written fixture): P- and E-cores shaded apart, the legend over the map.
hybrid="$root/tests/fixtures/topology/good/hybrid-alder-lake-6p8e.xml"
shot --screen 1280x800 map-hybrid --topology-xml "$hybrid" --cpus 0,12
shot run-futex --run futex --cpus "$same" --run futex --cpus "$cross" --view live
shot distribution --run futex --cpus "$same" --run futex --cpus "$cross" --view distribution
shot ladder --run vdso --cpus "$a" --run coro-cxx20 --cpus "$a" --run coro-fcontext --cpus "$a" --run syscall --cpus "$a" \
    --run futex --cpus "$same" --run pipe --cpus "$same" --view ladder
shot working-set --open "$work/sweep-same-pu.json" --open "$work/sweep-shared-l3.json" --view working-set
shot working-set-dark --dark --open "$work/sweep-same-pu.json" --open "$work/sweep-shared-l3.json" --view working-set
shot heatmap --open "$work/matrix-all.json" --view heatmap
shot heatmap-spin --open "$work/matrix-spin.json" --view heatmap
shot compare --run futex --cpus "$same" --run futex --cpus "$cross" --run syscall --cpus "$a" --run pipe --cpus "$same" \
    --compare "$work/earlier.json" --view compare
# File → Compare machines… with the two cards, at a projector's 1280x800 (--view: the plots settle first).
shot --screen 1280x800 compare-machines --compare-machines "$work/quiet.json" --compare-machines "$work/cpu$b-busy.json" \
    --view compare
shot --screen 1280x800 compare-machines-figures --compare-machines "$work/quiet.json" \
    --compare-machines "$work/cpu$b-busy.json" --view survey-figures
shot --screen 1280x800 compare-machines-ws --compare-machines "$work/quiet.json" \
    --compare-machines "$work/cpu$b-busy.json" --view working-set
# The same with the articles' published figures: 14 machines on one plot at 1280x800.
shot --screen 1280x800 compare-machines-articles --compare-machines "$work/quiet.json" \
    --compare-machines "$work/cpu$b-busy.json" --with-articles --view compare
shot lesson --lesson mode-switch --view distribution
shot lesson-coroutines --lesson coroutines
shot lesson-spin --lesson spin-or-sleep
shot presentation --presentation --lesson pinning
# A lecture on a projector: two lessons in a row in presentation mode, the second's verdict card
# and its own runs on show, at a projector's 1280x800 and at 1920x1080.
shot --screen 1280x800 lecture-1280 --presentation --lesson pinning --lesson spin-or-sleep
shot --screen 1920x1080 lecture-1920 --presentation --lesson pinning --lesson spin-or-sleep
# The scheduler's events: tracing needs root (or a tracefs the user may write).
shot --screen 1280x800 timeline --run futex --cpus "$same" --run futex --cpus "$cross" --trace --view timeline
shot --screen 1280x800 lesson-inside-switch --presentation --lesson inside-a-switch
# The sleeping-cpu lesson on a projector: its verdict card and the as-is / kept-awake runs
# (traced: root).
shot --screen 1280x800 lesson-sleeping-cpu --presentation --lesson sleeping-cpu
# A condition's A/B: the run panel's "Keep the other CPU awake" checked, the pair's sentence under
# the figures, both sides traced and their hand-overs one above the other (tracing: root).
shot --screen 1280x800 keep-awake-ab --run futex --cpus "$cross" --keep-awake --trace --view timeline
shot presentation-dark --presentation --dark --run futex --cpus "$same" --run futex --cpus "$cross" --view distribution
# Measuring another machine: lab-server is this one reached through the loopback sshd
# (loopback-sshd.sh), its worker the ctxscope-cli of BUILD_DIR.
shot --over-ssh connected-ssh --remote lab-server --remote-cli "$cli" --run futex --cpus "$cross"
# A running program: the pingpong workload, unpinned; after 4 s its first pong thread is
# pinned to the first CPU from another terminal (ctxscope-cli pin), which the map and table show.
# The second photograph is the Programs page at a projector's 1280x800.
# Only when ONLY names one of them: else the pin found the workload already gone.
case " ${ONLY:-programs} " in
*" programs "* | *" programs-1280 "* | *" programs-wakeups "* | *" programs-timeline "*)
    "$cli" workload pingpong --threads 2 --duration 120 >"$work/workload" &
    workload=$!
    sleep 1
    pid=$(sed -n 's/.*(PID \([0-9]*\)).*/\1/p' "$work/workload")
    pong=$(sed -n 's/.* pong0 \([0-9]*\).*/\1/p' "$work/workload")
    (sleep 4 && "$cli" pin "$pong" "$a" >/dev/null) &
    shot programs --watch "$pid"
    shot --screen 1280x800 programs-1280 --watch "$pid"
    shot --screen 1280x800 programs-wakeups --watch "$pid" --trace # the scheduler's events: root
    shot --screen 1280x800 programs-timeline --watch "$pid" --trace --view timeline # the watched threads on each PU: root
    kill "$workload" 2>/dev/null || true
    ;;
esac
# The window walk's states as the window-fit test leaves them on a 1280x800 screen (Qt's
# offscreen platform: no window frame): inside-a-switch presented with its Details open, and the
# Programs page docked beside a lesson, then floating (the window, and the floating page).
case " ${ONLY:-programs-floating} " in
*" lesson-inside-switch-details "* | *" programs-beside-lesson "* | *" programs-floating "*)
    walk="$build/tests/gui/screen/gui_screen_tests"
    [ -x "$walk" ] || { echo "make.sh: $walk is missing: build it first" >&2; exit 2; }
    echo "  lesson-inside-switch-details.png, programs-beside-lesson.png, programs-floating(-page).png: the window walk"
    mkdir -p "$work/walk"
    CTXSCOPE_TEST_SHOTS="$work/walk" QT_QPA_PLATFORM="offscreen:configfile=$root/tests/gui/screen/screen-1280x800.json" \
        "$walk" >"$work/walk.log" 2>&1 || { cat "$work/walk.log" >&2; exit 1; }
    cp "$work/walk/presenting-inside-a-switch-with-Details.png" "$out/lesson-inside-switch-details.png"
    cp "$work/walk/Programs-docked-again.png" "$out/programs-beside-lesson.png"
    cp "$work/walk/Programs-floating.png" "$out/programs-floating.png"
    cp "$work/walk/Programs-floating-page.png" "$out/programs-floating-page.png"
    ;;
esac
wait
echo "done: $out"
