# SPDX-License-Identifier: MIT
# Feeds scripted sessions to `ctxscope-cli worker --finish-on-eof` and checks the replies, in
# order of need: hello first, an error for garbage, for each malformed command and for an
# unknown type, a cancel of each kind of command, a result, bye last. Then one session per
# sweep, matrix and lesson (JOBS, one command a line), each left to finish at the end of its
# input. Last, without --finish-on-eof, the end of input cancels a 90 s run.
# The protocol version the worker must say: protocol.h's, as the app checks it.
file(STRINGS ${PROTOCOL_H} versionLine REGEX "inline constexpr int kVersion = [0-9]+;")
string(REGEX MATCH "[0-9]+" PROTOCOL_VERSION "${versionLine}")
if(NOT PROTOCOL_VERSION)
    message(FATAL_ERROR "no kVersion in ${PROTOCOL_H}")
endif()

function(run_worker input out_var)
    execute_process(COMMAND ${CLI} worker ${ARGN} INPUT_FILE ${input} RESULT_VARIABLE code OUTPUT_VARIABLE out
        ERROR_VARIABLE err TIMEOUT 120)
    if(NOT code EQUAL 0)
        message(FATAL_ERROR "worker exited with ${code} on ${input}\n${err}")
    endif()
    # Lines hold ';' (topology XML), so no CMake lists: cut the first and the last line by hand.
    string(FIND "${out}" "\n" firstEnd)
    string(SUBSTRING "${out}" 0 ${firstEnd} first)
    string(STRIP "${out}" trimmed)
    string(FIND "${trimmed}" "\n" lastStart REVERSE)
    math(EXPR lastStart "${lastStart} + 1")
    string(SUBSTRING "${trimmed}" ${lastStart} -1 last)
    if(NOT first MATCHES "\"type\":\"hello\"" OR NOT first MATCHES "\"protocol\":${PROTOCOL_VERSION}[,}]")
        message(FATAL_ERROR "the first line is not a version ${PROTOCOL_VERSION} hello")
    endif()
    if(NOT last STREQUAL "{\"type\":\"bye\"}")
        message(FATAL_ERROR "the last line is not bye: ${last}")
    endif()
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(expect_in out)
    foreach(expect ${ARGN})
        string(FIND "${out}" "${expect}" at)
        if(at EQUAL -1)
            message(FATAL_ERROR "no reply containing ${expect} in:\n${out}")
        endif()
    endforeach()
endfunction()

run_worker(${SCRIPT} out --finish-on-eof)
expect_in("${out}"
    "\"message\":\"not a JSON line\""
    "{\"id\":1,\"type\":\"cancelled\"}"
    "{\"id\":3,\"type\":\"cancelled\"}"
    "{\"id\":4,\"type\":\"cancelled\"}"
    "{\"id\":5,\"type\":\"cancelled\"}"
    "{\"id\":6,\"message\":\"bad sweep message: missing field 'spec'\",\"type\":\"error\"}"
    "{\"id\":7,\"message\":\"bad sweep message: field 'to_bytes' should be a number\""
    "{\"id\":8,\"message\":\"bad matrix message: field 'bench' should be a string\""
    "{\"id\":9,\"message\":\"bad matrix message: fill should be classes or all-pairs, not 'diagonal'\""
    "{\"id\":10,\"message\":\"bad lesson message: missing field 'lesson'\""
    "{\"id\":11,\"message\":\"bad lesson message: field 'min_time' should be a number\""
    "{\"id\":null,\"message\":\"a lesson message needs a non-negative integer \\\"id\\\"\""
    "\"id\":2,\"result\":{\"bench\":\"syscall\""
    "unknown message type 'launch-missiles'")
foreach(kind sweep_result matrix_result lesson_result)
    string(FIND "${out}" "\"type\":\"${kind}\"" at)
    if(NOT at EQUAL -1)
        message(FATAL_ERROR "a cancelled command still sent its ${kind}")
    endif()
endforeach()

file(STRINGS ${JOBS} jobs)
set(n 0)
foreach(job IN LISTS jobs)
    math(EXPR n "${n} + 1")
    set(input ${CMAKE_CURRENT_BINARY_DIR}/worker_job_${n}.ndjson)
    file(WRITE ${input} "${job}\n")
    run_worker(${input} out --finish-on-eof)
    if(job MATCHES "\"type\":\"sweep\"")
        expect_in("${out}" "\"type\":\"sweep_point\"" "\"type\":\"sweep_result\"" "\"switch_ns\":")
    elseif(job MATCHES "\"type\":\"matrix\"")
        expect_in("${out}" "\"type\":\"matrix_cell\"" "\"type\":\"matrix_result\"" "\"fill\":\"classes\"")
    else()
        expect_in("${out}" "\"type\":\"lesson_step\"" "\"type\":\"lesson_result\"" "times dearer than the system call")
    endif()
endforeach()

set(input ${CMAKE_CURRENT_BINARY_DIR}/worker_eof_cancels.ndjson)
file(WRITE ${input} "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"min_time\":30,\"repetitions\":3}}\n")
run_worker(${input} out)
expect_in("${out}" "{\"id\":1,\"type\":\"cancelled\"}")
