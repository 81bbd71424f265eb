#pragma once
// GpuLayers: the value of llama-server's -ngl, as a value type instead of an int with magic
// numbers: auto (llama.cpp stores -1; --fit may lower it), all (-2) or a count N. The count
// includes the output layer, which -ngl places first (llama.cpp src/llama-model.cpp: layer il
// is on a GPU iff il >= n_layer + 1 - n_gpu_layers). Used by ServerSettings (unset = -ngl not
// passed), the estimator's layer placement, the solvers, the settings panel and the flag
// vocabulary (core/flags), which reads and writes its text. Pure value, any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llamafit {

class GpuLayers {
  public:
    enum class Kind {
        Auto,  // -ngl auto: every layer, unless llama-server's --fit lowers it (not modelled)
        All,   // -ngl all: every layer and the output layer
        Count, // -ngl N
    };

    static constexpr GpuLayers automatic() { return GpuLayers(Kind::Auto, 0); }
    static constexpr GpuLayers all() { return GpuLayers(Kind::All, 0); }
    static constexpr GpuLayers count(std::uint32_t layers) { return GpuLayers(Kind::Count, layers); }

    constexpr Kind kind() const { return m_kind; }
    constexpr bool isCount() const { return m_kind == Kind::Count; }
    // Auto and All both mean every layer: the estimate sizes them alike.
    constexpr bool everyLayer() const { return m_kind != Kind::Count; }
    // The N of -ngl N; 0 for auto and all.
    constexpr std::uint32_t layerCount() const { return m_count; }
    // Layers (output layer included) -ngl asks for on a model with `blockCount` blocks:
    // every one (blockCount + 1) for auto and all, else N (which may exceed that).
    constexpr std::uint32_t requestedLayers(std::uint32_t blockCount) const {
        return everyLayer() ? blockCount + 1 : m_count;
    }

    // "auto", "all", "12": how llama-server 0.7.0 spells it after -ngl.
    std::string text() const;
    // The value of -ngl as llama.cpp common/arg.cpp reads it: "auto", "all" or an integer,
    // where -1 is auto and any other negative number is every layer (llama_model_params).
    static std::optional<GpuLayers> fromText(std::string_view text);

    constexpr bool operator==(const GpuLayers&) const = default;

  private:
    constexpr GpuLayers(Kind kind, std::uint32_t layers) : m_kind(kind), m_count(layers) {}
    Kind m_kind = Kind::Auto;
    std::uint32_t m_count = 0;
};

} // namespace llamafit
