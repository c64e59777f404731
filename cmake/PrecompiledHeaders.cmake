# SPDX-License-Identifier: MIT
# Precompiled headers: the cold build's cost is mostly the same few large headers parsed again
# in every translation unit (nlohmann/json, fmt, Qt's widgets, QCustomPlot, GoogleTest). Each
# target precompiles the ones most of its files include; HACKING.md ("Build times") has the
# measurement. They are on where the tests are built and run (the asan preset, what CI builds
# cold, and dev); the release, tsan and fuzz presets build without them: with more headers in
# view GCC 12 inlines differently at -O2/-O3 and reports false -Wstringop-overflow warnings,
# which -Werror makes fatal, in files that compile clean on their own. -DCTXSCOPE_PCH=OFF also
# checks that every file includes what it uses, which a precompiled header would hide.
option(CTXSCOPE_PCH "Precompile the large third-party headers of each target" ON)

# ctxscope_precompile(TARGET header...): the headers, as <...> names, precompiled for TARGET.
function(ctxscope_precompile target)
    if(CTXSCOPE_PCH)
        target_precompile_headers(${target} PRIVATE ${ARGN})
    endif()
endfunction()

# A file compiled with options of its own (-fpermissive, another -O) cannot use its target's
# precompiled header: GCC would refuse it with -Winvalid-pch, which -Werror makes fatal.
function(ctxscope_no_pch)
    set_source_files_properties(${ARGN} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()
