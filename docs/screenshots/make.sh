#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes the README's screenshots on this machine: the app photographs itself (--screenshot)
# on a virtual display after real runs, sweeps and matrices measured here.
#   docs/screenshots/make.sh [BUILD_DIR] [OUT_DIR]   (defaults: build/release, docs/screenshots)
# Needs xvfb-run (package xvfb). About four minutes on a 2-vCPU machine.
set -eu
build=${1:-build/release}
out=${2:-docs/screenshots}
app="$build/app/gui/ctxscope"
cli="$build/app/cli/ctxscope-cli"
for f in "$app" "$cli"; do
    [ -x "$f" ] || { echo "make.sh: $f is missing: build it first (cmake --build --preset release)" >&2; exit 2; }
done
command -v xvfb-run >/dev/null || { echo "make.sh: xvfb-run is missing (apt install xvfb xauth)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Fresh settings: the run panel's remembered choices would change what is measured.
export XDG_CONFIG_HOME="$work/config" CTXSCOPE_CLI="$cli"

shot() { # NAME ARGS...: one window photograph
    name=$1
    shift
    echo "  $name.png: ctxscope $*"
    xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$@" --screenshot "$out/$name.png" --quit 2>"$work/stderr" \
        || { cat "$work/stderr" >&2; exit 1; }
}
measure() { # what the CLI measures for the views that open files
    echo "  ctxscope-cli $*"
    "$cli" "$@" >/dev/null
}

echo "measuring with the CLI:"
measure sweep futex --cpus 0,0 --repetitions 3 --min-time 0.05 --json "$work/sweep-same-pu.json"
measure sweep futex --cpus 0,1 --repetitions 3 --min-time 0.05 --json "$work/sweep-shared-l3.json"
measure matrix futex --all-pairs --json "$work/matrix-all.json"
for b in "futex --cpus 0,0" "futex --cpus 0,1" "syscall --cpus 0" "pipe --cpus 0,0"; do
    # shellcheck disable=SC2086 # the words are the options
    measure run $b --json "$work/earlier-$(echo "$b" | tr -c 'a-z0-9\n' '-').json"
done
python3 - "$work" <<'PY'
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/earlier-*.json"))
merged = json.load(open(files[0]))
for f in files[1:]:
    merged["benchmarks"] += json.load(open(f))["benchmarks"]
json.dump(merged, open(sys.argv[1] + "/earlier.json", "w"))
PY

echo "photographing the app:"
shot map-live --cpus 0,1
shot map-synthetic-32 --synthetic 'pack:2 l3:2 core:4 pu:2' --cpus 0,2
shot map-256 --synthetic 'pack:2 l3:4 core:16 pu:2' --cpus 0,130
shot run-futex --run futex --cpus 0,0 --run futex --cpus 0,1 --view live
shot distribution --run futex --cpus 0,0 --run futex --cpus 0,1 --view distribution
shot ladder --run vdso --cpus 0 --run coro-cxx20 --cpus 0 --run coro-fcontext --cpus 0 --run syscall --cpus 0 \
    --run futex --cpus 0,0 --run pipe --cpus 0,0 --view ladder
shot working-set --open "$work/sweep-same-pu.json" --open "$work/sweep-shared-l3.json" --view working-set
shot working-set-dark --dark --open "$work/sweep-same-pu.json" --open "$work/sweep-shared-l3.json" --view working-set
shot heatmap --open "$work/matrix-all.json" --view heatmap
shot compare --run futex --cpus 0,0 --run futex --cpus 0,1 --run syscall --cpus 0 --run pipe --cpus 0,0 \
    --compare "$work/earlier.json" --view compare
shot lesson --lesson mode-switch --view distribution
shot lesson-coroutines --lesson coroutines
shot presentation --presentation --lesson pinning
shot presentation-dark --presentation --dark --run futex --cpus 0,0 --run futex --cpus 0,1 --view distribution
echo "done: $out"
