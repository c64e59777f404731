// SPDX-License-Identifier: MIT
// One lookup of a walk in key order through a sorted range (one reading's threads looked up,
// in turn, in another reading, or in a map keyed by TID).
#pragma once

#include <algorithm>

namespace ctxscope::programs {

// The entry with key `key` in a range sorted by unique keys, looked for from `hint` (usually
// the entry after the last one found): the few entries from `hint` are tried first, and only
// past them `search()` runs, a search of the whole range returning what the caller wants
// there (the entry or `last`; for a map, its lower_bound as a hint to insert at). `keyOf` gives
// an entry's key. Walked in order, no search runs: of 10,000 threads, the searches' misses in
// the cache cost more than the figures they look up.
template <class It, class Key, class KeyOf, class Search>
It findFrom(It hint, It last, const Key& key, KeyOf keyOf, Search search)
{
    constexpr int kSteps = 4; // entries tried before a search
    for (int step = 0; hint != last && step < kSteps && keyOf(*hint) < key; ++step)
        ++hint;
    if (hint != last && keyOf(*hint) == key)
        return hint;
    return search();
}

// In an array of (key, value) pairs in key order: the first entry whose key is not below `key`;
// findKey(): `key`'s entry, or the end.
template <class Entries, class Key> auto lowerBoundKey(Entries& entries, const Key& key)
{
    return std::lower_bound(
        entries.begin(), entries.end(), key, [](const auto& e, const Key& k) { return e.first < k; });
}
template <class Entries, class Key> auto findKey(Entries& entries, const Key& key)
{
    const auto it = lowerBoundKey(entries, key);
    return it != entries.end() && it->first == key ? it : entries.end();
}

} // namespace ctxscope::programs
