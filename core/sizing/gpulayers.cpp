// GpuLayers text; see gpulayers.h.

#include "core/sizing/gpulayers.h"

#include <charconv>

namespace llamafit {

std::string GpuLayers::text() const {
    switch (m_kind) {
    case Kind::Auto:
        return "auto";
    case Kind::All:
        return "all";
    case Kind::Count:
        break;
    }
    return std::to_string(m_count);
}

std::optional<GpuLayers> GpuLayers::fromText(std::string_view text) {
    if (text == "auto") {
        return automatic();
    }
    if (text == "all") {
        return all();
    }
    long long number = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, number);
    if (text.empty() || ec != std::errc{} || ptr != end || number > UINT32_MAX) {
        return std::nullopt;
    }
    // llama.cpp common/arg.cpp stores auto as -1 and all as -2; llama_model_load puts every
    // layer on the GPUs for any negative count, which is what all means.
    if (number == -1) {
        return automatic();
    }
    if (number < 0) {
        return all();
    }
    return count(static_cast<std::uint32_t>(number));
}

} // namespace llamafit
