// SPDX-License-Identifier: MIT
// Hypervisor names as people write them, from the signature a hypervisor puts in CPUID leaf
// 0x40000000 (twelve bytes, often one name repeated) or the word in /sys/hypervisor/type.
#include "ctxscope/sysinfo.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace ctxscope {

namespace {

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view trimmed(std::string_view s)
{
    const auto notSpace = [](char c) { return c != ' ' && c != '\0' && c != '\t' && c != '\n'; };
    while (!s.empty() && !notSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && !notSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// Lower-case signature (trimmed) -> name. Each hypervisor's documented CPUID signature, and
// the names it reports in /sys/hypervisor/type or that earlier files already hold.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kNames { {
    { "kvmkvmkvm", "KVM" },
    { "linux kvm hv", "KVM" }, // KVM offering Hyper-V enlightenments
    { "kvm", "KVM" },
    { "microsoft hv", "Hyper-V" },
    { "hyper-v", "Hyper-V" },
    { "vmwarevmware", "VMware" },
    { "vmware", "VMware" },
    { "xenvmmxenvmm", "Xen" },
    { "xen", "Xen" },
    { "bhyve bhyve", "bhyve" },
    { "bhyve", "bhyve" },
    { "tcgtcgtcgtcg", "QEMU TCG" },
    { "acrnacrnacrn", "ACRN" },
    { "vboxvboxvbox", "VirtualBox" },
    { "prl hyperv", "Parallels" },
    { "lrpepyh  vr", "Parallels" }, // older Parallels, the bytes in the other order
    { "openbsdvmm58", "OpenBSD vmm" },
} };

} // namespace

std::string hypervisorName(std::string_view signature)
{
    const std::string_view t = trimmed(signature);
    const std::string key = lowered(t);
    for (const auto& [sig, name] : kNames)
        if (key == sig)
            return std::string(name);
    return std::string(t);
}

} // namespace ctxscope
