// SPDX-License-Identifier: MIT
// What this test process holds right now, read from /proc: threads, descriptors, children.
#pragma once

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ctxscope::test {

inline int countEntries(const char* dir)
{
    int n = 0;
    if (DIR* d = ::opendir(dir)) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.')
                ++n;
        ::closedir(d);
    }
    return n;
}

inline int threadCount() { return countEntries("/proc/self/task"); }

// The thread count once it has settled at `expected`, or what it is after two seconds. A
// joined thread can stay listed under /proc/self/task for a moment: the kernel wakes the
// joiner (clearing the thread id) before it has reaped the task. A leaked thread stays.
inline int settledThreadCount(int expected)
{
    for (int i = 0; i < 2000 && threadCount() != expected; ++i)
        ::usleep(1000);
    return threadCount();
}
inline int fdCount() { return countEntries("/proc/self/fd"); }

// Pids of the children of `parent`, zombies included, ascending.
inline std::vector<int> childPidsOf(int parent)
{
    std::vector<int> out;
    DIR* d = ::opendir("/proc");
    if (!d)
        return out;
    while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
        std::string line;
        if (!std::getline(in, line))
            continue;
        // pid (comm) state ppid ...; comm may hold spaces, so parse after the last ')'.
        std::istringstream rest(line.substr(line.rfind(')') + 1));
        char state = 0;
        int ppid = 0;
        if (rest >> state >> ppid && ppid == parent)
            out.push_back(std::stoi(e->d_name));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

// Pids of this process's children, zombies included, ascending.
inline std::vector<int> childPids() { return childPidsOf(static_cast<int>(::getpid())); }

// Whether a process with this pid exists (a zombie counts: nobody has reaped it yet).
inline bool processExists(int pid) { return ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0; }

} // namespace ctxscope::test
