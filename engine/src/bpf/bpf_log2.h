/* SPDX-License-Identifier: MIT */
/* The highest set bit of a 64-bit value (0 for 0 and 1), for the BPF programs' bins: a ladder of
 * compares, as runqlat's log2l(), which the verifier follows without a loop. */
#ifndef CTXSCOPE_BPF_LOG2_H
#define CTXSCOPE_BPF_LOG2_H

#include <linux/types.h>

static __always_inline __u32 ctxscope_log2(__u64 v)
{
    __u32 r = 0;
    if (v >> 32) {
        v >>= 32;
        r += 32;
    }
    if (v >> 16) {
        v >>= 16;
        r += 16;
    }
    if (v >> 8) {
        v >>= 8;
        r += 8;
    }
    if (v >> 4) {
        v >>= 4;
        r += 4;
    }
    if (v >> 2) {
        v >>= 2;
        r += 2;
    }
    if (v >> 1)
        r += 1;
    return r;
}

#endif
