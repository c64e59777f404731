# SPDX-License-Identifier: MIT
# The portable bundle (CTXSCOPE_BUNDLE, preset `bundle`, `./packaging/dev.sh bundle`): ctxscope-cli
# linked statically, glibc and libstdc++ included, so one file runs on any x86-64 Linux (kernel
# 4.18 or newer, any C library or none installed) with nothing installed and nothing extracted.
# Debian ships the .a of hwloc, libtracefs, libtraceevent and Boost.Context; fmt has no .a, so the
# bundle uses it header-only. hwloc's libudev calls and its plugin loader are stubbed out
# (app/cli/bundle/bundle_stubs.cpp): see there for why nothing is lost. The preset builds without
# precompiled headers: with them GCC 12 at -O3 reports false -Wstringop-overflow and
# -Warray-bounds inside std::string (engine/src/lesson/pinning.cpp, lesson_util.cpp, run_queue.cpp,
# pipe_placement.cpp), which -Werror makes fatal; the same files compile clean without.
set(CTXSCOPE_BUILD_NOTE "")
if(CTXSCOPE_BUNDLE)
    if(CTXSCOPE_BUILD_GUI OR CTXSCOPE_BUILD_TESTS OR CTXSCOPE_SANITIZE)
        message(FATAL_ERROR "CTXSCOPE_BUNDLE builds ctxscope-cli alone: set CTXSCOPE_BUILD_GUI=OFF, "
                            "CTXSCOPE_BUILD_TESTS=OFF and no CTXSCOPE_SANITIZE (the bundle preset does)")
    endif()
    set(CTXSCOPE_BUILD_NOTE " (portable bundle, static)")
    # pkg_check_modules and find_package then pick each library's archive.
    set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
    set(Boost_USE_STATIC_LIBS ON)
endif()

# CTXSCOPE_FMT: the fmt target the engine and the CLI link.
macro(ctxscope_bundle_fmt)
    if(CTXSCOPE_BUNDLE)
        set(CTXSCOPE_FMT fmt::fmt-header-only)
    else()
        set(CTXSCOPE_FMT fmt::fmt)
    endif()
endmacro()

# ctxscope_bundle_link(TARGET): in the bundle, TARGET is linked fully static with the stubs.
function(ctxscope_bundle_link target)
    if(CTXSCOPE_BUNDLE)
        target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/app/cli/bundle/bundle_stubs.cpp)
        target_link_options(${target} PRIVATE -static -Wl,--wrap=dlopen -s)
    endif()
endfunction()
