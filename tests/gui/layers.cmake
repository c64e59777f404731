# SPDX-License-Identifier: MIT
# The app's folders depend one way (HACKING.md, "What may depend on what"):
#   model < look < map, plots, remote < run < shell
# model/ includes no other GUI folder; every other folder may include model/ and the folders
# below it, never one beside it or above it. All the folders share one include path, so a
# wrong-way include compiles: this check is what catches it. Every header basename under
# app/gui/<folder>/ is mapped to its folder; a quoted include of one of them is checked.
# Fails naming the file, the line and the rule broken.
# Run as: cmake -DGUI_SRC=<app/gui> -P layers.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../style/include_lines.cmake)
if(NOT GUI_SRC)
    message(FATAL_ERROR "give -DGUI_SRC=<path to app/gui>")
endif()
set(order "model < look < map, plots, remote < run < shell")
# folder: its rank; a folder may include from folders of a lower rank only (and model/'s
# headers from anywhere but model/ may be included by every folder, model/ being rank 0).
set(rank_model 0)
set(rank_look 1)
set(rank_map 2)
set(rank_plots 2)
set(rank_remote 2)
set(rank_run 3)
set(rank_shell 4)
set(folders model look map plots remote run shell)

# Which folder each header lives in; a basename in two folders is itself an error (which one
# an include means would depend on the include path's order).
set(violations "")
foreach(folder ${folders})
    file(GLOB headers ${GUI_SRC}/${folder}/*.h)
    if(NOT headers)
        message(FATAL_ERROR "no headers under ${GUI_SRC}/${folder}: the check would pass vacuously")
    endif()
    foreach(h ${headers})
        get_filename_component(name ${h} NAME)
        if(DEFINED home_${name})
            string(APPEND violations "\n  ${folder}/${name}: also ${home_${name}}/${name} (one basename, one folder)")
        endif()
        set(home_${name} ${folder})
    endforeach()
endforeach()
# The folders below each one, for the message.
foreach(folder ${folders})
    set(below_${folder} "")
    foreach(other ${folders})
        if(rank_${other} LESS rank_${folder})
            list(APPEND below_${folder} ${other}/)
        endif()
    endforeach()
    if(below_${folder})
        string(REPLACE ";" ", " below_${folder} "${below_${folder}}")
        set(may_${folder} "${folder}/ may include only ${below_${folder}} and itself")
    else()
        set(may_${folder} "${folder}/ includes no other GUI folder")
    endif()
endforeach()

foreach(folder ${folders})
    file(GLOB files ${GUI_SRC}/${folder}/*.h ${GUI_SRC}/${folder}/*.cpp)
    foreach(f ${files})
        file(RELATIVE_PATH rel ${GUI_SRC} ${f})
        include_lines(${f} entries)
        foreach(entry ${entries})
            string(REGEX MATCH "^([0-9]+):(.*)$" parts "${entry}")
            set(lineno ${CMAKE_MATCH_1})
            set(line "${CMAKE_MATCH_2}")
            string(REGEX REPLACE "^[^\"]*\"([^\"]*)\".*$" "\\1" included "${line}")
            if(included MATCHES "^ctxscope/")
                continue() # the engine's public headers
            endif()
            get_filename_component(name ${included} NAME)
            if(NOT DEFINED home_${name})
                continue() # not a GUI header
            endif()
            set(to ${home_${name}})
            if(to STREQUAL folder)
                continue()
            endif()
            if(NOT rank_${to} LESS rank_${folder})
                string(APPEND violations
                    "\n  app/gui/${rel}:${lineno}: ${line} is ${to}/${name}: ${may_${folder}}")
            endif()
        endforeach()
    endforeach()
endforeach()
if(violations)
    message(FATAL_ERROR "GUI layering broken (${order}):${violations}")
endif()
