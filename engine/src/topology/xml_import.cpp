// SPDX-License-Identifier: MIT
#include "xml_import.h"

#include "topology_impl.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ctxscope {

namespace {

constexpr int kChildCpuSeconds = 2;
constexpr auto kChildWallLimit = std::chrono::seconds(5);

// Exit codes of the validating child.
enum ChildExit : int { kParsed = 0, kInitFailed = 10, kSetFailed = 11, kLoadFailed = 12, kNoPus = 13 };

[[noreturn]] void validateAndExit(std::string_view xml)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // Sanitizers reserve terabytes of address space; only limit it in normal builds.
    rlimit as { 1UL << 30, 1UL << 30 };
    setrlimit(RLIMIT_AS, &as);
#endif
    rlimit cpu { kChildCpuSeconds, kChildCpuSeconds + 1 };
    setrlimit(RLIMIT_CPU, &cpu);
    rlimit core { 0, 0 };
    setrlimit(RLIMIT_CORE, &core);
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0)
        _exit(kInitFailed);
    if (hwloc_topology_set_xmlbuffer(t, xml.data(), static_cast<int>(xml.size())) != 0)
        _exit(kSetFailed);
    if (hwloc_topology_load(t) != 0)
        _exit(kLoadFailed);
    _exit(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) > 0 ? kParsed : kNoPus);
}

} // namespace

Expected<std::string> readXmlFile(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return makeError(path + ": not a regular file");
    if (st.st_size == 0)
        return makeError(path + ": the file is empty");
    if (static_cast<std::size_t>(st.st_size) > kMaxXmlBytes)
        return makeError(
            path + ": " + std::to_string(st.st_size >> 20) + " MiB is too large for a topology (limit 64 MiB)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(path + ": cannot be opened for reading");
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    in.read(data.data(), st.st_size);
    if (in.gcount() != st.st_size)
        return makeError(path + ": could not read the whole file");
    return data;
}

Status validateXmlInChild(std::string_view xml)
{
    if (xml.empty())
        return makeError("the XML topology is empty");
    if (xml.size() > kMaxXmlBytes)
        return makeError("the XML topology is larger than 64 MiB");
    if (xml.find("<topology") == std::string_view::npos)
        return makeError("this is not an hwloc topology (no <topology> element)");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
        return makeError(std::string("could not start the XML checker: ") + std::strerror(errno));
    if (pid == 0)
        validateAndExit(xml);

    const auto deadline = std::chrono::steady_clock::now() + kChildWallLimit;
    int status = 0;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return makeError(std::string("lost the XML checker: ") + std::strerror(errno));
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return makeError("hwloc took longer than 5 s to read the XML topology; refused");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (WIFSIGNALED(status))
        return makeError(std::string("hwloc crashed reading the XML topology (") + strsignal(WTERMSIG(status))
            + "); the file is malformed");
    switch (WEXITSTATUS(status)) {
    case kParsed:
        return {};
    case kNoPus:
        return makeError("the XML topology has no processing units");
    case kSetFailed:
    case kLoadFailed:
        return makeError("hwloc could not parse the XML topology (malformed or not an hwloc export)");
    default:
        return makeError("the XML checker failed (exit " + std::to_string(WEXITSTATUS(status)) + ")");
    }
}

std::string anonymizeXml(std::string xml)
{
    static constexpr std::array kPrivate { "HostName", "Serial", "UUID", "Asset", "DMIProductName", "DMIBoardName" };
    std::size_t pos = 0;
    while ((pos = xml.find("<info name=\"", pos)) != std::string::npos) {
        const std::size_t nameStart = pos + 12;
        const std::size_t nameEnd = xml.find('"', nameStart);
        const std::size_t end = xml.find("/>", pos);
        if (nameEnd == std::string::npos || end == std::string::npos)
            break;
        const std::string name = xml.substr(nameStart, nameEnd - nameStart);
        bool drop = false;
        for (const char* key : kPrivate)
            drop = drop || name.find(key) != std::string::npos;
        if (drop) {
            std::size_t lineStart = xml.rfind('\n', pos);
            lineStart = lineStart == std::string::npos ? pos : lineStart;
            xml.erase(lineStart, end + 2 - lineStart);
            pos = lineStart;
        } else {
            pos = end;
        }
    }
    return xml;
}

} // namespace ctxscope
