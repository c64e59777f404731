# SPDX-License-Identifier: MIT
# Shared by the shell tests that drive a running program (tests/cli/programs.sh,
# tests/reliability/pidstat_agreement.sh); sourced, needs `cli`, `dir` and `fail` set.

# taskset -cp TID's list, expanded ("0,1" and "0-1" both give "0 1").
affinity() {
    local list out=() part
    list=$(taskset -cp "$1" | sed 's/.*: //')
    IFS=, read -ra parts <<<"$list"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then out+=($(seq "${part%-*}" "${part#*-}")); else out+=("$part"); fi
    done
    echo "${out[*]}"
}

# Starts `ctxscope-cli workload pingpong --duration SECONDS` and sets `workload` (the PID the
# shell started), `pid` (the one it prints), `ping` and `pong` (the TIDs of ping0 and pong0).
start_pingpong() {
    "$cli" workload pingpong --duration "$1" >"$dir/workload.txt" 2>&1 &
    workload=$!
    for _ in $(seq 100); do grep -q "threads:" "$dir/workload.txt" && break; sleep 0.1; done
    local line
    line=$(grep "threads:" "$dir/workload.txt") || fail "the workload did not print its threads: $(cat "$dir/workload.txt")"
    [[ $line =~ PID\ ([0-9]+) ]] || fail "no PID in: $line"
    pid=${BASH_REMATCH[1]}
    [[ $line =~ ping0\ ([0-9]+)\ pong0\ ([0-9]+) ]] || fail "no ping0 and pong0 TIDs in: $line"
    ping=${BASH_REMATCH[1]}
    pong=${BASH_REMATCH[2]}
}
