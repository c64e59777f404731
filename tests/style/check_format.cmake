# SPDX-License-Identifier: MIT
# Fails when a C++ source under engine/, app/ or tests/ differs from what clang-format makes of
# it with the repository's .clang-format (`./packaging/dev.sh format` fixes it).
# Usage: cmake -DCLANG_FORMAT=... -DSOURCE_DIR=... -P check_format.cmake
file(GLOB_RECURSE sources LIST_DIRECTORIES false
    ${SOURCE_DIR}/engine/*.cpp ${SOURCE_DIR}/engine/*.h
    ${SOURCE_DIR}/app/*.cpp ${SOURCE_DIR}/app/*.h
    ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/tests/*.h)
list(LENGTH sources count)
if(count LESS 50)
    message(FATAL_ERROR "found only ${count} sources under ${SOURCE_DIR}: wrong directory?")
endif()
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${sources}
    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted[^\n]*" lines "${err}")
    list(LENGTH lines n)
    message(FATAL_ERROR "${n} places differ from .clang-format (run ./packaging/dev.sh format):\n${err}")
endif()
message(STATUS "${count} sources follow .clang-format")
