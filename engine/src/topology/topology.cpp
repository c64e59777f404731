// SPDX-License-Identifier: MIT
#include "ctxscope/topology.h"

#include "synthetic_check.h"
#include "topology_impl.h"
#include "xml_import.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ctxscope {

std::string_view toString(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Machine:
        return "Machine";
    case NodeKind::Package:
        return "Package";
    case NodeKind::Die:
        return "Die";
    case NodeKind::Group:
        return "Group";
    case NodeKind::Cache:
        return "Cache";
    case NodeKind::Core:
        return "Core";
    case NodeKind::Pu:
        return "PU";
    }
    return "?";
}

Expected<HwlocHandle> initHandle()
{
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0)
        return makeError(std::string("hwloc could not start: ") + std::strerror(errno));
    HwlocHandle handle(raw);
    if (hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0)
        return makeError(std::string("hwloc refused its load flags: ") + std::strerror(errno));
    return handle;
}

Topology::Topology(std::shared_ptr<const Impl> impl)
    : m_impl(std::move(impl))
{
}
Topology::Topology(const Topology&) = default;
Topology& Topology::operator=(const Topology&) = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Expected<Topology> Topology::loadLive()
{
    // hwloc_topology_load() obeys HWLOC_SYNTHETIC and HWLOC_XMLFILE (in that order, after
    // HWLOC_FSROOT) and would parse them in this process, unchecked. Honour them as hwloc
    // tools do, but through the checked loaders; the result is not this system either way.
    if (!std::getenv("HWLOC_FSROOT")) {
        if (const char* synthetic = std::getenv("HWLOC_SYNTHETIC"); synthetic && *synthetic) {
            auto topo = loadSyntheticAs(synthetic, std::string("synthetic '") + synthetic + "' from HWLOC_SYNTHETIC");
            if (!topo)
                return makeError("HWLOC_SYNTHETIC is set: " + topo.error().message);
            return topo;
        }
        if (const char* path = std::getenv("HWLOC_XMLFILE"); path && *path) {
            auto xml = readXmlFile(path);
            auto topo = xml ? loadXml(*xml, std::string("XML file ") + path + " from HWLOC_XMLFILE") : xml.error();
            if (!topo)
                return makeError(std::string("HWLOC_XMLFILE=") + path + ": " + topo.error().message);
            return topo;
        }
    }
    auto handle = initHandle();
    if (!handle)
        return handle.error();
    if (hwloc_topology_load(handle->get()) != 0)
        return makeError(std::string("hwloc could not read this machine's topology: ") + std::strerror(errno));
    auto impl = buildModel(std::move(*handle), TopologySource::Live, "live machine");
    if (!impl)
        return impl.error();
    return Topology(std::move(*impl));
}

Expected<Topology> Topology::loadSynthetic(std::string_view description)
{
    return loadSyntheticAs(description, "synthetic '" + std::string(description) + "'");
}

Expected<Topology> Topology::loadSyntheticAs(std::string_view description, std::string origin)
{
    if (auto ok = checkSyntheticDescription(description); !ok)
        return ok.error();
    auto handle = initHandle();
    if (!handle)
        return handle.error();
    const std::string desc(description);
    if (hwloc_topology_set_synthetic(handle->get(), desc.c_str()) != 0)
        return makeError("hwloc rejected the synthetic description '" + desc
            + "' (levels are type:count, e.g. 'pack:2 l3:2 core:4 pu:2'; the last level must be pu)");
    if (hwloc_topology_load(handle->get()) != 0)
        return makeError("hwloc could not build the synthetic topology '" + desc + "'");
    auto impl = buildModel(std::move(*handle), TopologySource::Synthetic, std::move(origin));
    if (!impl)
        return makeError("synthetic '" + desc + "': " + impl.error().message);
    return Topology(std::move(*impl));
}

Expected<Topology> Topology::loadXmlFile(const std::string& path)
{
    auto xml = readXmlFile(path);
    if (!xml)
        return xml.error();
    // The file's name, not its path: the app's title and switcher say "XML file server.xml".
    auto topo = loadXml(*xml, "XML file " + std::filesystem::path(path).filename().string());
    if (!topo)
        return makeError(path + ": " + topo.error().message);
    return topo;
}

