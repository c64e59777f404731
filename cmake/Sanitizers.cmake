# SPDX-License-Identifier: MIT
add_library(ctxscope_sanitizers INTERFACE)
if(CTXSCOPE_SANITIZE)
    target_compile_options(ctxscope_sanitizers INTERFACE
        -fsanitize=${CTXSCOPE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(ctxscope_sanitizers INTERFACE -fsanitize=${CTXSCOPE_SANITIZE})
endif()
