#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# restricted.sh cpuset|taskset COMMAND...: runs COMMAND limited to one CPU, the first this
# process may use, either inside a new cpuset cgroup (needs root and a cpuset controller:
# cgroup v1, or v2 with cpuset delegable from our cgroup) or under taskset. Tells the tests
# what to expect through CTXSCOPE_EXPECT_ALLOWED and CTXSCOPE_EXPECT_LIMITED_BY.
# Exit 77 (ctest SKIP_RETURN_CODE) with the reason when the machine does not allow it.
set -u
mode=$1
shift
skip() { echo "SKIPPED: $*"; exit 77; }

allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
first=${allowed%%[-,]*}
[ "$allowed" != "$first" ] || skip "only CPU $first is allowed here: limiting to one CPU would change nothing"
export CTXSCOPE_EXPECT_ALLOWED=$first

if [ "$mode" = taskset ]; then
    command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
    export CTXSCOPE_EXPECT_LIMITED_BY=affinity
    exec taskset -c "$first" "$@"
fi

[ "$(id -u)" -eq 0 ] || skip "creating a cpuset cgroup needs root (running as $(id -un))"
group=""
cleanup() { [ -n "$group" ] && rmdir "$group" 2>/dev/null; }
trap cleanup EXIT
if [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
    # cgroup v1: a child of the cpuset our process is in.
    parent=/sys/fs/cgroup/cpuset$(awk -F: '$2 == "cpuset" { print $3 }' /proc/self/cgroup)
    group=${parent%/}/ctxscope-test-$$
    mkdir "$group" 2>/dev/null || skip "cannot create $group (read-only cgroup file system?)"
    cat "$parent/cpuset.mems" >"$group/cpuset.mems" || skip "cannot set $group/cpuset.mems"
elif grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    # cgroup v2: only when our cgroup may hand cpuset down (the root, or a delegated one).
    parent=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
    echo +cpuset >"$parent/cgroup.subtree_control" 2>/dev/null || skip "cgroup v2: cannot enable cpuset below $parent"
    group=${parent%/}/ctxscope-test-$$
    mkdir "$group" 2>/dev/null || skip "cannot create $group"
else
    skip "no cpuset cgroup controller (neither /sys/fs/cgroup/cpuset nor cpuset in cgroup v2)"
fi
echo "$first" >"$group/cpuset.cpus" || skip "cannot set $group/cpuset.cpus"
export CTXSCOPE_EXPECT_LIMITED_BY=cgroup
procs=$group/cgroup.procs
[ -f "$procs" ] || procs=$group/tasks
echo "running in cgroup $group limited to CPU $first"
# The command runs in a child that moved itself in first; we stay outside to remove the group.
bash -c 'echo $$ >"$0" || exit 99; exec "$@"' "$procs" "$@" &
wait $!
status=$?
[ $status -ne 99 ] || skip "cannot move a process into $group"
exit $status
