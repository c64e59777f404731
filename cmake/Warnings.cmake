# SPDX-License-Identifier: MIT
# Warnings live on an INTERFACE target that every ctxscope target links PRIVATE.
add_library(ctxscope_warnings INTERFACE)
target_compile_options(ctxscope_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference)
if(CTXSCOPE_WERROR)
    target_compile_options(ctxscope_warnings INTERFACE -Werror)
endif()
