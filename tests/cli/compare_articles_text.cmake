# SPDX-License-Identifier: MIT
# Issue 44: `compare --with-articles` as text a person reads: no line over 120 characters (the
# machines under each row when their columns would not fit), each reason said once, and only
# the context facts that differ between machines that state them.
execute_process(COMMAND ${CLI} compare ${RESULTS}/matrix-futex.json ${RESULTS}/other-machine.json --with-articles
    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
    message(FATAL_ERROR "exit code ${code}: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
    string(LENGTH "${line}" length) # bytes: µ and the Chinese title count more than once, never less
    if(length GREATER 140)
        message(FATAL_ERROR "a line of ${length} bytes:\n${line}")
    endif()
endforeach()
# The articles' figures, one line per machine under their rows, with no spread to give an interval.
# The measured files have two repetitions a side: their t interval is wide, and 1.05 is unclear.
if(NOT out MATCHES "\nfutex thread +same-pu +matrix-futex +5.85 µs +\\(baseline\\)\n +other-machine +6.15 µs +1.05 \\(0.81-1.36\\) +unclear\n +2010 Intel 5150 +3.4 µs +0.58 \\(no spread\\) +unclear\n")
    message(FATAL_ERROR "no long table of the articles' figures:\n${out}")
endif()
string(REGEX MATCHALL "One figure per row, no spread" reasons "${out}")
list(LENGTH reasons count)
if(NOT count EQUAL 2)
    message(FATAL_ERROR "the published figures' reason ${count} times, not once per source:\n${out}")
endif()
# Both measured machines have the same mitigations and the articles do not say: no difference.
if(out MATCHES "\n  mitigation ")
    message(FATAL_ERROR "a mitigation listed as a difference:\n${out}")
endif()
if(NOT out MATCHES "\n  kernel: matrix-futex, other-machine: 6.18.44-fc-v595; 2010 Intel 5150: 2.6.28-19-server")
    message(FATAL_ERROR "the kernel's difference is not grouped by value:\n${out}")
endif()
