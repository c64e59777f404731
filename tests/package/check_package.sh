#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build tree into a scratch root, validates the desktop integration with the
# freedesktop and AppStream validators, builds the two .debs (ctxscope-cli and ctxscope),
# checks what each holds and depends on, and installs both into a scratch dpkg root.
# usage: check_package.sh BUILD_DIR VERSION
set -euo pipefail
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

DESTDIR="$scratch/root" cmake --install "$build" --prefix /usr >/dev/null
root="$scratch/root/usr"
app_id=io.github.ctxscope.ctxscope
for f in "bin/ctxscope" "bin/ctxscope-cli" "share/applications/$app_id.desktop" \
         "share/metainfo/$app_id.metainfo.xml" "share/icons/hicolor/scalable/apps/$app_id.svg"; do
    [ -e "$root/$f" ] || { echo "FAIL: $f is not installed"; exit 1; }
done

# desktop-file-validate prints hints too; any output at all counts as a problem.
out=$(desktop-file-validate "$root/share/applications/$app_id.desktop" 2>&1)
[ -z "$out" ] || { echo "FAIL: desktop-file-validate: $out"; exit 1; }
appstreamcli validate-tree --no-net "$root" >"$scratch/as.log" 2>&1 || { cat "$scratch/as.log"; echo "FAIL: appstreamcli"; exit 1; }
if grep -qE '^(W|E):|warning|error' "$scratch/as.log"; then cat "$scratch/as.log"; echo "FAIL: appstreamcli warnings"; exit 1; fi
echo "desktop file and metainfo valid"

# The man pages: installed, and groff finds nothing to warn about (-ww: every warning).
for prog in ctxscope ctxscope-cli; do
    page="$root/share/man/man1/$prog.1"
    [ -e "$page" ] || page="$page.gz"
    [ -e "$page" ] || { echo "FAIL: no man page for $prog"; exit 1; }
    warnings=$(zcat -f "$page" | groff -man -Tutf8 -ww -z 2>&1)
    [ -z "$warnings" ] || { echo "FAIL: groff warns about $prog(1): $warnings"; exit 1; }
    zcat -f "$page" | grep -q '^\.SH EXAMPLES' || { echo "FAIL: $prog(1) has no EXAMPLES section"; exit 1; }
done
zcat -f "$root/share/man/man1/ctxscope-cli.1"* | grep -q '^\.SS worker' || { echo "FAIL: ctxscope-cli(1) does not document each subcommand"; exit 1; }
echo "man pages: installed, no groff warnings, examples and every subcommand"

(cd "$build" && cpack -G DEB -B "$scratch/deb" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; exit 1; }
# Two packages: ctxscope-cli (the engine's CLI, what a server measured over ssh installs) and
# ctxscope (the app, which runs that CLI as its worker).
cli_deb=$(ls "$scratch"/deb/ctxscope-cli_*.deb 2>/dev/null) || { ls "$scratch/deb"; echo "FAIL: no ctxscope-cli .deb"; exit 1; }
app_deb=$(ls "$scratch"/deb/ctxscope_*.deb 2>/dev/null) || { ls "$scratch/deb"; echo "FAIL: no ctxscope .deb"; exit 1; }
for deb in "$cli_deb" "$app_deb"; do
    version=$(dpkg-deb -f "$deb" Version)
    [ "$version" = "$2" ] || { echo "FAIL: $(basename "$deb") has version $version, expected $2"; exit 1; }
    dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' >"$deb.contents"
done
cli_depends=$(dpkg-deb -f "$cli_deb" Depends)
app_depends=$(dpkg-deb -f "$app_deb" Depends)
echo "ctxscope-cli Depends: $cli_depends"
echo "ctxscope Depends: $app_depends"

# Each package holds its own program and man page, and nothing of the other's.
contains() { grep -qx "$2" "$1.contents" || grep -qx "$2.gz" "$1.contents"; }
for f in usr/bin/ctxscope-cli usr/share/man/man1/ctxscope-cli.1 usr/share/doc/ctxscope-cli/copyright; do
    contains "$cli_deb" "$f" || { echo "FAIL: $f is not in ctxscope-cli"; exit 1; }
    ! contains "$app_deb" "$f" || { echo "FAIL: $f is in ctxscope too"; exit 1; }
