# SPDX-License-Identifier: MIT
# The engine's folders and what each may include from src/ (HACKING.md, "The engine's layout":
# the rules below are that table's last column). Every quoted include of the form
# "folder/file.h" names a folder under src/; it must be one the including file's folder may use,
# or a file listed on its own (compare/ may use lesson/verdict.h, no other file of lesson/).
# Public headers ("ctxscope/...") may be included everywhere. Fails, naming the file, the line
# and the rule, on an include the rules do not allow, on a folder under src/ that has no rule (a
# new folder must be placed in the table and here) and on a rule for a folder that is gone.
# Run as: cmake -DENGINE_SRC=<engine/src> -P layers.cmake
cmake_minimum_required(VERSION 3.25) # IN_LIST, continue()
include(${CMAKE_CURRENT_LIST_DIR}/../style/include_lines.cmake)
if(NOT ENGINE_SRC)
    message(FATAL_ERROR "give -DENGINE_SRC=<path to engine/src>")
endif()

# may_FOLDER: the folders (or single files) under src/ that FOLDER's files may include from.
# An empty list: nothing under src/.
set(may_os os)
set(may_bench bench os)
set(may_runner runner bench os)
set(may_stats stats)
set(may_units "")
set(may_topology topology)
set(may_sysinfo os)
set(may_report report)
set(may_protocol protocol report)
set(may_sweep sweep)
set(may_matrix matrix)
set(may_lesson lesson)
set(may_survey survey)
set(may_compare compare lesson/verdict.h report)
set(may_programs programs os)
set(may_trace trace os)
set(may_workload workload os)
set(may_remote "")
set(may_bpf bpf trace os)
set(ruled os bench runner stats units topology sysinfo report protocol sweep matrix lesson survey compare programs
    trace workload remote bpf)

set(problems "")

# Every folder has a rule, every rule a folder, and no source sits outside a folder.
file(GLOB entries RELATIVE ${ENGINE_SRC} ${ENGINE_SRC}/*)
set(folders "")
foreach(entry ${entries})
    if(IS_DIRECTORY ${ENGINE_SRC}/${entry})
        list(APPEND folders ${entry})
        if(NOT entry IN_LIST ruled)
            string(APPEND problems "\n  ${entry}/: a folder with no rule (place it in HACKING.md's table and in "
                "tests/engine/layers.cmake)")
        endif()
    else()
        string(APPEND problems "\n  ${entry}: a file outside the folders (put it in the folder of its layer)")
    endif()
endforeach()
foreach(folder ${ruled})
    if(NOT folder IN_LIST folders)
        string(APPEND problems "\n  ${folder}/: a rule for a folder that does not exist (drop it from the table and here)")
    endif()
endforeach()
if(NOT folders)
    message(FATAL_ERROR "no folders under ${ENGINE_SRC}: the check would pass vacuously")
endif()

foreach(folder ${folders})
    if(NOT folder IN_LIST ruled)
        continue()
    endif()
    if(may_${folder})
        set(shown "")
        foreach(may ${may_${folder}})
            if(may IN_LIST ruled)
                list(APPEND shown ${may}/)
            else()
                list(APPEND shown ${may})
            endif()
        endforeach()
        list(JOIN shown ", " allowed)
        set(rule "${folder}/ may include from ${allowed} only")
    else()
        set(rule "${folder}/ may include nothing from src/, only public headers")
    endif()
    file(GLOB_RECURSE files ${ENGINE_SRC}/${folder}/*)
    foreach(f ${files})
        file(RELATIVE_PATH rel ${ENGINE_SRC} ${f})
        include_lines(${f} entries)
        foreach(entry ${entries})
            string(REGEX MATCH "^([0-9]+):(.*)$" parts "${entry}")
            set(number ${CMAKE_MATCH_1})
            set(shown "${CMAKE_MATCH_2}")
            if(NOT shown MATCHES "\"([^\"/]+)/([^\"]*)\"")
                continue() # a file of its own folder, named without one
            endif()
            set(target ${CMAKE_MATCH_1})
            set(path ${CMAKE_MATCH_1}/${CMAKE_MATCH_2})
            if(NOT target IN_LIST folders)
                continue() # a public header (ctxscope/) or not under src/
            endif()
            if(target IN_LIST may_${folder} OR path IN_LIST may_${folder})
                continue()
            endif()
            string(APPEND problems "\n  ${rel}:${number}: ${shown} (rule: ${rule})")
        endforeach()
    endforeach()
endforeach()

if(problems)
    message(FATAL_ERROR "engine layering broken (HACKING.md, \"The engine's layout\"):${problems}")
endif()
