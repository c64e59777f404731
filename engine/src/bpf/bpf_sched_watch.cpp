// SPDX-License-Identifier: MIT
// The BPF backend of a watch (SchedWatch::openBpf): the programs of sched_watch.bpf.c count
// into maps, and each drain takes the differences from the last. The threads' values, with each
// thread's first peers, are read from the threads array, mapped into this process's memory;
// only the peers and moves beyond those are read from maps (one batched read each). No event
// reaches user space; no /proc file is read per thread.
#include "ctxscope/placement.h"
#include "ctxscope/sched_watch.h"
#include "ctxscope/topology.h"

#include "trace/sched_figures.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/mman.h>

#ifdef CTXSCOPE_HAVE_BPF
#include "bpf/map_sizes.h"
#include "bpf/sched_maps.h"
#include "os/task_stat.h"

#include "bpf/loader_common.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <sched_watch.skel.h>
#endif

namespace ctxscope {

std::string_view toString(SchedBackend backend)
{
    switch (backend) {
    case SchedBackend::Bpf:
        return "bpf";
    case SchedBackend::Ftrace:
        return "ftrace";
    case SchedBackend::Proc:
        return "proc";
    }
    return "proc";
}

std::optional<SchedBackend> schedBackendFrom(std::string_view name)
{
    for (const auto b : { SchedBackend::Bpf, SchedBackend::Ftrace, SchedBackend::Proc })
        if (name == toString(b))
            return b;
    return std::nullopt;
}

#ifdef CTXSCOPE_HAVE_BPF
namespace {

// Whether this process holds capability `bit` (/proc/self/status's CapEff).
bool hasCapability(int bit)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("CapEff:", 0) == 0) {
            const unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
            return ((caps >> bit) & 1ULL) != 0;
        }
    return false;
}

} // namespace
#endif

