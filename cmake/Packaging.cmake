# SPDX-License-Identifier: MIT
# `cpack -G DEB` (packaging/dev.sh package): a Debian package whose Depends come from
# dpkg-shlibdeps on the installed binaries.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ctxscope)
set(CPACK_PACKAGE_VENDOR "The ctxscope developers")
set(CPACK_PACKAGE_CONTACT "The ctxscope developers <ctxscope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure what a context switch costs on this machine")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "measure what a context switch costs on this machine
 ctxscope runs small, carefully counted experiments on the CPUs you choose: a
 system call, futex and pipe ping-pong between threads or processes, a ring of
 tasks and coroutine switches. The desktop app draws the CPU topology, lets you
 pick cores by clicking and plots latency distributions; ctxscope-cli runs the
 same engine without a display and writes JSON and CSV.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
