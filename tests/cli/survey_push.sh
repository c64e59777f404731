#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# survey_push.sh CLI [BUNDLE]: survey --hosts --push through Debian's real sshd on 127.0.0.1
# (docs/screenshots/loopback-sshd.sh). BUNDLE (default CLI itself: on this machine its libraries
# are there) is copied to each host over the same ssh and run from a mktemp -d directory:
# * lab-a and lab-b are surveyed from the pushed copy, with a PATH that has no ctxscope-cli;
# * lab-arm, whose uname -m says aarch64, is refused with one sentence while the others go on;
# * as root: lab-noexec, whose TMPDIR is a tmpfs mounted noexec, runs it from a private folder
#   in $HOME instead, removed the same way;
# * a dropped connection (the local ssh killed) and Ctrl-C leave nothing on the host: no
#   directory and no process.
# Exit 77 (skip) without sshd.
set -u
fail() { echo "FAIL: $*"; exit 1; }

# The push directories of the loopback host (this machine's /tmp), and the processes run from one.
pushed_dirs() { ls -d "${TMPDIR:-/tmp}"/ctxscope-push.* 2>/dev/null | sort; }
new_dirs() { comm -13 <(printf '%s\n' "$before") <(pushed_dirs) | grep . ; }
pushed_procs() { pgrep -f "/ctxscope-push\.[A-Za-z0-9]+/ctxscope-cli survey" || true; }

# wait_for SECONDS CONDITION...: polls CONDITION every 0.1 s.
wait_for() {
    local n=$(($1 * 10))
    shift
    for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}
nothing_left() { [ -z "$(new_dirs)" ] && [ -z "$(pushed_procs)" ]; }
survey_runs() { [ -n "$(pushed_procs)" ]; }

if [ "${1:-}" = "--inner" ]; then
    cli=$2 bundle=$3
    dir=$(mktemp -d /tmp/ctxscope-pushtest-XXXXXX)
    trap 'mountpoint -q "$dir/noexec" && umount "$dir/noexec"; rm -rf "$dir"' EXIT
    # lab-a, lab-b and lab-arm are aliases of the loopback host. The ssh command below runs the
    # remote command with a PATH of the system's folders only (no ctxscope-cli in it), and for
    # lab-arm with a uname that says aarch64 first.
    block=$(sed -n '/^Host lab-server$/,$p' "$LOOPBACK_SSH_CONFIG")
    for h in lab-a lab-b lab-arm lab-noexec; do echo "$block" | sed "s/^Host lab-server\$/Host $h/"; done >>"$LOOPBACK_SSH_CONFIG"
    mkdir "$dir/arm"
    printf '#!/bin/sh\n[ "$1" = -m ] && echo aarch64 && exit 0\nexec /bin/uname "$@"\n' >"$dir/arm/uname"
    chmod +x "$dir/arm/uname"
    cat >"$dir/ssh" <<EOF
