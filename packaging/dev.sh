#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctxscope developer entry point. Installs what is missing (Debian packages only), builds
# with CMake presets and Ninja, and runs, tests or benchmarks. Re-running is incremental.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Every Debian package ctxscope needs, listed once (HACKING.md's Dependencies says why each is there).
PACKAGES=(
    g++ cmake ninja-build pkg-config          # toolchain
    qt6-base-dev qt6-svg-dev libqcustomplot-dev # GUI: widgets, SVG export, plots
    libhwloc-dev                              # CPU topology and binding
    libboost-context-dev                      # fcontext coroutine benchmark
    nlohmann-json3-dev libcli11-dev libfmt-dev # JSON, CLI parsing, formatting
    libgtest-dev libgmock-dev                 # tests
    clang-format                              # the house format (.clang-format), checked by a test
    libbenchmark-tools python3-scipy          # compare.py reads our JSON (tested)
    xvfb xauth                                # GUI screenshots on headless machines
    openssh-client openssh-server             # remote machines: the app runs ssh; tests run sshd on 127.0.0.1
    help2man groff-base                       # man pages from --help, checked by groff
    sysstat                                   # pidstat: the watch's switch rates are tested against it
    linux-perf                                # perf sched timehist: watch --trace is tested against it
    desktop-file-utils appstream dpkg-dev file # validating desktop files, building the .deb
    libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd # scheduler tracing; trace-cmd reads our trace.dat in tests
    ccache                                    # rebuilds of any checkout on a kept machine reuse objects
    debootstrap                               # the bundle's test builds a minimal bullseye root (tests/bundle)
    libbpf-dev bpftool clang                  # watch's BPF backend: libbpf, its skeleton, BPF objects built with clang
    libbpf-tools                              # runqlat: the BPF backend's wake-up bins are compared with it
)

# Only for `dev.sh fuzz`: libFuzzer comes with clang, not GCC.
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)

say() { printf '\033[1mdev.sh:\033[0m %s\n' "$*" >&2; }

install_deps() { install_packages "${PACKAGES[@]}"; }

install_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing missing Debian packages: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# ccache keyed on paths relative to this checkout, so a fresh clone or a worktree elsewhere on a
# kept machine reuses the objects another checkout compiled (CI runs in a fresh clone).
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

configure() { # preset: once per build folder, compiling through ccache when it is there
    local preset=$1 launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    [ -f "build/$preset/build.ninja" ] || cmake --preset "$preset" "${launcher[@]}" >&2
}

build() { # preset [--target ...]
    configure "$1"
    cmake --build --preset "$@"
}

has_display() { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }

cmd_run() {
    install_deps
    build release
    if has_display; then
        exec build/release/app/gui/ctxscope "$@"
    fi
    say "no display (\$DISPLAY and \$WAYLAND_DISPLAY are unset): running the text tour instead."
    say "for the desktop app, run this from a graphical session (or: xvfb-run $0 run --screenshot shot.png --quit)."
    exec build/release/app/cli/ctxscope-cli tour
}

cmd_test() {
    install_deps
    build asan
    local jobs=() rc=0 started
    [ -n "${CI:-}" ] && jobs=(--output-junit "$ROOT/build/asan/ctest-junit.xml")
    started=$(date +%s)
    ctest --preset asan "${jobs[@]}" "$@" || rc=$?
    # A failed run ends with why each test failed (their full output is above, and in the
    # log), read from this run's log only.
    local log=build/asan/Testing/Temporary/LastTest.log
    if [ "$rc" -ne 0 ] && [ -f "$log" ] && [ "$(stat -c %Y "$log")" -ge "$started" ]; then
        local why
        why=$(awk -f packaging/test-failures.awk "$log") || why=""
        [ -z "$why" ] || { say "why the failed tests failed (from $log):"; printf '%s\n' "$why" >&2; }
    fi
    return "$rc"
}

cmd_package() {
    install_deps
    build release
    (cd build/release && cpack -G DEB)
    say "built $(ls build/release/*.deb | tr '\n' ' ')"
    say "a desktop: sudo apt-get install ./$(ls build/release/ctxscope-cli_*.deb) ./$(ls build/release/ctxscope_*.deb)"
    say "a server measured over ssh needs only: sudo apt-get install ./$(ls build/release/ctxscope-cli_*.deb)"
}

