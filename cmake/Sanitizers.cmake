# SPDX-License-Identifier: MIT
# A sanitizer build (the asan preset is what dev.sh test and CI build) keeps line tables only
# (-g1, after the build type's -g): its reports' stack traces still name files and lines, and a
# heavy test file compiles about a third faster than with full debug info (HACKING, Build
# times). The code is the same as with -g. CTXSCOPE_SANITIZE_FULL_DEBUG keeps -g, for gdb.
option(CTXSCOPE_SANITIZE_FULL_DEBUG "Full debug info (-g) in a sanitizer build, not line tables only (-g1)" OFF)
add_library(ctxscope_sanitizers INTERFACE)
if(CTXSCOPE_SANITIZE)
    target_compile_options(ctxscope_sanitizers INTERFACE
        -fsanitize=${CTXSCOPE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all
        $<$<NOT:$<BOOL:${CTXSCOPE_SANITIZE_FULL_DEBUG}>>:-g1>)
    target_link_options(ctxscope_sanitizers INTERFACE -fsanitize=${CTXSCOPE_SANITIZE})
endif()
# The test programs' own files compile at -O1 in a sanitizer build (after the build type's -O2):
# gtest's and Qt Test's macros make them the heaviest files to optimise, and what they measure
# or check runs in the engine, CLI and app code they link, which keeps -O2. A heavy test file
# then compiles in about 40% less time (HACKING, Build times). Each test target links this.
add_library(ctxscope_test_code INTERFACE)
if(CTXSCOPE_SANITIZE)
    target_compile_options(ctxscope_test_code INTERFACE -O1)
endif()