done
for f in usr/bin/ctxscope usr/share/man/man1/ctxscope.1 usr/share/doc/ctxscope/copyright "usr/share/applications/$app_id.desktop" \
         "usr/share/metainfo/$app_id.metainfo.xml" "usr/share/icons/hicolor/scalable/apps/$app_id.svg"; do
    contains "$app_deb" "$f" || { echo "FAIL: $f is not in ctxscope"; exit 1; }
    ! contains "$cli_deb" "$f" || { echo "FAIL: $f is in ctxscope-cli too"; exit 1; }
done

# The server's package: no Qt, no plotting library, no display. It must still name the
# libraries its binary links (via dpkg-shlibdeps): hwloc and Boost.Context (the fcontext
# coroutine kernel).
if grep -qiE 'qt|qcustomplot|libx11|libgl|libxcb' <<<"$cli_depends"; then
    echo "FAIL: ctxscope-cli depends on a GUI library: $cli_depends"; exit 1
fi
readelf -d "$root/bin/ctxscope-cli" | grep -qiE 'Shared library: \[lib(Qt|QCustomPlot)' &&
    { echo "FAIL: ctxscope-cli links Qt"; exit 1; }
echo "ctxscope-cli: no Qt in its Depends or its binary"
check_lib() { # binary soname-prefix depends package
    if readelf -d "$root/bin/$1" | grep -q "Shared library: \[$2"; then
        grep -q "$4" <<<"$3" || { echo "FAIL: $1 links $2 but its package's Depends does not name $4"; exit 1; }
        echo "$1 links $2 -> Depends names $4"
    else
        echo "FAIL: $1 does not link $2"; exit 1
    fi
}
check_lib ctxscope-cli libhwloc "$cli_depends" libhwloc15
check_lib ctxscope-cli libboost_context "$cli_depends" libboost-context
check_lib ctxscope libQt6Widgets "$app_depends" libqt6widgets6
check_lib ctxscope libQCustomPlotQt6 "$app_depends" libqcustomplot2.1-qt6
# The app runs ctxscope-cli as its worker: the very same version.
grep -qE "(^|, )ctxscope-cli \(= $2\)(,|$)" <<<"$app_depends" ||
    { echo "FAIL: ctxscope does not depend on ctxscope-cli (= $2)"; exit 1; }

# Both install together into one dpkg root (no file in both, the app's dependency on the
# CLI met); libraries from the archive are not installed there, so only their absence is
# forgiven (--force-depends), and dpkg must report no other problem.
dpkg_root=$scratch/dpkg-root
mkdir -p "$dpkg_root/var/lib/dpkg/info" "$dpkg_root/var/lib/dpkg/updates"
touch "$dpkg_root/var/lib/dpkg/status"
force=(--force-depends)
[ "$(id -u)" -eq 0 ] || force+=(--force-not-root)
dpkg --root="$dpkg_root" --log=/dev/null "${force[@]}" -i "$cli_deb" "$app_deb" >"$scratch/dpkg.log" 2>&1 ||
    { cat "$scratch/dpkg.log"; echo "FAIL: the two packages do not install together"; exit 1; }
if grep -v -E "^(Selecting previously|\(Reading database|Preparing to unpack|Unpacking ctxscope|Setting up ctxscope|dpkg: ctxscope(-cli)?: dependency problems, but configuring anyway| ctxscope(-cli)? depends on |  Package .* is not installed\.)" \
        "$scratch/dpkg.log" | grep -q .; then
    cat "$scratch/dpkg.log"; echo "FAIL: dpkg reported something unexpected"; exit 1
fi
! grep -q "depends on ctxscope-cli" "$scratch/dpkg.log" ||
    { cat "$scratch/dpkg.log"; echo "FAIL: ctxscope's dependency on ctxscope-cli was not met"; exit 1; }
for pkg in ctxscope-cli ctxscope; do
    status=$(dpkg-query --admindir="$dpkg_root/var/lib/dpkg" -W -f='${Status}' "$pkg")
    [ "$status" = "install ok installed" ] || { echo "FAIL: $pkg: $status"; exit 1; }
done
for f in usr/bin/ctxscope usr/bin/ctxscope-cli; do
    [ -x "$dpkg_root/$f" ] || { echo "FAIL: /$f not installed by the packages"; exit 1; }
done
echo "packages $(basename "$cli_deb") and $(basename "$app_deb") ok: both installed into one dpkg root"