# The portable bundle: ctxscope-cli linked statically (the bundle preset, cmake/Bundle.cmake),
# one file that runs on any x86-64 Linux with nothing installed. Prints its path on stdout.
cmd_bundle() {
    install_deps
    build bundle >&2
    local version out
    version=$(build/bundle/app/cli/ctxscope-cli --version | awk '{print $2}')
    out=build/bundle/ctxscope-cli-$version-linux-x86_64
    if readelf -l build/bundle/app/cli/ctxscope-cli | grep -q 'Requesting program interpreter'; then
        say "build/bundle/app/cli/ctxscope-cli is not static (it names a program interpreter)"
        return 1
    fi
    cp build/bundle/app/cli/ctxscope-cli "$out.tmp" && mv "$out.tmp" "$out"
    (cd build/bundle && sha256sum "$(basename "$out")" >"$(basename "$out").sha256")
    say "built $out: $(stat -c %s "$out") bytes, static, $("$out" --version)"
    say "copy that one file to any x86-64 Linux (kernel 4.18 or newer) and run it; nothing to install"
    echo "$ROOT/$out"
}

cmd_tsan() {
    install_deps
    build tsan
    ctest --preset tsan -L engine "$@"
}

# The C++ sources the house format covers; tests/style/check_format.cmake checks the same set.
format_sources() { find engine app tests -name '*.cpp' -o -name '*.h' | sort; }

cmd_format() {
    install_packages clang-format
    format_sources | xargs clang-format -i
    say "formatted $(format_sources | wc -l) files with $(clang-format --version)"
}

cmd_perf() { # self-benchmarks of ctxscope (tests/perf); the report goes to build/release/perf-report.json
    PACKAGES+=(stress-ng jq) # the peers it compares with, and reading JSON in shell
    install_deps
    build release --target ctxscope ctxscope-cli perf_harness perf_spin perf_matrix perf_gui perf_app_cpu perf_open perf_interference perf_ssh perf_watch perf_watch_cli perf_worker_watch # not the tests
    exec tests/perf/run_all.sh "$ROOT/build/release"
}

# Each libFuzzer target for CTXSCOPE_FUZZ_SECONDS (60) from the seeds in tests/fuzz/corpus; a
# crash, leak, timeout or sanitizer report fails (the reproducer is left in build/fuzz).
cmd_fuzz() {
    install_packages "${FUZZ_PACKAGES[@]}"
    [ -f build/fuzz/build.ninja ] || cmake --preset fuzz >&2
    cmake --build --preset fuzz
    local seconds=${CTXSCOPE_FUZZ_SECONDS:-60} failed=0
    for name in results protocol synthetic procfs; do
        local corpus=build/fuzz/corpus/$name
        mkdir -p "$corpus"
        say "fuzzing $name for ${seconds} s"
        if ! (cd build/fuzz && UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp" \
            "./tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -print_final_stats=1 "corpus/$name" "$ROOT/tests/fuzz/corpus/$name" "$@"); then
            say "fuzz_$name FAILED (reproducer: build/fuzz/crash-* or leak-*/timeout-*)"
            failed=1
        fi
    done
    return $failed
}

usage() {
    cat <<USAGE
usage: packaging/dev.sh COMMAND [ARGS]

  run      install what is missing, build the release preset and start the app
           (the text tour when there is no display); ARGS go to the app
  test     install, build the asan preset (ASan+UBSan) and run every test; ARGS go to ctest
  tsan     build the tsan preset and run the engine tests under ThreadSanitizer
  fuzz     build the libFuzzer targets with clang (installs clang-14) and run each for
           CTXSCOPE_FUZZ_SECONDS (60) seconds; ARGS go to libFuzzer
  bundle   build ctxscope-cli as one static file for any x86-64 Linux (the bundle preset):
           build/bundle/ctxscope-cli-VERSION-linux-x86_64, its path printed on stdout
  package  build the release preset and two .debs (CPack; Depends from dpkg-shlibdeps):
           ctxscope-cli (no Qt: what a server installs) and ctxscope (the app, depends on it)
  deps     only install the missing Debian packages
  format   reformat every C++ source with clang-format (.clang-format); the test run checks it
  perf     build the release preset and run ctxscope's self-benchmarks (tests/perf/run_all.sh)
USAGE
}

case "${1:-}" in
run) shift; cmd_run "$@" ;;
test) shift; cmd_test "$@" ;;
tsan) shift; cmd_tsan "$@" ;;
fuzz) shift; cmd_fuzz "$@" ;;
package) cmd_package ;;
bundle) cmd_bundle ;;
deps) install_deps ;;
format) cmd_format ;;
perf) cmd_perf ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
