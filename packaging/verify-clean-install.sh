#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the built .deb into a clean, minimal Debian bookworm (debootstrap --variant=minbase,
# nothing else installed) and runs the installed programs there, as a lecturer would after
# `sudo apt install ./ctxscope_*.deb`. Proves the package's Depends are complete.
#
# usage: sudo packaging/verify-clean-install.sh [DEB] [ROOT]
#   DEB   the package (default: build/release/ctxscope_*.deb from `dev.sh package`)
#   ROOT  a pristine minbase root to copy (default: build/clean-root, made with debootstrap
#         on first use, which needs the debootstrap package and network access)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1mverify-clean-install:\033[0m %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (chroot, mounts): sudo $0 $*"; exit 2; }

deb=${1:-$(ls build/release/ctxscope_*.deb 2>/dev/null | head -1)}
[ -n "$deb" ] && [ -f "$deb" ] || { say "no .deb: run ./packaging/dev.sh package first, or name one"; exit 2; }
pristine=${2:-build/clean-root}
if [ ! -x "$pristine/bin/sh" ]; then
    command -v debootstrap >/dev/null || { say "debootstrap is not installed (apt-get install debootstrap)"; exit 2; }
    say "creating a minimal bookworm root in $pristine (a few minutes, once)"
    debootstrap --variant=minbase bookworm "$pristine" http://deb.debian.org/debian >&2
fi

# Work on a copy so the pristine root stays clean for the next run.
root=$(mktemp -d /tmp/ctxscope-clean.XXXXXX)
cleanup() {
    for m in sys proc dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
cp -a "$pristine/." "$root/"
mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
mount -t proc proc "$root/proc"; mount --bind /sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
mkdir -m 0700 -p "$root/tmp/xdg"
name=$(basename "$deb")

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 XDG_RUNTIME_DIR=/tmp/xdg "$@"; }
before=$(in_root dpkg -l | grep -c '^ii')
say "dpkg -i $name (then apt-get -f install pulls what its Depends name)"
in_root dpkg -i "/tmp/$name" >/dev/null 2>&1 || true
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq --no-install-recommends >/dev/null
in_root dpkg -s ctxscope | grep -q '^Status: install ok installed' || { say "FAIL: the package did not install"; exit 1; }
say "installed; $(in_root dpkg-query -W -f='${Installed-Size}' ctxscope) KiB; $(( $(in_root dpkg -l | grep -c '^ii') - before )) packages installed with it"

say "ctxscope --version"
in_root ctxscope --version
say "ctxscope-cli --version"
in_root ctxscope-cli --version
say "ctxscope-cli tour"
start=$(date +%s)
in_root ctxscope-cli tour
say "tour took $(( $(date +%s) - start )) s"
say "ctxscope --synthetic 'pack:1 core:2 pu:2' --screenshot (offscreen)"
in_root ctxscope --synthetic 'pack:1 core:2 pu:2' --screenshot /tmp/shot.png --quit
file "$root/tmp/shot.png" | grep -q 'PNG image' || { say "FAIL: no screenshot"; exit 1; }
cp "$root/tmp/shot.png" build/clean-install-screenshot.png
say "the screenshot it made: build/clean-install-screenshot.png"
say "OK: $name installs on a clean bookworm and its programs run"
