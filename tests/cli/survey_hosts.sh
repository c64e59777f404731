#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# survey_hosts.sh CLI: survey --hosts through Debian's real sshd on 127.0.0.1 (its own keys and
# config in a temporary directory, reached through $CTXSCOPE_SSH_COMMAND as a user would): two
# aliases of the loopback host give two cards named after them, a closed port is named with
# ssh's reason while the others go on, and the exit status says one failed. A host that starts
# with '-' is refused with exit 2 before ssh runs. Exit 77 (skip) without sshd.
set -u
cli=$(readlink -f "$1")
dir=$(mktemp -d /tmp/ctxscope-hosts-XXXXXX)
sshd_pid=""
cleanup() {
    [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "SKIP: no /usr/sbin/sshd (openssh-server)"; exit 77; }
command -v jq >/dev/null || fail "jq is missing"

# A host that is an option is refused before ssh runs: the ssh command would leave a mark.
printf '#!/bin/sh\ntouch %s/ssh-ran\n' "$dir" >"$dir/fake-ssh"
chmod +x "$dir/fake-ssh"
CTXSCOPE_SSH_COMMAND="$dir/fake-ssh" "$cli" survey --hosts lab-a,-oProxyCommand=touch --out "$dir/x" >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" -eq 2 ] || fail "a host starting with '-': exit $code, not 2"
[ ! -e "$dir/ssh-ran" ] || fail "ssh ran before the host was refused"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q "starts with '-': ssh would read it as an option" "$dir/err" \
    || fail "the refusal is not one sentence: $(cat "$dir/err")"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
closed=$(free_port)
ssh-keygen -q -t ed25519 -N '' -f "$dir/host" && ssh-keygen -q -t ed25519 -N '' -f "$dir/user" || fail "ssh-keygen failed"
cp "$dir/user.pub" "$dir/authorized_keys"
mkdir -p /run/sshd 2>/dev/null
cat >"$dir/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host
AuthorizedKeysFile $dir/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
CONF
echo "[127.0.0.1]:$port $(cat "$dir/host.pub")" >"$dir/known_hosts"
user=$(id -un)
for alias in lab-a:$port lab-b:$port lab-closed:$closed; do
    printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s/user\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile %s/known_hosts\n  GlobalKnownHostsFile /dev/null\n' \
        "${alias%%:*}" "${alias##*:}" "$user" "$dir" "$dir" >>"$dir/ssh_config"
done
chmod 600 "$dir/ssh_config"
/usr/sbin/sshd -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
sshd_pid=$!
for _ in $(seq 100); do
    ssh -F "$dir/ssh_config" -o BatchMode=yes lab-a true 2>/dev/null && break
    kill -0 "$sshd_pid" 2>/dev/null || { echo "SKIP: sshd did not start: $(cat "$dir/sshd.log")"; exit 77; }
    sleep 0.1
done

export CTXSCOPE_SSH_COMMAND="ssh -F '$dir/ssh_config'"
"$cli" survey --hosts lab-a,lab-closed,lab-b --parallel 1 --budget 3 --remote-cli "$cli" --out "$dir/cards" \
    >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" -eq 1 ] || fail "with one host unreachable: exit $code, not 1: $(cat "$dir/err")"
for host in lab-a lab-b; do
    jq -e '.survey.suite_version == 1 and (.benchmarks | length) > 0' "$dir/cards/$host.json" >/dev/null \
        || fail "no card for $host: $(ls "$dir/cards") $(cat "$dir/err")"
    grep -q "^$host: done in .*: $dir/cards/$host.json" "$dir/err" || fail "$host is not reported done: $(cat "$dir/err")"
done
[ ! -e "$dir/cards/lab-closed.json" ] && [ -z "$(ls "$dir/cards" | grep part)" ] || fail "a card or part file for lab-closed: $(ls "$dir/cards")"
grep -q "^lab-closed: failed: ssh: connect to host 127.0.0.1 port $closed: Connection refused (exit 255)" "$dir/err" \
    || fail "lab-closed's failure does not give ssh's reason: $(cat "$dir/err")"
grep -q "2 of 3 hosts surveyed, 1 failed" "$dir/err" || fail "no summary line: $(cat "$dir/err")"
"$cli" compare "$dir/cards/lab-a.json" "$dir/cards/lab-b.json" --format csv | grep -q "^syscall,thread,same-pu,0,lab-b," \
    || fail "the two cards do not compare"
cat "$dir/err"
echo "PASS: two hosts surveyed over ssh, the unreachable one named"
