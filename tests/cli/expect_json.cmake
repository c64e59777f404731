# SPDX-License-Identifier: MIT
# Runs CLI with ARGS, checks it exits 0 with JSON on stdout whose array KEY has LENGTH elements.
execute_process(COMMAND ${CLI} ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
    message(FATAL_ERROR "exit code ${code}\nstderr: ${err}")
endif()
string(JSON n ERROR_VARIABLE json_error LENGTH "${out}" ${KEY})
if(json_error)
    message(FATAL_ERROR "stdout is not the expected JSON (${json_error}):\n${out}")
endif()
if(NOT n EQUAL LENGTH)
    message(FATAL_ERROR "${KEY} has ${n} elements, expected ${LENGTH}")
endif()
