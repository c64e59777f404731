# SPDX-License-Identifier: MIT
# `cpack -G DEB` (packaging/dev.sh package): two Debian packages, one per install component,
# whose library Depends come from dpkg-shlibdeps on the installed binaries:
#   ctxscope-cli  the engine in `ctxscope-cli` and its man page: no Qt, what a server that
#                 is measured over ssh installs (the app runs `ctxscope-cli worker` there)
#   ctxscope      the desktop app, its man page and desktop integration; depends on
#                 ctxscope-cli of the same version, which it runs as its worker
# Each package ships the license where Debian looks for it (/usr/share/doc/PACKAGE/copyright).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ctxscope-cli RENAME copyright
    COMPONENT cli)
if(TARGET ctxscope)
    install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ctxscope RENAME copyright
        COMPONENT app)
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ctxscope)
set(CPACK_PACKAGE_VENDOR "The ctxscope developers")
set(CPACK_PACKAGE_CONTACT "The ctxscope developers <ctxscope@users.noreply.github.com>")
# Each description's first line is its package's summary (no CPACK_PACKAGE_DESCRIPTION_SUMMARY,
# which CPack would put before both).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
if(TARGET ctxscope)
    list(APPEND CPACK_COMPONENTS_ALL app)
endif()
set(CPACK_COMPONENT_APP_DEPENDS cli) # with the next line: Depends: ctxscope-cli (= VERSION)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_CLI_PACKAGE_NAME ctxscope-cli)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CLI_DESCRIPTION "measure context switch costs, without a display
 ctxscope runs small, carefully counted experiments on the CPUs you choose: a
 system call, futex and pipe ping-pong between threads or processes, a ring of
 tasks and coroutine switches. ctxscope-cli runs them from a terminal and writes
 JSON and CSV, and serves the ctxscope desktop app as its worker, locally or on a
 server the app reaches over ssh. It needs no Qt and no display: install this
 package on machines you measure from another one.")
set(CPACK_DEBIAN_APP_PACKAGE_NAME ctxscope)
set(CPACK_DEBIAN_APP_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_APP_DESCRIPTION "measure what a context switch costs on this machine
 ctxscope runs small, carefully counted experiments on the CPUs you choose: a
 system call, futex and pipe ping-pong between threads or processes, a ring of
 tasks and coroutine switches. The desktop app draws the CPU topology, lets you
 pick cores by clicking and plots latency distributions, for this machine or a
 server reached over ssh (which needs only the ctxscope-cli package).")

set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
