# SPDX-License-Identifier: MIT
# cmake -DCLI=<ctxscope-cli> -DSTATIC=<ctxscope-cli.h2m> -DOUT=<include file> -P subcommands.cmake
#
# Writes help2man's include file for ctxscope-cli(1): the hand-written sections from STATIC,
# then a COMMANDS section holding every subcommand's own --help, so the man page documents
# each option exactly as the binary parses it. The subcommands are read from the top-level
# --help (CLI11's "Subcommands:" list), so a new one cannot be forgotten.
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} --help failed (${rc})")
endif()
string(REGEX MATCH "Subcommands:\n(.*)" _ "${top}")
string(REGEX MATCHALL "\n  ([a-z][a-z-]*)" entries "\n${CMAKE_MATCH_1}")
set(names)
foreach(entry IN LISTS entries)
    string(STRIP "${entry}" name)
    list(APPEND names ${name})
endforeach()
if(NOT names)
    message(FATAL_ERROR "no Subcommands list in '${CLI} --help'")
endif()

file(READ ${STATIC} text)
string(APPEND text "\n[COMMANDS]\n")
foreach(name IN LISTS names)
    execute_process(COMMAND ${CLI} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${CLI} ${name} --help failed (${rc})")
    endif()
    # roff: a leading dot or quote would be read as a request; backslashes escape.
    string(REPLACE "\\" "\\e" help "${help}")
    string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" help "\n${help}")
    string(APPEND text ".SS ${name}\n.nf${help}\n.fi\n")
endforeach()
file(WRITE ${OUT} "${text}")
