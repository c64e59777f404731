#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# survey_hosts.sh CLI: survey --hosts through Debian's real sshd on 127.0.0.1, started by
# docs/screenshots/loopback-sshd.sh (its own keys and config, reached through
# $CTXSCOPE_SSH_COMMAND as a user would): two aliases of the loopback host give two cards named
# after them, a closed port is named with ssh's reason while the others go on, and the exit
# status says one failed. A host that starts with '-' is refused with exit 2 before ssh runs.
# Exit 77 (skip) without sshd.
set -u
fail() { echo "FAIL: $*"; exit 1; }

if [ "${1:-}" = "--inner" ]; then
    # Inside loopback-sshd.sh: its config has one alias, lab-server; add lab-a, lab-b and
    # lab-closed (a port nobody listens on).
    cli=$2
    dir=$(mktemp -d /tmp/ctxscope-hosts-XXXXXX)
    trap 'rm -rf "$dir"' EXIT
    block=$(sed -n '/^Host lab-server$/,$p' "$LOOPBACK_SSH_CONFIG")
    closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    {
        echo "$block" | sed 's/^Host lab-server$/Host lab-a/'
        echo "$block" | sed 's/^Host lab-server$/Host lab-b/'
        echo "$block" | sed -e 's/^Host lab-server$/Host lab-closed/' -e "s/^  Port .*/  Port $closed/"
    } >>"$LOOPBACK_SSH_CONFIG"
    "$cli" survey --hosts lab-a,lab-closed,lab-b --parallel 1 --budget 3 --remote-cli "$cli" --out "$dir/cards" \
        >"$dir/out" 2>"$dir/err"
    code=$?
    [ "$code" -eq 1 ] || fail "with one host unreachable: exit $code, not 1: $(cat "$dir/err")"
    for host in lab-a lab-b; do
        jq -e '.survey.suite_version == 2 and (.benchmarks | length) > 0' "$dir/cards/$host.json" >/dev/null \
            || fail "no card for $host: $(ls "$dir/cards") $(cat "$dir/err")"
        grep -q "^$host: done in .*: $dir/cards/$host.json" "$dir/err" || fail "$host is not reported done: $(cat "$dir/err")"
    done
    [ "$(ls "$dir/cards")" = "$(printf 'lab-a.json\nlab-b.json')" ] || fail "the cards directory holds: $(ls "$dir/cards")"
    grep -q "^lab-closed: failed: ssh: connect to host 127.0.0.1 port $closed: Connection refused (exit 255)" "$dir/err" \
        || fail "lab-closed's failure does not give ssh's reason: $(cat "$dir/err")"
    grep -q "2 of 3 hosts surveyed, 1 failed" "$dir/err" || fail "no summary line: $(cat "$dir/err")"
    "$cli" compare "$dir/cards/lab-a.json" "$dir/cards/lab-b.json" --format csv | grep -q "^syscall,thread,same-pu,0,lab-b," \
        || fail "the two cards do not compare"
    cat "$dir/err"
    echo "PASS: two hosts surveyed over ssh, the unreachable one named"
    exit 0
fi

cli=$(readlink -f "$1")
[ -x /usr/sbin/sshd ] || { echo "SKIP: no /usr/sbin/sshd (openssh-server)"; exit 77; }
command -v jq >/dev/null || fail "jq is missing"
command -v python3 >/dev/null || fail "python3 is missing"

# A host that is an option is refused before ssh runs: the ssh command would leave a mark.
mark=$(mktemp -d /tmp/ctxscope-hosts-XXXXXX)
trap 'rm -rf "$mark"' EXIT
printf '#!/bin/sh\ntouch %s/ssh-ran\n' "$mark" >"$mark/fake-ssh"
chmod +x "$mark/fake-ssh"
CTXSCOPE_SSH_COMMAND="$mark/fake-ssh" "$cli" survey --hosts lab-a,-oProxyCommand=touch --out "$mark/x" >"$mark/out" 2>"$mark/err"
code=$?
[ "$code" -eq 2 ] || fail "a host starting with '-': exit $code, not 2"
[ ! -e "$mark/ssh-ran" ] && [ ! -e "$mark/x" ] || fail "ssh ran (or --out was made) before the host was refused"
[ "$(wc -l <"$mark/err")" -eq 1 ] && grep -q "starts with '-': ssh would read it as an option" "$mark/err" \
    || fail "the refusal is not one sentence: $(cat "$mark/err")"

"$(dirname "$0")/../../docs/screenshots/loopback-sshd.sh" "$0" --inner "$cli"