std::string bpfUnavailable()
{
#ifndef CTXSCOPE_HAVE_BPF
    return "this ctxscope-cli was built without BPF (no clang, bpftool or libbpf at build time)";
#else
    if (::access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        return "this kernel has no BTF (/sys/kernel/btf/vmlinux), which the BPF backend needs";
    constexpr int kCapSysAdmin = 21;
    constexpr int kCapPerfmon = 38;
    constexpr int kCapBpf = 39;
    if (!hasCapability(kCapSysAdmin) && !(hasCapability(kCapBpf) && hasCapability(kCapPerfmon)))
        return "the BPF backend needs CAP_BPF and CAP_PERFMON (or root), which this process does not have";
    return {};
#endif
}

#ifndef CTXSCOPE_HAVE_BPF

Expected<std::unique_ptr<SchedWatch>> SchedWatch::openBpf(long) { return makeError(bpfUnavailable()); }

#else

namespace {

// A read buffer at a map's size, left unwritten until a read fills it: a watch's buffers are
// about 21 MB at the maps' largest, and zeroing them page by page was part of a watch's start.
template <typename T> class ReadBuffer {
public:
    explicit ReadBuffer(std::size_t size)
        : m_data(std::make_unique_for_overwrite<T[]>(size))
        , m_size(size)
    {
    }
    T* data() { return m_data.get(); }
    std::size_t size() const { return m_size; }
    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }

private:
    std::unique_ptr<T[]> m_data;
    std::size_t m_size;
};

// A whole hash map in as few system calls as its size allows (bpf_map_lookup_batch), into
// buffers made once, a little larger than the map (a batch takes whole buckets); with `take`, each entry read is also
// deleted (bpf_map_lookup_and_delete_batch), so the map holds one interval's counts. How many were read.
template <typename K, typename V>
Expected<std::size_t> readMap(int fd, ReadBuffer<K>& keys, ReadBuffer<V>& values, bool take)
{
    const std::size_t most = keys.size();
    std::size_t got = 0;
    std::uint64_t batch = 0;
    bool first = true;
    LIBBPF_OPTS(bpf_map_batch_opts, opts);
    while (got < most) {
        auto count = static_cast<__u32>(most - got);
        void* in = first ? nullptr : &batch;
        const int err = take
            ? bpf_map_lookup_and_delete_batch(fd, in, &batch, keys.data() + got, values.data() + got, &count, &opts)
            : bpf_map_lookup_batch(fd, in, &batch, keys.data() + got, values.data() + got, &count, &opts);
        got += count;
        first = false;
        if (err != 0) {
            // ENOENT: the end. ENOSPC: the next bucket holds more than the room left (a map
            // almost full): what was read stands, a deleting read leaves the rest for the next.
            if (errno == ENOENT || (errno == ENOSPC && got > 0))
                break;
            return makeError(fmt::format("could not read a BPF map: {}", std::strerror(errno)));
        }
    }
    return got;
}

// The letter ps gives a task that left a CPU in `state` (prev_state | exit_state).
char stateLetter(std::uint32_t state)
{
    constexpr std::uint32_t kTaskIdle = 0x402; // TASK_UNINTERRUPTIBLE | TASK_NOLOAD
    if ((state & kTaskIdle) == kTaskIdle)
        return 'I';
    constexpr std::string_view kLetters = "SDTtXZP";
    for (std::size_t bit = 0; bit < kLetters.size(); ++bit)
        if ((state & (1U << bit)) != 0)
            return kLetters[bit];
    if ((state & 0x80U) != 0) // TASK_DEAD
        return 'X';
    return state == 0 ? 'R' : 'D';
}

// Its run time up to `atNs`, a run in progress included.
std::uint64_t runSoFar(const ctxscope_thread& t, std::uint64_t atNs)
{
    const bool running = (t.flags & CTXSCOPE_RUNNING) != 0 && atNs > t.running_since;
    return t.run_ns + (running ? atNs - t.running_since : 0);
}

// One interval's wakers or preemptors of a thread beyond those its slot holds, read from a
// map emptied at every read.
struct PeerCount {
    std::uint32_t tid = 0;
    std::uint32_t peer = 0;
    std::uint64_t count = 0;
    std::size_t at = 0; // its entry in the read's buffer (for the name)
};

// An interval's peers of every thread, sorted by thread, then most first (then by peer): one
// buffer kept from interval to interval, where a map of lists made a list per thread each time.
using PeerList = std::vector<PeerCount>;

void sortPeers(PeerList& peers)
{
    std::sort(peers.begin(), peers.end(), [](const PeerCount& a, const PeerCount& b) {
        return a.tid != b.tid ? a.tid < b.tid : a.count != b.count ? a.count > b.count : a.peer < b.peer;
    });
}

// The threads array, mapped into this process (read, and written to give a slot back).
class MappedSlots {
public:
    MappedSlots(ctxscope_thread* slots, std::size_t count)
        : m_slots(slots)
        , m_count(count)
    {
    }
    ~MappedSlots()
    {
        if (m_slots != nullptr)
            ::munmap(m_slots, bytes(m_count));
    }
    MappedSlots(const MappedSlots&) = delete;
    MappedSlots& operator=(const MappedSlots&) = delete;

    static std::size_t bytes(std::size_t count)
    {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        return (sizeof(ctxscope_thread) * count + page - 1) / page * page;
    }
    ctxscope_thread* data() const { return m_slots; }
    std::size_t size() const { return m_count; }

private:
    ctxscope_thread* m_slots;
    std::size_t m_count;
};
// An array's values are 8-byte aligned in the kernel: the mapped layout is this struct's.
static_assert(sizeof(ctxscope_thread) % 8 == 0);

// A value per slot, zero until written: taken from the system's zeroed pages (calloc), so that
// the slots a watch never uses cost nothing. A thread's entry is the one whose `tid` is its own.
class SlotValues {
public:
    explicit SlotValues(std::size_t count)
        : m_values(static_cast<ctxscope_thread*>(std::calloc(count, sizeof(ctxscope_thread))))
    {
        if (m_values == nullptr)
            throw std::bad_alloc();
    }
    ctxscope_thread& operator[](std::size_t slot) { return m_values.get()[slot]; }
    const ctxscope_thread& operator[](std::size_t slot) const { return m_values.get()[slot]; }

private:
    struct Free {
        void operator()(ctxscope_thread* p) const { std::free(p); }
    };
    std::unique_ptr<ctxscope_thread, Free> m_values;
};

// A peer of one thread in one interval, from its slot or from a map, with its name.
struct PeerDelta {
    std::uint32_t peer = 0;
    std::uint64_t count = 0;
    const char* comm = nullptr; // 16 bytes, not always terminated
};

class BpfSchedWatch final : public SchedWatch {
    static constexpr std::size_t kSlack = 256; // room for a last bucket of a full map

public:
    BpfSchedWatch(ctxscope_sched* skel, std::unique_ptr<MappedSlots> slots, std::optional<Topology> topology,
        const BpfMapSizes& sizes)
        : m_skel(skel)
        , m_slots(std::move(slots))
        , m_topology(std::move(topology))
        , m_peerKeys(sizes.peers + kSlack)
        , m_wakerValues(sizes.peers + kSlack)
        , m_preemptorValues(sizes.peers + kSlack)
        , m_moveKeys(sizes.moves + kSlack)
        , m_moveValues(sizes.moves + kSlack)
        , m_last(sizes.threads)
        , m_base(sizes.threads)
    {
    }
    ~BpfSchedWatch() override
    {
        m_slots.reset(); // unmapped before the map goes
        ctxscope_sched__destroy(m_skel);
    }
    BpfSchedWatch(const BpfSchedWatch&) = delete;
    BpfSchedWatch& operator=(const BpfSchedWatch&) = delete;

    SchedBackend backend() const override { return SchedBackend::Bpf; }

    // The programs filter on the process: a new thread is counted from its first event.
    Status follow(const std::vector<long>&) override { return {}; }

    Status countFrom(std::uint64_t monoNs) override
    {
        const std::size_t taken = slotsTaken();
        for (std::size_t slot = 0; slot < taken; ++slot)
            if (readSlot(slot)) {
                m_base[slot] = m_now;
                m_last[slot] = m_now;
                m_slotsSeen = std::max(m_slotsSeen, slot + 1);
            }
        // The peers and moves so far are before the window: read and dropped.
        if (Status s = readPeersAndMoves(); !s)
            return s;
        m_wakers.clear();
        m_preemptors.clear();
        m_moves.clear();
        m_fromNs = monoNs;
        m_drainedNs = monoNs;
        m_lostLast = m_skel->bss->lost;
        updateCounts();
        return {};
    }

    // Nothing to move: the maps hold counts, not events, and cannot overflow between drains.
    Expected<double> pump() override { return 0.0; }

    // The entries of `figures` are refilled where found: their histograms', peers' and moves'
    // vectors keep their memory from interval to interval. Each slot is copied once into
    // m_now, compared with its last reading and copied over it (no second array of copies).
    Status drain(std::uint64_t untilMonoNs, SchedFigures& figures) override
    {
        const std::size_t taken = slotsTaken();
        if (Status s = readPeersAndMoves(); !s)
            return s;
        m_drainedNs = std::min(untilMonoNs, bpf::monotonicNs());
        const std::uint64_t lostNow = m_skel->bss->lost;
        const std::uint64_t lost = lostNow - std::min(lostNow, m_lostLast);
        m_lostLast = lostNow;
        m_changed.clear();
        const std::size_t sorted = figures.size(); // the last drain's entries, in TID order
        std::size_t at = 0;
        for (std::size_t slot = 0; slot < taken; ++slot) {
            if (!readSlot(slot))
                continue;
            const ctxscope_thread& now = m_now;
            const std::uint32_t tid = now.tid;
            // Its last reading, in the same slot: none for a thread new to the watch.
            ctxscope_thread& before = m_last[slot];
            if (before.tid != tid)
                before = {};
            m_slotsSeen = std::max(m_slotsSeen, slot + 1);
            // Slots are mostly taken in the order threads start, which is mostly their TIDs': the
            // last drain's entries are walked with them, and searched only off that order. A
            // thread new to the figures is added at the end, and put in its place below.
            if (now.switch_ins != before.switch_ins || now.waits != before.waits || now.voluntary != before.voluntary
                || now.involuntary != before.involuntary) {
                const long key = static_cast<long>(tid);
                if (at >= sorted || figures[at].first != key)
                    at = static_cast<std::size_t>(
                        std::ranges::lower_bound(figures.begin(), figures.begin() + static_cast<std::ptrdiff_t>(sorted),
                            key, {}, &SchedFigures::value_type::first)
                        - figures.begin());
                ThreadSched* entry = nullptr;
                if (at < sorted && figures[at].first == key)
                    entry = &figures[at++].second;
                else
                    entry = &figures.emplace_back(key, ThreadSched {}).second;
                fill(*entry, tid, now, before, lost);
                m_changed.push_back(key);
            }
            before = now;
        }
        keepChanged(figures);
        m_wakers.clear();
        m_preemptors.clear();
        m_moves.clear();
        forgetEnded();
        updateCounts();
        return {};
    }

    const std::unordered_map<long, SchedCounts>& counts() const override { return m_counts; }

    const RawTrace& recording(bool& complete) const override
    {
        complete = false;
        return m_noRecording;
    }
    void keepEvents(std::size_t) override { }
    Trace takeEvents(std::uint64_t& leftOut) override
    {
        leftOut = 0;
        return {};
    }

private:
    // m_counts from the slots as the last drain (or countFrom) left them: each task's entry
    // overwritten where it is, those of tasks gone erased (a thread's end, rare).
    void updateCounts()
    {
        std::size_t live = 0;
        for (std::size_t slot = 0; slot < m_slotsSeen; ++slot) {
            const ctxscope_thread& now = m_last[slot];
            if (now.tid == 0)
                continue;
            const ctxscope_thread* b = m_base[slot].tid == now.tid ? &m_base[slot] : nullptr;
            SchedCounts c;
            c.voluntary = now.voluntary;
            c.involuntary = now.involuntary;
            c.waitNs = now.wait_ns;
            c.switchIns = now.switch_ins;
            c.migrations = now.migrations;
            const std::uint64_t ran = runSoFar(now, m_drainedNs);
            std::uint64_t ranBefore = 0;
            if (b != nullptr) {
                const ctxscope_thread& base = *b;
                c.voluntary -= std::min<std::uint64_t>(c.voluntary, base.voluntary);
                c.involuntary -= std::min<std::uint64_t>(c.involuntary, base.involuntary);
                c.waitNs -= std::min<std::uint64_t>(c.waitNs, base.wait_ns);
                c.switchIns -= std::min<std::uint64_t>(c.switchIns, base.switch_ins);
                c.migrations -= std::min<std::uint64_t>(c.migrations, base.migrations);
                ranBefore = runSoFar(base, m_fromNs);
            }
            c.runNs = ran - std::min(ran, ranBefore);
            c.cpu = now.last_cpu == 0 ? -1 : static_cast<int>(now.last_cpu) - 1;
            c.affinityKey = now.affinity_key;
            if ((now.flags & CTXSCOPE_RUNNING) != 0 || (now.ready_ns != 0 && (now.flags & CTXSCOPE_LEFT_WOKEN) == 0))
                c.state = 'R';
            else if ((now.flags & CTXSCOPE_EVER_RAN) != 0)
                c.state = stateLetter(now.state);
            m_counts[static_cast<long>(now.tid)] = c;
            ++live;
        }
        if (m_counts.size() == live)
            return; // every entry was just written: none is of a task gone
        m_liveTids.clear();
        for (std::size_t slot = 0; slot < m_slotsSeen; ++slot)
            if (m_last[slot].tid != 0)
                m_liveTids.push_back(static_cast<long>(m_last[slot].tid));
        std::sort(m_liveTids.begin(), m_liveTids.end());
        std::erase_if(m_counts,
            [&](const auto& e) { return !std::binary_search(m_liveTids.begin(), m_liveTids.end(), e.first); });
    }

    // The entries of threads without figures this interval go, and those added come into TID
    // order. A TID in two slots (a thread that ended and its TID taken again before its slot
    // was given back) was filled twice: the later slot's figures stand, and the TID is once.
    void keepChanged(SchedFigures& figures)
    {
        std::sort(m_changed.begin(), m_changed.end());
        m_changed.erase(std::unique(m_changed.begin(), m_changed.end()), m_changed.end());
        if (figures.size() > m_changed.size())
            std::erase_if(figures,
                [&](const auto& e) { return !std::binary_search(m_changed.begin(), m_changed.end(), e.first); });
        const auto byTid = [](const auto& a, const auto& b) { return a.first < b.first; };
        if (std::is_sorted(figures.begin(), figures.end(), byTid) && figures.size() == m_changed.size())
            return;
        std::stable_sort(figures.begin(), figures.end(), byTid); // a TID's later entry stays later
        std::size_t kept = 0;
        for (std::size_t i = 0; i < figures.size(); ++i) {
            if (i + 1 < figures.size() && figures[i + 1].first == figures[i].first)
                continue; // a later slot's figures stand
            if (kept != i)
                figures[kept] = std::move(figures[i]);
            ++kept;
        }
        figures.resize(kept);
    }

    // The slots a thread may hold: those taken so far (free ones among them read as free).
    std::size_t slotsTaken() const
    {
        const std::uint64_t pops = __atomic_load_n(&m_skel->bss->pops, __ATOMIC_RELAXED);
        return std::min<std::size_t>(pops, m_slots->size());
    }

    // Copies a slot's thread into m_now; false for a free slot (or one taken and not yet written).
    bool readSlot(std::size_t slot)
    {
        const ctxscope_thread& live = m_slots->data()[slot];
        if (__atomic_load_n(&live.tid, __ATOMIC_RELAXED) == 0)
            return false;
        std::memcpy(&m_now, &live, sizeof(ctxscope_thread));
        return true;
    }

    SchedMigration migration(std::uint16_t from, std::uint16_t to, std::uint64_t count) const
    {
        SchedMigration m;
        m.from = from;
        m.to = to;
        if (m_topology)
            if (auto r = relationOf(*m_topology, m.from, m.to))
                m.relation = std::string(toString(*r));
        m.count = count;
        return m;
    }

    // The interval's wakers, preemptors and moves, grouped by thread; the maps are left empty.
    Status readPeersAndMoves()
    {
        const auto peers = [&](bpf_map* map, PeerList& into, ReadBuffer<ctxscope_peer_key>& keys,
                               ReadBuffer<ctxscope_peer>& values) -> Status {
            auto n = readMap(bpf_map__fd(map), keys, values, true);
            if (!n)
                return n.error();
            into.clear();
            for (std::size_t i = 0; i < *n; ++i)
                into.push_back({ keys[i].tid, keys[i].peer, values[i].count, i });
            sortPeers(into);
            return {};
        };
        if (Status s = peers(m_skel->maps.wakers, m_wakers, m_peerKeys, m_wakerValues); !s)
            return s;
        if (Status s = peers(m_skel->maps.preemptors, m_preemptors, m_peerKeys, m_preemptorValues); !s)
            return s;
        auto n = readMap(bpf_map__fd(m_skel->maps.moves), m_moveKeys, m_moveValues, true);
        if (!n)
            return n.error();
        for (std::size_t i = 0; i < *n; ++i)
            m_moves[m_moveKeys[i].tid].push_back(migration(m_moveKeys[i].from, m_moveKeys[i].to, m_moveValues[i]));
        return {};
    }

    // A thread's interval figures into `s`, whatever it held (its vectors' memory is kept).
    void fill(ThreadSched& s, std::uint32_t tid, const ctxscope_thread& now, const ctxscope_thread& before,
        std::uint64_t lost)
    {
        s.unrecordedSwitchIns = now.unrecorded - before.unrecorded;
        s.switchIns = now.switch_ins - before.switch_ins - s.unrecordedSwitchIns;
        s.lostEvents = lost;
        s.waitsNs.clear();
        WakeLatency& w = s.wake;
        binned(now.hist, before.hist, now.wait_sum_ns - before.wait_sum_ns, w);
        if (w.count > 0) {
            // The running max, when it grew in this interval, is this interval's; else its
            // largest bin's top, no more than the running max.
            w.maxNs = now.wait_max_ns > before.wait_max_ns
                ? static_cast<double>(now.wait_max_ns)
                : std::min(std::ldexp(1.0, static_cast<int>(w.log2Hist.size())), static_cast<double>(now.wait_max_ns));
            // Placed within their bins, but never past the largest wait.
            const auto [p50, p99] = trace::log2Quantiles(w.log2Hist, 0.5, 0.99);
            w.p50Ns = std::min(p50, w.maxNs);
            w.p99Ns = std::min(p99, w.maxNs);
        }
        // The same waits from the enqueue, in runqlat's µs bins: none longer than from sched_waking.
        // (The bins go through m_queued and back into s.fromEnqueue: no allocation.)
        const std::uint64_t queuedSumNs = now.queued_sum_ns - before.queued_sum_ns;
        std::swap(m_queued.log2Hist, s.fromEnqueue.log2UsHist);
        binned(now.queued_hist, before.queued_hist, queuedSumNs, m_queued);
        s.fromEnqueue = trace::enqueueWaitOf(
            std::move(m_queued.log2Hist), m_queued.count, static_cast<double>(queuedSumNs), w.maxNs);
        top(now.wakers, before.wakers, m_wakers, tid, m_wakerValues, s.wakers);
        top(now.preemptors, before.preemptors, m_preemptors, tid, m_preemptorValues, s.preemptors);
        std::vector<SchedMigration>& moves = s.migrations;
        moves.clear();
        if (auto m = m_moves.find(tid); m != m_moves.end())
            moves.insert(
                moves.end(), std::make_move_iterator(m->second.begin()), std::make_move_iterator(m->second.end()));
        for (std::size_t i = 0; i < CTXSCOPE_INLINE_PEERS; ++i) {
            const ctxscope_inline_move& m = now.moves[i];
            const ctxscope_inline_move& was = before.moves[i];
            const std::uint64_t from = was.used != 0 && was.from == m.from && was.to == m.to ? was.count : 0;
            if (m.used != 0 && m.count > from)
                moves.push_back(migration(m.from, m.to, m.count - from));
        }
        if (!moves.empty())
            moves = trace::ordered(std::move(moves));
    }

    // An interval's bins (the running bins' differences), their count and the exact mean. The
    // count is the bins' sum, not the program's own count: a reading can land between a wait's
    // bin and its count (each updated in turn, unlocked), and the bins must hold every wait counted.
    static void binned(const __u64 (&now)[CTXSCOPE_LOG2_BINS], const __u64 (&before)[CTXSCOPE_LOG2_BINS],
        std::uint64_t sumNs, WakeLatency& w)
    {
        std::vector<std::uint64_t> bins = std::move(w.log2Hist); // its memory, kept
        w = {};
        w.log2Hist = std::move(bins);
        w.fromBins = true;
        std::size_t used = 0;
        for (std::size_t i = 0; i < CTXSCOPE_LOG2_BINS; ++i)
            if (now[i] != before[i])
                used = i + 1;
        w.log2Hist.resize(used);
        for (std::size_t i = 0; i < used; ++i) {
            w.log2Hist[i] = now[i] - before[i];
            w.count += w.log2Hist[i];
        }
        if (w.count > 0)
            w.meanNs = static_cast<double>(sumNs) / static_cast<double>(w.count);
    }

    // A thread's interval peers, most first (then by peer), at most trace::kTopPeers: those its
    // slot holds (their running counts' differences) and those beyond, from the map's read.
    void top(const ctxscope_inline_peer (&now)[CTXSCOPE_INLINE_PEERS],
        const ctxscope_inline_peer (&before)[CTXSCOPE_INLINE_PEERS], const PeerList& peers, std::uint32_t tid,
        const ReadBuffer<ctxscope_peer>& values, std::vector<SchedPeer>& out)
    {
        m_candidates.clear();
        for (std::size_t i = 0; i < CTXSCOPE_INLINE_PEERS; ++i) {
            const std::uint64_t from = before[i].used != 0 && before[i].peer == now[i].peer ? before[i].count : 0;
            if (now[i].used != 0 && now[i].count > from)
                m_candidates.push_back({ now[i].peer, now[i].count - from, now[i].comm });
        }
        const auto first = std::ranges::lower_bound(peers, tid, {}, &PeerCount::tid);
        for (auto p = first; p != peers.end() && p->tid == tid; ++p)
            m_candidates.push_back({ p->peer, p->count, values[p->at].comm });
        const std::size_t kept = std::min(m_candidates.size(), trace::kTopPeers);
        std::partial_sort(m_candidates.begin(), m_candidates.begin() + static_cast<std::ptrdiff_t>(kept),
            m_candidates.end(), [](const PeerDelta& a, const PeerDelta& b) {
                return a.count != b.count ? a.count > b.count : a.peer < b.peer;
            });
        out.resize(kept); // the peers' names are assigned into the strings already there
        for (std::size_t i = 0; i < kept; ++i) {
            const PeerDelta& p = m_candidates[i];
            out[i].tid = static_cast<long>(p.peer);
            if (p.peer == 0)
                out[i].name = "an interrupt";
            else
                out[i].name.assign(p.comm, strnlen(p.comm, 16));
            out[i].count = p.count;
        }
    }

    // A thread that ended was reported (counts() says X or Z) at the drain after its end: its
    // slot goes at the following one, so that the array does not fill with the dead. The slot
    // is zeroed and given back to the queue (taken again only once every other slot was taken
    // once); the task's own storage, which named it, goes with the task. The ended are found in
    // the last readings after the given-back slots were zeroed: a slot is given back once (read
    // from the drain's copies, a slot given back here was marked again, and given back twice).
    void forgetEnded()
    {
        for (const std::uint32_t slot : m_ended) {
            std::memset(&m_slots->data()[slot], 0, sizeof(ctxscope_thread));
            bpf_map_update_elem(bpf_map__fd(m_skel->maps.free_slots), nullptr, &slot, BPF_ANY);
            m_base[slot] = {};
            m_last[slot] = {};
        }
        m_ended.clear();
        for (std::size_t slot = 0; slot < m_slotsSeen; ++slot) {
            const ctxscope_thread& t = m_last[slot];
            if (t.tid != 0 && (t.flags & CTXSCOPE_RUNNING) == 0 && (t.flags & CTXSCOPE_EVER_RAN) != 0
                && (t.state & 0xb0U) != 0) // EXIT_DEAD, EXIT_ZOMBIE, TASK_DEAD
                m_ended.push_back(static_cast<std::uint32_t>(slot));
        }
    }

    ctxscope_sched* m_skel;
    std::unique_ptr<MappedSlots> m_slots;
    std::optional<Topology> m_topology;
    ctxscope_thread m_now {}; // the slot drain() or countFrom() reads
    // Read buffers, made once at each map's size.
    ReadBuffer<ctxscope_peer_key> m_peerKeys;
    ReadBuffer<ctxscope_peer> m_wakerValues, m_preemptorValues; // names are read from here
    ReadBuffer<ctxscope_move_key> m_moveKeys;
    ReadBuffer<std::uint64_t> m_moveValues;
    SlotValues m_last; // each slot's thread at the last drain
    SlotValues m_base; // at countFrom
    std::size_t m_slotsSeen = 0; // the slots read so far are below this
    PeerList m_wakers, m_preemptors; // this interval's
    std::unordered_map<std::uint32_t, std::vector<SchedMigration>> m_moves;
    std::vector<std::uint32_t> m_ended; // the slots of threads that ended
    std::vector<PeerDelta> m_candidates; // top()'s, kept from thread to thread
    std::vector<long> m_changed; // drain()'s threads with figures, kept from drain to drain
    WakeLatency m_queued; // fill()'s bins from the enqueue, on their way into the figures
    std::unordered_map<long, SchedCounts> m_counts; // counts()
    std::vector<long> m_liveTids; // updateCounts()'s, when a task went
    std::uint64_t m_fromNs = 0;
    std::uint64_t m_drainedNs = 0;
    std::uint64_t m_lostLast = 0;
    RawTrace m_noRecording;
};

} // namespace

