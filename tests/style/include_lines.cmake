# SPDX-License-Identifier: MIT
# include_lines(FILE OUT): FILE's quoted includes as a list of "LINE:DIRECTIVE" entries, LINE
# the directive's line number and DIRECTIVE as written (stripped), for the messages of the
# layer checks (tests/engine/layers.cmake, tests/gui/layers.cmake). A directive written twice
# gets each of its lines.
function(include_lines file out)
    file(READ ${file} rest)
    file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    set(found "")
    set(lineno 1)
    foreach(line ${includes})
        # Count the newlines before the directive, searching after the one before it.
        string(FIND "${rest}" "${line}" at)
        string(SUBSTRING "${rest}" 0 ${at} before)
        string(REGEX MATCHALL "\n" newlines "${before}")
        list(LENGTH newlines count)
        math(EXPR lineno "${lineno} + ${count}")
        string(LENGTH "${line}" length)
        math(EXPR after "${at} + ${length}")
        string(SUBSTRING "${rest}" ${after} -1 rest)
        string(STRIP "${line}" shown)
        list(APPEND found "${lineno}:${shown}")
    endforeach()
    set(${out} "${found}" PARENT_SCOPE)
endfunction()
