// The engine's compiled plans; see computeplancache.h.
#include "core/sizing/computeplancache.h"

#include <algorithm>

namespace llamafit {

ComputePlanKey computePlanKey(ComputePlanKey::Kind kind, const ServerSettings& settings,
                              const ResolvedContext& context, const std::vector<KvCacheEstimate>& caches,
                              const std::vector<GpuDevice>& gpus, const LayerPlacement& layers,
                              const std::vector<LoraAdapterInfo>& adapters) {
    ComputePlanKey key{kind, settings, context, caches, gpus, layers, adapters};
    key.settings.contextTokens.reset();
    key.context.nCtx = 0;
    key.context.nCtxSeq = 0;
    for (KvCacheEstimate& cache : key.caches) {
        if (!cache.swa) {
            cache.cells = 0;
            cache.kBytes = 0;
            cache.vBytes = 0;
        }
    }
    return key;
}

std::uint32_t planCells(const std::vector<KvCacheEstimate>& caches) {
    for (const KvCacheEstimate& cache : caches) {
        if (!cache.swa) {
            return cache.cells;
        }
    }
    return 0;
}

bool CompiledPlan::holds(std::uint32_t cells) const {
    const std::int64_t offset = std::int64_t{cells} - std::int64_t{anchorCells};
    return offset % allocator::kCellsPerStep == 0 && valid.contains(offset / allocator::kCellsPerStep);
}

ComputePlanCache::Layout ComputePlanCache::layOut(const CompiledPlan& plan, std::int64_t step) {
    Layout layout;
    layout.atStep = step;
    for (const allocator::GrowingPlan& reserve : plan.reserves) {
        allocator::ComputeBuffersOverCells buffers =
            allocator::planComputeBuffersAt(reserve, step, plan.bufferTypes);
        layout.choices.keepOnly(buffers.choices.lo(), buffers.choices.hi());
        layout.reserveBytes.push_back(std::move(buffers.bytes));
    }
    return layout;
}

std::vector<std::uint64_t> ComputePlanCache::bytesAt(const Layout& layout, std::int64_t step) {
    std::vector<std::uint64_t> bytes;
    for (const std::vector<allocator::AffineBytes>& reserve : layout.reserveBytes) {
        bytes.resize(std::max(bytes.size(), reserve.size()), 0);
        for (std::size_t b = 0; b < reserve.size(); ++b) {
            // ggml-alloc only grows a buffer: each keeps the largest reserve's size.
            bytes[b] = std::max(bytes[b], static_cast<std::uint64_t>(reserve[b].at(step - layout.atStep)));
        }
    }
    return bytes;
}

std::optional<PlannedCompute> ComputePlanCache::find(const ComputePlanKey& key, std::uint32_t cells) {
    std::unique_lock lock(m_mutex);
    const auto structure = std::find_if(m_structures.begin(), m_structures.end(),
                                        [&](const Structure& known) { return known.key == key; });
    if (structure == m_structures.end()) {
        return std::nullopt;
    }
    m_structures.splice(m_structures.begin(), m_structures, structure);
    std::vector<Entry>& entries = m_structures.front().entries;
    const auto entry = std::find_if(entries.begin(), entries.end(),
                                    [&](const Entry& known) { return known.plan->holds(cells); });
    if (entry == entries.end()) {
        return std::nullopt;
    }
    const std::shared_ptr<const CompiledPlan> plan = entry->plan;
    if (!plan->covered || plan->reserves.empty()) {
        return PlannedCompute{plan->covered, plan->refusal, plan->keepsFlashAttention, {}};
    }
    const std::int64_t step =
        (std::int64_t{cells} - std::int64_t{plan->anchorCells}) / std::int64_t{allocator::kCellsPerStep};
    for (const Layout& layout : entry->layouts) {
        if (layout.choices.contains(step - layout.atStep)) {
            return PlannedCompute{true, std::nullopt, true, bytesAt(layout, step)};
        }
    }
    // Lay the plan out at these cells without the lock: the other thread's estimates go on.
    lock.unlock();
    Layout layout = layOut(*plan, step);
    PlannedCompute answer{true, std::nullopt, true, bytesAt(layout, step)};
    lock.lock();
    for (Structure& known : m_structures) {
        for (Entry& holder : known.entries) {
            if (holder.plan == plan) {
                if (holder.layouts.size() == kLayoutsPerEntry) {
                    holder.layouts.erase(holder.layouts.begin());
                }
                holder.layouts.push_back(std::move(layout));
                return answer;
            }
        }
    }
    return answer; // the plan left the cache meanwhile
}

void ComputePlanCache::add(const ComputePlanKey& key, std::shared_ptr<const CompiledPlan> plan) {
    const std::lock_guard lock(m_mutex);
    auto structure = std::find_if(m_structures.begin(), m_structures.end(),
                                  [&](const Structure& known) { return known.key == key; });
    if (structure == m_structures.end()) {
        m_structures.push_front({key, {}});
        if (m_structures.size() > kStructures) {
            m_structures.pop_back();
        }
    } else {
        m_structures.splice(m_structures.begin(), m_structures, structure);
    }
    std::vector<Entry>& entries = m_structures.front().entries;
    if (entries.size() == kEntriesPerStructure) {
        entries.erase(entries.begin());
    }
    entries.push_back({std::move(plan), {}});
}

} // namespace llamafit
