# SPDX-License-Identifier: MIT
# Feeds a scripted session to `ctxscope-cli worker` and checks the replies, in order of need:
# hello first, an error for garbage and for an unknown type, the cancel, a result, bye last.
execute_process(COMMAND ${CLI} worker INPUT_FILE ${SCRIPT} RESULT_VARIABLE code OUTPUT_VARIABLE out
    ERROR_VARIABLE err TIMEOUT 60)
if(NOT code EQUAL 0)
    message(FATAL_ERROR "worker exited with ${code}\n${err}")
endif()
# Lines hold ';' (topology XML), so no CMake lists: cut the first and the last line by hand.
string(FIND "${out}" "\n" firstEnd)
string(SUBSTRING "${out}" 0 ${firstEnd} first)
string(STRIP "${out}" trimmed)
string(FIND "${trimmed}" "\n" lastStart REVERSE)
math(EXPR lastStart "${lastStart} + 1")
string(SUBSTRING "${trimmed}" ${lastStart} -1 last)
if(NOT first MATCHES "\"type\":\"hello\"" OR NOT first MATCHES "\"protocol\":1")
    message(FATAL_ERROR "the first line is not a version 1 hello")
endif()
if(NOT last STREQUAL "{\"type\":\"bye\"}")
    message(FATAL_ERROR "the last line is not bye: ${last}")
endif()
foreach(expect
        "\"message\":\"not a JSON line\""
        "unknown message type 'launch-missiles'"
        "{\"id\":1,\"type\":\"cancelled\"}"
        "\"id\":2,\"result\":{\"bench\":\"syscall\"")
    string(FIND "${out}" "${expect}" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "no reply containing ${expect} in:\n${out}")
    endif()
endforeach()
