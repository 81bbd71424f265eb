#pragma once
// ProjectorSetting: the vision projector a llama-server command loads (-mm/--mmproj) and the
// options that change its memory: --no-mmproj-offload (weights and warm-up buffer on the CPU) and
// the image-token limits, which set the warm-up image (core/sizing/projectorbuffers.h). One member
// of ServerSettings; empty path = no projector. Value type.

#include <cstdint>
#include <optional>
#include <string>

namespace llamafit {

struct ProjectorSetting {
    std::string path;                            // --mmproj FILE; empty: none
    bool offload = true;                         // --mmproj-offload (default) / --no-mmproj-offload
    std::optional<std::uint32_t> imageMinTokens; // --image-min-tokens N
    std::optional<std::uint32_t> imageMaxTokens; // --image-max-tokens N
    bool operator==(const ProjectorSetting&) const = default;
};

} // namespace llamafit
