// The prepared model's remembered placements; see placementcache.h.
#include "core/sizing/placementcache.h"

#include <algorithm>

namespace llamafit {

std::shared_ptr<const ModelPlacement> PlacementCache::find(const ServerSettings& settings,
                                                           const std::vector<GpuDevice>& gpus) {
    const std::lock_guard lock(m_mutex);
    const auto entry = std::find_if(m_entries.begin(), m_entries.end(), [&](Entry& known) {
        // The stored settings take the asked context so that the comparison skips it, without a
        // copy of the asked settings (their strings and lists) on every estimate.
        known.settings.contextTokens = settings.contextTokens;
        return known.settings == settings && known.gpus == gpus;
    });
    if (entry == m_entries.end()) {
        return nullptr;
    }
    m_entries.splice(m_entries.begin(), m_entries, entry);
    return entry->placement;
}

void PlacementCache::add(const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                         std::shared_ptr<const ModelPlacement> placement) {
    const std::lock_guard lock(m_mutex);
    m_entries.push_front({settings, gpus, std::move(placement)});
    if (m_entries.size() > kEntries) {
        m_entries.pop_back();
    }
}

} // namespace llamafit
