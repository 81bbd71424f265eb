#pragma once
// ServerSettings: the llama-server options that change memory, with llama-server
// 0.7.0's defaults (tools/server/server.cpp, common/common.h). The same value drives the
// estimate, the CLI and (later) the launcher's argv. Unset optionals mean "flag not
// passed", because llama-server treats an unset -np or -c differently from any value.

#include "core/gguf/ggmltype.h"
#include "core/sizing/gpulayers.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

enum class FlashAttention { Auto, On, Off };

enum class LoadMode {
    Auto, // -lm auto (default): mmap unless a device refuses it (Vulkan iGPUs do)
    Mmap, // -lm mmap
    None, // -lm none (the older --no-mmap): weights are copied into real buffers
};

// How the worst-case graph of sched_reserve is built, by llama.cpp generation. Current is b11669.
// BeforeJune2026 is every build before three memory PRs of late May 2026: #23764 (the KQ mask input
// is f16 under flash attention; before, an f32 input was cast to f16 on the device), #23861 (the
// server reserves logits for one row per slot; before, one per ubatch token, as llama-cli still does)
// and #23907 (CUDA flash attention's f16 copies of a quantized K/V live in the compute buffer;
// before, they came from the CUDA memory pool, outside every logged buffer).
enum class GraphReserve { Current, BeforeJune2026 };

struct TensorOverride {
    std::string pattern; // ECMAScript regex matched against tensor names (llama.cpp uses std::regex_search)
    std::string bufferType; // "CPU", "CUDA0", a GPU name given with --gpu ...
    bool operator==(const TensorOverride&) const = default;
};

struct ServerSettings {
    std::optional<std::uint32_t>
        contextTokens; // -c; nullopt = not passed (training context, fit may shrink it); 0 = training context
    std::optional<std::uint32_t> parallelSlots; // -np; nullopt = auto: 4 slots sharing one unified KV cache
    std::optional<bool> kvUnified; // -kvu / -no-kvu; nullopt = llama-server's choice (unified iff -np auto)
    GgmlType cacheTypeK = GgmlType::F16;                  // -ctk
    GgmlType cacheTypeV = GgmlType::F16;                  // -ctv
    FlashAttention flashAttention = FlashAttention::Auto; // -fa
    std::uint32_t batchTokens = 2048;                     // -b
    std::uint32_t ubatchTokens = 512;                     // -ub
    std::optional<GpuLayers> gpuLayers; // -ngl; nullopt = not passed (auto), counts the output layer first
    bool swaFull = false;               // --swa-full
    bool kvOffload = true;              // -nkvo sets false
    std::vector<double> tensorSplit;    // -ts
    std::vector<TensorOverride> tensorOverrides; // -ot, in order
    bool cpuMoe = false;                         // -cmoe
    std::uint32_t cpuMoeLayers = 0;              // -ncmoe N
    LoadMode loadMode = LoadMode::Auto;          // -lm
    bool repack = true;                          // -nr / --no-repack sets false
    // Host-RAM growth at run time (tools/server/server-context.cpp; common/common.h defaults).
    // Not llama.cpp buffers: core/machine/hostterms.h counts them into the system-RAM pool.
    std::int32_t cacheRamMiB = 8192;      // -cram / --cache-ram: prompt cache limit; -1 = no limit, 0 = off
    std::int32_t contextCheckpoints = 32; // -ctxcp / --ctx-checkpoints: per slot, hybrid/SWA models; 0 = off
    // The llama.cpp generation whose graph reserve is sized (not a flag: a property of the build).
    // Public logs of older builds are checked with BeforeJune2026.
    GraphReserve graphReserve = GraphReserve::Current;
    bool operator==(const ServerSettings&) const = default;
};

enum class Backend { Cpu, Cuda, Vulkan, Metal, Rocm, Other };

// A GPU the estimate may place layers on (from --gpu NAME=MiB, a machine profile, or
// device discovery). No GPUs = a CPU-only run, like the test machines.
struct GpuDevice {
    std::string name; // as llama.cpp names the buffer: "CUDA0", "Vulkan0", or a user label
    std::uint64_t memoryBytes = 0;
    Backend backend = Backend::Other;
    bool integrated = false;                    // an APU's iGPU: shares physical memory with the host
    std::optional<std::uint64_t> overheadBytes; // overrides the backend's default overhead
    bool operator==(const GpuDevice&) const = default;
};

} // namespace llamafit
