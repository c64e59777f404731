// SPDX-License-Identifier: MIT
// bpf_hook_cost.sh's loader: loads the named programs of hooks.bpf.o for one process, attaches
// them, empties the ring buffer every 50 ms until SIGTERM or SIGINT, then prints what it saw as
// one JSON object. Nothing is pinned: the programs go with this process.
// Usage: load OBJECT TGID RECORD(0|1) PROGRAM[,PROGRAM...]
// Exit status: 0 attached and detached, 3 the kernel refused a program (the reason on stdout).
#include <bpf/libbpf.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace {

std::atomic<bool> g_stop { false };
std::string g_lastMessage; // libbpf's first warning

void onSignal(int) { g_stop = true; }

// libbpf's first warning, for the refusal's reason (those after it say what failed with it).
int keepMessage(libbpf_print_level level, const char* format, va_list args)
{
    if (level == LIBBPF_DEBUG || !g_lastMessage.empty())
        return 0;
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    g_lastMessage = text;
    while (!g_lastMessage.empty() && g_lastMessage.back() == '\n')
        g_lastMessage.pop_back();
    return 0;
}

int countRecord(void*, void*, std::size_t) { return 0; }

std::string jsonEscaped(const std::string& s)
{
    std::string out;
    for (char c : s)
        if (c == '"' || c == '\\')
            out += std::string("\\") + c;
        else if (static_cast<unsigned char>(c) >= 0x20)
            out += c;
    return out;
}

int refuse(const char* what)
{
    std::printf("{\"refused\":\"%s: %s\"}\n", what, jsonEscaped(g_lastMessage).c_str());
    return 3;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: load OBJECT TGID RECORD PROGRAM[,PROGRAM...]\n");
        return 2;
    }
    libbpf_set_print(keepMessage);
    std::set<std::string> wanted;
    std::stringstream list(argv[4]);
    for (std::string name; std::getline(list, name, ',');)
        wanted.insert("hook_" + name);
    bpf_object* object = bpf_object__open_file(argv[1], nullptr);
    if (object == nullptr)
        return refuse("open");
    struct Rodata {
        unsigned tgid;
        unsigned record;
    } rodata { static_cast<unsigned>(std::atoi(argv[2])), static_cast<unsigned>(std::atoi(argv[3])) };
    bpf_map* map = nullptr;
    bpf_object__for_each_map(map, object) if (std::strstr(bpf_map__name(map), ".rodata"))
        bpf_map__set_initial_value(map, &rodata, sizeof rodata);
    bpf_program* program = nullptr;
    bpf_object__for_each_program(program, object)
        bpf_program__set_autoload(program, wanted.contains(bpf_program__name(program)));
    if (bpf_object__load(object) != 0)
        return refuse("load");
    bpf_object__for_each_program(
        program, object) if (wanted.contains(bpf_program__name(program))) if (bpf_program__attach(program)
        == nullptr) return refuse("attach");
    ring_buffer* ring
        = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(object, "records")), countRecord, nullptr, nullptr);
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    std::fprintf(stderr, "attached\n");
    while (!g_stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ring_buffer__consume(ring);
    }
    ring_buffer__consume(ring);
    unsigned long long counts[2] = {};
    bpf_map* bss = nullptr;
    bpf_object__for_each_map(bss, object) if (std::strstr(bpf_map__name(bss), ".bss"))
    {
        unsigned key = 0;
        bpf_map__lookup_elem(bss, &key, sizeof key, counts, sizeof counts, 0);
    }
    std::printf("{\"recorded\":%llu,\"refused\":%llu}\n", counts[0], counts[1]);
    ring_buffer__free(ring);
    bpf_object__close(object);
    return 0;
}
