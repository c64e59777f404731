#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The portable bundle on an older system: a minimal Debian bullseye root (glibc 2.31,
# debootstrap --variant=minbase, nothing else installed), /proc and /sys mounted, the bundle
# copied into a temporary folder there and run with chroot: --version, sysinfo, a brief
# `run futex --cpus 0,0` (as nobody: no root needed), the same traced as root (recorded with
# ftrace: the bundle has no BPF, and says so) and `survey --budget 20` (as root, so its
# hand-over steps are traced). Each must exit 0 and print what it should, and nothing may be
# written in the root outside that folder but the tracer's empty lock files in /run
# (/run/ctxscope-tracefs-NS.lock and .decide, which every ctxscope on a machine shares; /run is a
# tmpfs cleared at boot on a running system).
#
# usage: tests/bundle/bullseye.sh [BUNDLE]
#   BUNDLE  the bundle to test (default: build it with `nice ./packaging/dev.sh bundle`, which
#           is incremental: seconds when it is up to date)
# The root is kept in $CTXSCOPE_BULLSEYE_ROOT (/var/cache/ctxscope/bullseye-root), made on
# first use and remade when it is incomplete. Needs root and, the first time, Debian's mirror
# (the first one in /etc/apt/sources.list*). Exit 77 (skip) with one sentence where that is
# not so, unless $CI is set: then it fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

say() { printf 'bullseye.sh: %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
skip() {
    [ -n "${CI:-}" ] && fail "$* (CI is set: never skipped)"
    say "SKIP: $*"
    exit 77
}

[ "$(id -u)" -eq 0 ] || skip "debootstrap, chroot and mounting /proc need root, and this runs as $(id -un)."
command -v debootstrap >/dev/null || skip "debootstrap is not installed (./packaging/dev.sh deps installs it)."
start=$(date +%s)

if [ $# -ge 1 ]; then
    bundle=$1
else
    say "building the bundle (nice ./packaging/dev.sh bundle)"
    bundle=$(nice -n 19 "$ROOT/packaging/dev.sh" bundle | tail -1) || fail "./packaging/dev.sh bundle failed"
fi
[ -x "$bundle" ] || fail "no bundle at '$bundle'"
say "bundle: $bundle ($(stat -c %s "$bundle") bytes; ready after $(($(date +%s) - start)) s)"

# The first Debian mirror apt uses here (one-line or deb822 sources), else Debian's CDN.
mirror() {
    local m
    m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }' |
        grep -v security | head -1 || true)
    [ -n "$m" ] || m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -v security | head -1 || true)
    echo "${m:-http://deb.debian.org/debian}"
}

# The cached root: complete when debootstrap finished (the marker is written last).
cache=${CTXSCOPE_BULLSEYE_ROOT:-/var/cache/ctxscope/bullseye-root}
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9 # one test at a time uses (or makes) the root
if [ ! -f "$cache/.ctxscope-complete" ]; then
    url=$(mirror)
    say "making a minimal bullseye root in $cache from $url (a few minutes, once)"
    rm -rf --one-file-system "$cache" "$cache.partial"
    if ! debootstrap --variant=minbase bullseye "$cache.partial" "$url" >"$cache.log" 2>&1; then
        tail -3 "$cache.log" >&2
        rm -rf --one-file-system "$cache.partial"
        if grep -qiE "Failed getting release file|couldn't download|Temporary failure|Could not resolve|Connection refused|Network is unreachable" "$cache.log"; then
            skip "debootstrap cannot reach the mirror $url."
        fi
        fail "debootstrap failed (log: $cache.log)"
    fi
    mv "$cache.partial" "$cache"
    touch "$cache/.ctxscope-complete"
fi
root=$cache

# Mounts and the bundle's folder, undone on every exit path.
dir=""
cleanup() {
    for m in sys proc; do
        mountpoint -q "$root/$m" && umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null || true
    done
    [ -n "$dir" ] && rm -rf --one-file-system "${root:?}$dir"
    rm -f "${root:?}"/run/ctxscope-tracefs-* # the cached root stays as debootstrap left it
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
dir=$(chroot "$root" mktemp -d /tmp/ctxscope-bundle.XXXXXX)
cp "$bundle" "$root$dir/ctxscope-cli"
chmod 755 "$root$dir" # nobody runs it too
stamp=$(mktemp)
sleep 1 # file times have a second's grain on some file systems: what follows is newer

user=()
in_root() { chroot "${user[@]}" "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C "$@"; }
libc=$(in_root ldd --version | sed -n 1p)
say "root: $libc; $(in_root dpkg-query -W -f='${Package}\n' | wc -l) packages (minbase), ctxscope nowhere but $dir"
in_root sh -c 'command -v ctxscope-cli' >/dev/null && fail "the root has a ctxscope-cli of its own"

# check NAME REGEX CMD...: CMD exits 0 inside the root and its output matches REGEX.
check() {
    local name=$1 regex=$2 out t0
    shift 2
    t0=$(date +%s)
    say "running: ctxscope-cli $*"
    if ! out=$(cd / && in_root "$dir/ctxscope-cli" "$@" 2>&1); then
        printf '%s\n' "$out" >&2
        fail "$name exited non-zero"
    fi
    printf '%s\n' "$out" | sed 's/^/    /' >&2
    printf '%s\n' "$out" | grep -Eq "$regex" || fail "$name printed nothing matching /$regex/"
    say "ok: $name ($(($(date +%s) - t0)) s)"
}
check version "^ctxscope-cli [0-9.]+ \(portable bundle, static\)" --version
check sysinfo "kernel " sysinfo
user=(--userspec=65534:65534) # nobody
check run_futex_as_nobody "futex +thread +0,0 +same-pu .*µs" run futex --cpus 0,0 --repetitions 3 --min-time 0.05
user=()
# Built without BPF, the bundle's traced run on one CPU is recorded with ftrace and says why.
check trace_one_cpu "Recorded with ftrace: .*built without BPF" run futex --cpus 0,0 --repetitions 1 --min-time 0.05 \
    --trace --trace-ops 2000
check survey "survey|card" survey --budget 20 --json "$dir/card.json"
in_root test -s "$dir/card.json" || fail "survey wrote no card"
grep -q '"survey"' "$root$dir/card.json" || fail "the card has no survey block"

# Nothing written in the root outside the bundle's folder (/proc and /sys are not in it).
written=$(find "$root" -xdev -newer "$stamp" ! -path "$root$dir" ! -path "$root$dir/*" ! -path "$root/run" \
    ! -path "$root/run/ctxscope-tracefs-*" -print 2>/dev/null | head -5)
locks=$(cd "$root/run" && ls -d ctxscope-tracefs-* 2>/dev/null | tr '\n' ' ')
[ -z "$locks" ] || say "the traced steps' lock files in /run: $locks"
rm -f "$stamp"
[ -z "$written" ] || fail "the bundle wrote outside its folder: $written"
say "PASS: the bundle runs in bullseye ($libc) with nothing installed; $(($(date +%s) - start)) s in all"
