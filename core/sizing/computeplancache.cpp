// The engine's compiled plans; see computeplancache.h.
#include "core/sizing/computeplancache.h"

#include <algorithm>

namespace llamafit {

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

// The stored key takes the query's cells first, so that == passes over them without a copy of the
// query (its settings' strings and lists, its devices) on every estimate.
bool ComputePlanCache::sameStructure(StructureKey& known, const ComputePlanQuery& query) {
    if (known.kind != query.kind || known.caches.size() != query.caches.size()) {
        return false;
    }
    known.settings.contextTokens = query.settings.contextTokens;
    known.context.nCtx = query.context.nCtx;
    known.context.nCtxSeq = query.context.nCtxSeq;
    for (std::size_t i = 0; i < known.caches.size(); ++i) {
        if (!known.caches[i].swa && !query.caches[i].swa) {
            known.caches[i].cells = query.caches[i].cells;
            known.caches[i].kBytes = query.caches[i].kBytes;
            known.caches[i].vBytes = query.caches[i].vBytes;
        }
    }
    return known.settings == query.settings && known.context == query.context &&
           known.caches == query.caches && known.gpus == query.gpus && known.layers == query.layers &&
           known.adapters == query.adapters;
}

std::list<ComputePlanCache::Structure>::iterator
ComputePlanCache::findStructure(const ComputePlanQuery& query) {
    return std::find_if(m_structures.begin(), m_structures.end(),
                        [&](Structure& known) { return sameStructure(known.key, query); });
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

std::optional<PlannedCompute> ComputePlanCache::find(const ComputePlanQuery& query, std::uint32_t cells) {
    std::unique_lock lock(m_mutex);
    const auto structure = findStructure(query);
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

void ComputePlanCache::add(const ComputePlanQuery& query, std::shared_ptr<const CompiledPlan> plan) {
    const std::lock_guard lock(m_mutex);
    const auto structure = findStructure(query);
    if (structure == m_structures.end()) {
        m_structures.push_front({StructureKey{query.kind, query.settings, query.context, query.caches,
                                              query.gpus, query.layers, query.adapters},
                                 {}});
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
