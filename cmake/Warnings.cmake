# SPDX-License-Identifier: MIT
# Warnings live on an INTERFACE target that every ctxscope target links PRIVATE.
# -Wnull-dereference is left out: at -O2 GCC 12 reports it inside nlohmann/json's inlined
# code, which would break the release and tsan presets under -Werror.
add_library(ctxscope_warnings INTERFACE)
target_compile_options(ctxscope_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual)
# GCC 12 reports -Wrestrict false positives inside libstdc++'s std::string operator+ at -O2
# (GCC bug 105329, fixed in GCC 13); they would break the release build under -Werror.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(ctxscope_warnings INTERFACE -Wno-restrict)
endif()
if(CTXSCOPE_WERROR)
    target_compile_options(ctxscope_warnings INTERFACE -Werror)
endif()
