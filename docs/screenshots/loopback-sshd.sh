#!/bin/bash
# SPDX-License-Identifier: MIT
# A throwaway "other machine" for the ssh screenshot: Debian's real sshd (openssh-server) on
# 127.0.0.1 at a free port, with its own host key, user key, sshd_config and ssh client config
# in a temporary directory, as tests/gui/localsshd.cpp starts it for the tests.
#   docs/screenshots/loopback-sshd.sh COMMAND [ARGS...]
# runs COMMAND with $LOOPBACK_SSH_CONFIG (the client config; its Host alias is lab-server,
# this machine as the current user) and $CTXSCOPE_SSH_COMMAND ("ssh -F that-config") set, then
# stops sshd and its sessions and removes the directory; it exits with COMMAND's status.
# Without a COMMAND it prints the config's path and keeps sshd up until Ctrl-C.
#   e.g. docs/screenshots/loopback-sshd.sh sh -c 'ssh -F "$LOOPBACK_SSH_CONFIG" lab-server uname -n'
# As root it makes /run/sshd (sshd's privilege-separation directory) when it is missing.
set -euo pipefail
sshd=/usr/sbin/sshd # sshd re-executes itself: it wants its absolute path
[[ -x $sshd ]] || { echo "loopback-sshd.sh: no $sshd (apt install openssh-server)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "loopback-sshd.sh: python3 is missing" >&2; exit 2; }

dir=$(mktemp -d)
pid=
stop() {
    if [[ -n $pid ]]; then
        # The connections' sshd processes first (a stopped listener leaves them running).
        local sessions
        mapfile -t sessions < <(pgrep -P "$pid" || true)
        kill "${sessions[@]}" "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM

# A port the kernel just handed out on 127.0.0.1 (free unless taken in the next moment).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for key in host user; do ssh-keygen -q -t ed25519 -N '' -C "loopback-sshd $key" -f "$dir/$key"; done
cp "$dir/user.pub" "$dir/authorized_keys"
echo "[127.0.0.1]:$port $(cat "$dir/host.pub")" >"$dir/known_hosts"
cat >"$dir/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
EOF
cat >"$dir/ssh_config" <<EOF
Host lab-server
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $dir/user
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
EOF

[[ $(id -u) -ne 0 ]] || mkdir -p /run/sshd
"$sshd" -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
pid=$!
for _ in $(seq 50); do # up to 5 s for it to listen
    if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
(: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
    || { echo "loopback-sshd.sh: sshd did not start: $(cat "$dir/sshd.log")" >&2; exit 1; }

export LOOPBACK_SSH_CONFIG="$dir/ssh_config"
export CTXSCOPE_SSH_COMMAND="ssh -F '$dir/ssh_config'"
if [[ $# -eq 0 ]]; then
    echo "$LOOPBACK_SSH_CONFIG"
    echo "loopback-sshd.sh: sshd on 127.0.0.1:$port (Host lab-server); Ctrl-C stops it" >&2
    wait "$pid"
else
    status=0
    "$@" || status=$?
    exit "$status"
fi
