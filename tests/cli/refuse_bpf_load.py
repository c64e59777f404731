#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# refuse_bpf_load.py COMMAND [ARG...]: runs COMMAND where the kernel refuses to load any BPF
# program (bpf(BPF_PROG_LOAD) fails with EACCES, as a verifier or a security module refuses one),
# while everything else about BPF stays allowed: maps, BTF, the capabilities. What a machine
# whose kernel cannot take ctxscope's programs looks like to it, made with a seccomp filter on
# this process (kept across exec, gone with it), so the tests can check the fallbacks there.
# Exit 77 where this architecture is not one it knows the bpf() system call's number for.
import ctypes
import os
import platform
import struct
import sys

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
NR, ARCH, ARG0 = 0, 4, 16
ARCHES = {"x86_64": (0xC000003E, 321), "aarch64": (0xC00000B7, 280)}
BPF_PROG_LOAD = 5
EACCES = 13
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def main():
    if len(sys.argv) < 2:
        print("usage: refuse_bpf_load.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    arch = ARCHES.get(platform.machine())
    if arch is None:
        print(f"SKIP: no bpf() number known for {platform.machine()}", file=sys.stderr)
        return 77
    audit_arch, nr_bpf = arch
    program = b"".join(
        [
            insn(LD_W_ABS, 0, 0, ARCH),
            insn(JEQ_K, 0, 4, audit_arch),  # another ABI: allowed
            insn(LD_W_ABS, 0, 0, NR),
            insn(JEQ_K, 0, 2, nr_bpf),
            insn(LD_W_ABS, 0, 0, ARG0),  # the command (the low word of args[0])
            insn(JEQ_K, 1, 0, BPF_PROG_LOAD),
            insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
            insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | EACCES),
        ]
    )
    filters = ctypes.create_string_buffer(program)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.addressof(filters))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        print(f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        print(f"prctl(PR_SET_SECCOMP): {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