#!/bin/bash
# ssh -F CONFIG [options] -- HOST COMMAND, the COMMAND run with a plain PATH (lab-arm: a fake uname first)
args=("\$@"); n=\${#args[@]}; host=\${args[n-2]}; command=\${args[n-1]}
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
[ "\$host" = lab-arm ] && path=$dir/arm:\$path
[ "\$host" = lab-noexec ] && command="TMPDIR=$dir/noexec; export TMPDIR; \$command"
exec ssh -F "$LOOPBACK_SSH_CONFIG" "\${args[@]:0:n-1}" "PATH=\$path; export PATH; \$command"
EOF
    chmod +x "$dir/ssh"
    export CTXSCOPE_SSH_COMMAND="$dir/ssh"
    "$dir/ssh" -T -- lab-a 'command -v ctxscope-cli' >/dev/null && fail "the host's PATH has a ctxscope-cli"

    before=$(pushed_dirs)
    "$cli" survey --hosts lab-a,lab-arm,lab-b --parallel 1 --budget 3 --push "$bundle" --out "$dir/cards" \
        >"$dir/out" 2>"$dir/err"
    code=$?
    cat "$dir/err"
    [ "$code" -eq 1 ] || fail "with lab-arm refused: exit $code, not 1"
    for host in lab-a lab-b; do
        jq -e '.survey.suite_version >= 2 and (.benchmarks | length) > 0' "$dir/cards/$host.json" >/dev/null \
            || fail "no card for $host"
        grep -q "^$host: done in .*: $dir/cards/$host.json" "$dir/err" || fail "$host is not reported done"
    done
    grep -q "^ctxscope-cli: surveying 3 hosts, 1 at a time, each within 3 s, pushing the x86_64 bundle ($(stat -c %s "$bundle") bytes, sha256 $(sha256sum "$bundle" | cut -c1-12))" "$dir/err" \
        || fail "the first line does not name the bundle, its size and digest"
    grep -q "^lab-arm: failed: this host is aarch64 and the bundle is for x86_64: not pushed there (exit 3)$" "$dir/err" \
        || fail "lab-arm is not refused in one sentence"
    [ "$(grep -c '^lab-arm: ' "$dir/err")" -le 3 ] || fail "lab-arm says more than started, its sentence and failed"
    grep -q "2 of 3 hosts surveyed, 1 failed" "$dir/err" || fail "no summary line"
    wait_for 5 nothing_left || fail "left on the host after the survey: $(new_dirs) $(pushed_procs)"
    echo "ok: two hosts surveyed from the pushed bundle, lab-arm refused, nothing left"

    # A TMPDIR mounted noexec (root only: it mounts a tmpfs): the bundle runs from $HOME instead.
    if [ "$(id -u)" -eq 0 ]; then
        mkdir "$dir/noexec" && mount -t tmpfs -o noexec,size=512m tmpfs "$dir/noexec" || fail "cannot mount a noexec tmpfs"
        home_before=$(ls -d "$HOME"/.ctxscope-push.* 2>/dev/null)
        "$cli" survey --hosts lab-noexec --budget 3 --push "$bundle" --out "$dir/noexec-cards" >/dev/null 2>"$dir/err-noexec" \
            || fail "lab-noexec was not surveyed: $(cat "$dir/err-noexec")"
        jq -e '.survey.suite_version >= 2' "$dir/noexec-cards/lab-noexec.json" >/dev/null || fail "no card for lab-noexec"
        [ -z "$(ls -A "$dir/noexec")" ] || fail "left in the noexec TMPDIR: $(ls -A "$dir/noexec")"
        [ "$(ls -d "$HOME"/.ctxscope-push.* 2>/dev/null)" = "$home_before" ] || fail "left in \$HOME: $(ls -d "$HOME"/.ctxscope-push.*)"
        umount "$dir/noexec"
        echo "ok: with TMPDIR mounted noexec, the bundle ran from \$HOME and nothing is left"
    fi

    # A dropped connection: once the pushed survey runs, the local ssh is killed.
    before=$(pushed_dirs)
    "$cli" survey --hosts lab-a --budget 60 --push "$bundle" --out "$dir/drop" >/dev/null 2>"$dir/err-drop" &
    local_cli=$!
    wait_for 30 survey_runs || fail "the pushed survey did not start: $(cat "$dir/err-drop")"
    [ -n "$(new_dirs)" ] || fail "no push directory while it runs"
    ssh_pid=$(pgrep -P "$local_cli" | head -1)
    [ -n "$ssh_pid" ] || fail "no local ssh under the CLI"
    kill -KILL "$ssh_pid"
    wait_for 10 nothing_left || fail "left on the host after the connection dropped: $(new_dirs) $(pushed_procs)"
    wait "$local_cli"
    code=$?
    [ "$code" -eq 1 ] || fail "after the dropped connection: exit $code, not 1: $(cat "$dir/err-drop")"
    echo "ok: after a dropped connection nothing is left on the host"

    # Ctrl-C on the local side.
    before=$(pushed_dirs)
    "$cli" survey --hosts lab-a --budget 60 --push "$bundle" --out "$dir/int" >/dev/null 2>"$dir/err-int" &
    local_cli=$!
    wait_for 30 survey_runs || fail "the pushed survey did not start: $(cat "$dir/err-int")"
    kill -INT "$local_cli"
    wait "$local_cli"
    code=$?
    [ "$code" -eq 130 ] || fail "after Ctrl-C: exit $code, not 130: $(cat "$dir/err-int")"
    wait_for 10 nothing_left || fail "left on the host after Ctrl-C: $(new_dirs) $(pushed_procs)"
    echo "ok: after Ctrl-C nothing is left on the host"
    echo "PASS: survey --push over ssh, the architecture refused, nothing left behind"
    exit 0
fi

cli=$(readlink -f "$1")
bundle=$(readlink -f "${2:-$1}")
[ -x /usr/sbin/sshd ] || { echo "SKIP: no /usr/sbin/sshd (openssh-server)"; exit 77; }
command -v jq >/dev/null || fail "jq is missing"
# A test build carries hundreds of MB of debug information (357 MB under ASan): push a copy
# without it, as the bundle is (7 MB), so that the copies are quick and fit a small tmpfs.
if [ -z "${2:-}" ]; then
    stripped=$(mktemp -d /tmp/ctxscope-pushcli-XXXXXX)
    trap 'rm -rf "$stripped"' EXIT
    strip --strip-debug -o "$stripped/ctxscope-cli" "$cli" || fail "cannot strip a copy of $cli"
    bundle=$stripped/ctxscope-cli
fi
"$(dirname "$0")/../../docs/screenshots/loopback-sshd.sh" "$0" --inner "$cli" "$bundle"