Expected<std::unique_ptr<SchedWatch>> SchedWatch::openBpf(long pid)
{
    if (std::string why = bpfUnavailable(); !why.empty())
        return makeError(why);
    bpf::quietLibbpf();
    ctxscope_sched* skel = ctxscope_sched__open();
    if (skel == nullptr)
        return makeError(fmt::format("could not open the BPF programs: {}", std::strerror(errno)));
    skel->rodata->target_tgid = static_cast<__u32>(pid);
    const BpfMapSizes sizes = bpfMapSizes(os::taskCount(pid).value_or(0));
    bpf_map__set_max_entries(skel->maps.threads, sizes.threads);
    bpf_map__set_max_entries(skel->maps.free_slots, sizes.threads);
    bpf_map__set_max_entries(skel->maps.slot_cache, sizes.threads); // a power of two: see its mask
    skel->rodata->tid_cache_mask = sizes.threads - 1;
    bpf_map__set_max_entries(skel->maps.wakers, sizes.peers);
    bpf_map__set_max_entries(skel->maps.preemptors, sizes.peers);
    bpf_map__set_max_entries(skel->maps.moves, sizes.moves);
    if (int err = ctxscope_sched__load(skel); err != 0) {
        ctxscope_sched__destroy(skel);
        return makeError(fmt::format("the kernel refused the BPF programs: {}", std::strerror(-err)));
    }
    // Every slot free, in order, before a program can take one; then the array mapped.
    const int queue = bpf_map__fd(skel->maps.free_slots);
    for (std::uint32_t slot = 0; slot < sizes.threads; ++slot)
        if (bpf_map_update_elem(queue, nullptr, &slot, BPF_ANY) != 0) {
            const int err = errno;
            ctxscope_sched__destroy(skel);
            return makeError(fmt::format("could not fill the BPF backend's free slots: {}", std::strerror(err)));
        }
    void* mapped = ::mmap(nullptr, MappedSlots::bytes(sizes.threads), PROT_READ | PROT_WRITE, MAP_SHARED,
        bpf_map__fd(skel->maps.threads), 0);
    if (mapped == MAP_FAILED) {
        const int err = errno;
        ctxscope_sched__destroy(skel);
        return makeError(fmt::format("could not map the BPF backend's threads into memory: {}", std::strerror(err)));
    }
    auto slots = std::make_unique<MappedSlots>(static_cast<ctxscope_thread*>(mapped), sizes.threads);
    // The exits of interrupts and timer callbacks before their entries: an entry counted whose
    // exit was not (its program attached a moment later) left that CPU "in an interrupt" for
    // the whole watch, every wake-up there then an interrupt's. An exit whose entry was not
    // counted is clamped (irq_step).
    int err = 0;
    for (auto [program, link] : { std::pair { skel->progs.ctxscope_irq_out, &skel->links.ctxscope_irq_out },
             std::pair { skel->progs.ctxscope_sirq_out, &skel->links.ctxscope_sirq_out },
             std::pair { skel->progs.ctxscope_tmr_out, &skel->links.ctxscope_tmr_out } })
        if (err == 0) {
            *link = bpf_program__attach(program);
            err = *link == nullptr ? -errno : 0;
        }
    if (err == 0)
        err = ctxscope_sched__attach(skel);
    if (err != 0) {
        slots.reset();
        ctxscope_sched__destroy(skel);
        return makeError(
            fmt::format("could not attach the BPF programs to the scheduler's tracepoints: {}", std::strerror(-err)));
    }
    auto topology = Topology::loadLive();
    return std::unique_ptr<SchedWatch>(std::make_unique<BpfSchedWatch>(
        skel, std::move(slots), topology ? std::optional<Topology>(std::move(*topology)) : std::nullopt, sizes));
}

#endif

} // namespace ctxscope