Expected<Topology> Topology::loadXmlBuffer(std::string_view xml, std::string origin)
{
    return loadXml(xml, std::move(origin));
}

Expected<Topology> Topology::loadXml(std::string_view text, std::string origin)
{
    if (auto ok = precheckXml(text); !ok)
        return ok.error();
    const std::string xml(text); // NUL-terminated, as hwloc wants it
    // Parse once in a throw-away child first: libhwloc 2.9 can crash on malformed XML.
    if (auto ok = validateXmlInChild(xml); !ok)
        return ok.error();
    auto handle = initHandle();
    if (!handle)
        return handle.error();
    if (setXmlBuffer(handle->get(), xml) != 0)
        return makeError("hwloc could not read the XML topology");
    if (hwloc_topology_load(handle->get()) != 0)
        return makeError("hwloc could not load the XML topology");
    auto impl = buildModel(std::move(*handle), TopologySource::Xml, std::move(origin));
    if (!impl)
        return impl.error();
    return Topology(std::move(*impl));
}

TopologySource Topology::source() const { return m_impl->source; }
bool Topology::isThisSystem() const { return m_impl->thisSystem; }
const std::string& Topology::origin() const { return m_impl->origin; }
const TopoNode& Topology::root() const { return m_impl->root; }
const std::vector<PuInfo>& Topology::pus() const { return m_impl->pus; }
const std::vector<CacheInfo>& Topology::caches() const { return m_impl->caches; }
const std::vector<NumaNodeInfo>& Topology::numaNodes() const { return m_impl->numaNodes; }

const PuInfo* Topology::findPu(int osIndex) const
{
    auto it = std::lower_bound(
        m_impl->pus.begin(), m_impl->pus.end(), osIndex, [](const PuInfo& p, int os) { return p.osIndex < os; });
    return it != m_impl->pus.end() && it->osIndex == osIndex ? &*it : nullptr;
}

const std::vector<CpuKind>& Topology::cpuKinds() const { return m_impl->kinds; }

bool Topology::hybrid() const { return m_impl->kinds.size() > 1; }

const CpuKind* Topology::kindOfPu(int osIndex) const
{
    const PuInfo* pu = hybrid() ? findPu(osIndex) : nullptr;
    return pu && pu->kind >= 0 ? &m_impl->kinds[static_cast<std::size_t>(pu->kind)] : nullptr;
}

std::vector<int> Topology::allowedPus() const
{
    std::vector<int> out;
    for (const auto& p : m_impl->pus)
        if (p.allowed && p.inAffinity)
            out.push_back(p.osIndex);
    return out;
}

std::vector<int> Topology::affinityPus() const
{
    if (m_impl->thisSystem)
        return m_impl->affinity;
    std::vector<int> out;
    for (const auto& p : m_impl->pus)
        out.push_back(p.osIndex);
    return out;
}

int Topology::packageCount() const { return hwloc_get_nbobjs_by_type(m_impl->handle.get(), HWLOC_OBJ_PACKAGE); }
int Topology::coreCount() const { return hwloc_get_nbobjs_by_type(m_impl->handle.get(), HWLOC_OBJ_CORE); }

std::uint64_t Topology::cacheSize(int level) const
{
    for (const auto& c : m_impl->caches)
        if (c.level == level)
            return c.size;
    return 0;
}

int Topology::lastCacheLevel() const
{
    int level = 0;
    for (const auto& c : m_impl->caches)
        level = std::max(level, c.level);
    return level;
}

Expected<std::string> Topology::exportXml(bool anonymize) const
{
    char* buffer = nullptr;
    int length = 0;
    if (hwloc_topology_export_xmlbuffer(m_impl->handle.get(), &buffer, &length, 0) != 0 || !buffer)
        return makeError(std::string("hwloc could not export the topology as XML: ") + std::strerror(errno));
    std::string xml(buffer, length > 0 ? static_cast<std::size_t>(length - 1) : 0);
    hwloc_free_xmlbuffer(m_impl->handle.get(), buffer);
    return anonymize ? anonymizeXml(xml) : xml;
}

} // namespace ctxscope
