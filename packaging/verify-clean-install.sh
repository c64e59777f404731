#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the built packages into a clean, minimal Debian bookworm (debootstrap
# --variant=minbase, nothing else installed) and runs the installed programs there: first
# ctxscope-cli alone, as on a server (no Qt may come with it), then ctxscope, as a lecturer
# would after `sudo apt install ./ctxscope-cli_*.deb ./ctxscope_*.deb`. Proves each
# package's Depends are complete.
#
# usage: sudo packaging/verify-clean-install.sh [DIR] [ROOT]
#   DIR   where both .debs are (default: build/release, where `dev.sh package` puts them)
#   ROOT  a pristine minbase root to copy (default: build/clean-root, made with debootstrap
#         on first use, which needs the debootstrap package and network access)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1mverify-clean-install:\033[0m %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (chroot, mounts): sudo $0 $*"; exit 2; }

dir=${1:-build/release}
cli_deb=$(ls "$dir"/ctxscope-cli_*.deb 2>/dev/null | head -1)
app_deb=$(ls "$dir"/ctxscope_*.deb 2>/dev/null | head -1)
[ -n "$cli_deb" ] && [ -n "$app_deb" ] || { say "no .debs in $dir: run ./packaging/dev.sh package first"; exit 2; }
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
cp "$cli_deb" "$app_deb" "$root/tmp/"
mkdir -m 0700 -p "$root/tmp/xdg"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 XDG_RUNTIME_DIR=/tmp/xdg "$@"; }
# install PACKAGE DEB: dpkg -i, then apt-get -f install pulls what its Depends name.
install_deb() {
    local before
    before=$(in_root dpkg -l | grep -c '^ii')
    say "dpkg -i $(basename "$2") (then apt-get -f install)"
    in_root dpkg -i "/tmp/$(basename "$2")" >/dev/null 2>&1 || true
    in_root env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq --no-install-recommends >/dev/null
    in_root dpkg -s "$1" | grep -q '^Status: install ok installed' || { say "FAIL: $1 did not install"; exit 1; }
    say "$1 installed; $(in_root dpkg-query -W -f='${Installed-Size}' "$1") KiB; $(( $(in_root dpkg -l | grep -c '^ii') - before )) packages installed with it"
}
in_root apt-get update -qq

# A server: the CLI alone, and nothing of Qt with it.
install_deb ctxscope-cli "$cli_deb"
if in_root dpkg -l | grep '^ii' | grep -qiE 'libqt|qcustomplot'; then
    say "FAIL: installing ctxscope-cli brought Qt: $(in_root dpkg -l | grep '^ii' | grep -iE 'libqt|qcustomplot' | awk '{print $2}' | tr '\n' ' ')"
    exit 1
fi
say "ctxscope-cli --version"
in_root ctxscope-cli --version
say "ctxscope-cli tour"
start=$(date +%s)
in_root ctxscope-cli tour
say "tour took $(( $(date +%s) - start )) s"

# A desktop: the app on top.
install_deb ctxscope "$app_deb"
say "ctxscope --version"
in_root ctxscope --version
say "ctxscope --synthetic 'pack:1 core:2 pu:2' --screenshot (offscreen)"
in_root ctxscope --synthetic 'pack:1 core:2 pu:2' --screenshot /tmp/shot.png --quit
file "$root/tmp/shot.png" | grep -q 'PNG image' || { say "FAIL: no screenshot"; exit 1; }
cp "$root/tmp/shot.png" build/clean-install-screenshot.png
say "the screenshot it made: build/clean-install-screenshot.png"
say "OK: $(basename "$cli_deb") installs alone without Qt, $(basename "$app_deb") on top, and their programs run"
