// SPDX-License-Identifier: MIT
// Linked into the portable bundle only (cmake/Bundle.cmake), where ctxscope-cli is static.
//
// libudev: Debian's libhwloc.a calls it only to name the block devices of its I/O discovery
// (OS devices), which ctxscope never enables; Debian ships no libudev.a. udev_new() answering
// no context is what hwloc already handles for a system without udev.
//
// dlopen: hwloc looks for plugins in its plugin folder. A static program cannot load a
// shared library built for the host's C library, so the bundle refuses every dlopen
// (-Wl,--wrap=dlopen) and hwloc goes on with its built-in components, which are all it uses
// for CPUs and caches.

#include <cstddef>

struct udev;
struct udev_device;

extern "C" {

udev* udev_new() { return nullptr; }

udev* udev_unref(udev* /*context*/) { return nullptr; }

udev_device* udev_device_new_from_subsystem_sysname(
    udev* /*context*/, const char* /*subsystem*/, const char* /*sysname*/)
{
    return nullptr;
}

const char* udev_device_get_property_value(udev_device* /*device*/, const char* /*key*/) { return nullptr; }

udev_device* udev_device_unref(udev_device* /*device*/) { return nullptr; }

void* __wrap_dlopen(const char* /*file*/, int /*mode*/) { return nullptr; }

} // extern "C"
