# SPDX-License-Identifier: MIT
# Runs CLI with ARGS (a ;-list) and checks its exit code and that stderr contains EXPECT_STDERR.
execute_process(COMMAND ${CLI} ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code STREQUAL EXPECT_CODE)
    message(FATAL_ERROR "exit code ${code}, expected ${EXPECT_CODE}\nstdout: ${out}\nstderr: ${err}")
endif()
string(FIND "${err}" "${EXPECT_STDERR}" at)
if(at EQUAL -1)
    message(FATAL_ERROR "stderr does not mention '${EXPECT_STDERR}':\n${err}")
endif()
