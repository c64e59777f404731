#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build tree into a scratch root, validates the desktop integration with the
# freedesktop and AppStream validators, builds the .deb and checks what it depends on.
# usage: check_package.sh BUILD_DIR
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
deb=$(ls "$scratch"/deb/*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# Every key library the binaries link must appear in Depends (via dpkg-shlibdeps). Qt,
# QCustomPlot, hwloc and Boost.Context (the fcontext coroutine kernel) must be linked.
needed=$(for b in ctxscope ctxscope-cli; do readelf -d "$root/bin/$b" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'; done | sort -u)
check_lib() { # soname-prefix package required
    if grep -q "^$1" <<<"$needed"; then
        grep -q "$2" <<<"$depends" || { echo "FAIL: the binaries link $1 but Depends does not name $2"; exit 1; }
        echo "links $1 -> Depends names $2"
    elif [ "$3" = required ]; then
        echo "FAIL: the binaries do not link $1"; exit 1
    fi
}
check_lib libQt6Widgets libqt6widgets6 required
check_lib libQCustomPlotQt6 libqcustomplot2.1-qt6 required
check_lib libhwloc libhwloc15 required
check_lib libboost_context libboost-context required
version=$(dpkg-deb -f "$deb" Version)
[ "$version" = "$2" ] || { echo "FAIL: package version $version, expected $2"; exit 1; }
dpkg-deb -c "$deb" >"$scratch/contents" && grep -q "usr/share/applications/$app_id.desktop" "$scratch/contents" || { echo "FAIL: .desktop missing from the .deb"; exit 1; }
echo "package $(basename "$deb") ok"
