// SPDX-License-Identifier: MIT
#include "runner/control.h"
#include "os/shared_mapping.h"

#include <new>

namespace ctxscope::run {

namespace {
std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
} // namespace

Expected<ControlBlock> ControlBlock::create(int tasks, std::uint64_t sampleCapacity)
{
    constexpr std::size_t kPage = 4096;
    const std::size_t slotsAt = roundUp(sizeof(Control), 64);
    const std::size_t samplesAt = roundUp(slotsAt + sizeof(TaskSlot) * static_cast<std::size_t>(tasks), kPage);
    const std::size_t bytes = roundUp(samplesAt + sizeof(std::uint64_t) * sampleCapacity, kPage);
    auto mapping = sys::SharedMapping::create(bytes);
    if (!mapping)
        return mapping.error();
    ControlBlock block;
    block.m_mapping = std::move(*mapping);
    auto* base = static_cast<unsigned char*>(block.m_mapping.data());
    block.m_control = new (base) Control {};
    block.m_control->tasks = tasks;
    block.m_control->sampleCapacity = sampleCapacity;
    block.m_slots = static_cast<TaskSlot*>(static_cast<void*>(base + slotsAt));
    for (int i = 0; i < tasks; ++i)
        new (&block.m_slots[i]) TaskSlot {};
    block.m_samples = static_cast<std::uint64_t*>(static_cast<void*>(base + samplesAt));
    return block;
}

} // namespace ctxscope::run
