// SPDX-License-Identifier: MIT
// One lookup of a walk in key order through a sorted range (one reading's threads looked up,
// in turn, in another reading, or in a map keyed by TID).
#pragma once

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

} // namespace ctxscope::programs
