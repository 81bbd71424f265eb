#pragma once
// ServerSettings: the llama-server options that change memory, with llama-server
// 0.7.0's defaults (tools/server/server.cpp, common/common.h). The same value drives the
// estimate, the CLI and (later) the launcher's argv. Unset optionals mean "flag not
// passed", because llama-server treats an unset -np or -c differently from any value.

#include "core/gguf/ggmltype.h"
#include "core/sizing/draftmodel.h"
#include "core/sizing/gpulayers.h"
#include "core/sizing/llamabuild.h"
#include "core/sizing/projectorsetting.h"
#include "core/sizing/speculative.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

enum class FlashAttention { Auto, On, Off };

// How many logits rows the worst-case graph reserves (llama_context_params::n_outputs_max).
enum class OutputReserve {
    PerSlot,  // llama-server: one per slot (tools/server/server-context.cpp: n_outputs_max = n_parallel)
    PerBatch, // llama.cpp's default, kept by llama-fit-params and the other tools: n_outputs_max = n_batch;
              // also llama-server before llama.cpp PR #23861 (May 2026): `graph_reserve: ... n_outputs = 512`
};

enum class LoadMode {
    Auto, // -lm auto (default): mmap unless a device refuses it (Vulkan iGPUs do)
    Mmap, // -lm mmap
    None, // -lm none (the older --no-mmap): weights are copied into real buffers
};

struct TensorOverride {
    std::string pattern; // ECMAScript regex matched against tensor names (llama.cpp uses std::regex_search)
    std::string bufferType; // "CPU", "CUDA0", a GPU name given with --gpu ...
    bool operator==(const TensorOverride&) const = default;
};

// One --lora FILE (scale 1) or --lora-scaled FILE:SCALE adapter.
struct LoraAdapterSetting {
    std::string path;
    double scale = 1.0;
    bool operator==(const LoraAdapterSetting&) const = default;
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
    // --rpc host:port,...: ggml-rpc-server endpoints, in order. Each is a device that comes before
    // the local GPUs (core/sizing/rpcdevices.h); its free memory comes with the GPUs.
    std::vector<std::string> rpcServers;
    // --spec-type, --spec-draft-n-max, --spec-draft-n-ubatch: draft-mtp adds the MTP draft context
    // (core/sizing/mtpcontext.h) and RS rows to the main context.
    SpeculativeSettings speculative;
    // --lora / --lora-scaled, in order. Their weights are sized from the adapter files
    // (estimateMemory's adapters, core/sizing/lorabuffers.h).
    std::vector<LoraAdapterSetting> loraAdapters;
    // -md and the draft's -ngld, -ctkd, -ctvd: a second model and context (core/sizing/draftmodel.h),
    // sized from the draft's file (estimateMemory's companions).
    DraftModelSettings draftModel;
    // --mmproj and its options; sized from the projector file (core/sizing/projectorbuffers.h).
    ProjectorSetting projector;
    // Not a flag: which program allocates. Only the fit replica (fitreplica.h) sizes llama-fit-params.
    OutputReserve outputReserve = OutputReserve::PerSlot;
    // Not a flag: a context --fit measures (common/fit.cpp loads the model with no_alloc), whose
    // compute is its prompt graph's alone, unpinned (computeengine.cpp). Set by the fit replica only.
    bool fitMeasurement = false;
    // Not a flag: the llama.cpp build that allocates (llamabuild.h): its rules, where llama.cpp changed
    // them, are the ones sized. The probed llama-server's, --llama-build's, or a public log's.
    std::uint32_t llamaBuild = kReferenceLlamaBuild;
    bool operator==(const ServerSettings&) const = default;
};

// Rpc: a device of a ggml-rpc-server (--rpc), whatever backend that server runs.
enum class Backend { Cpu, Cuda, Vulkan, Metal, Rocm, Rpc, Other };

// What makes llama.cpp keep a weight or an op off a GPU (Vulkan: VkPhysicalDeviceLimits::
// maxStorageBufferRange and VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize).
// ggml-vulkan refuses an op when a tensor it reads or writes is larger than either
// (ggml/src/ggml-vulkan/ggml-vulkan.cpp supports_op: "reject any tensors larger than the max
// buffer size"), so such a weight stays in host memory and such an op runs on the CPU.
// nullopt = no limit (CUDA, ROCm, Metal, or not known). Bytes.
struct DeviceLimits {
    std::optional<std::uint64_t> maxStorageBufferRangeBytes;
    std::optional<std::uint64_t> maxAllocationBytes;
    bool operator==(const DeviceLimits&) const = default;

    // The largest tensor an op on the device may read or write: the smaller limit.
    std::optional<std::uint64_t> largestOpTensorBytes() const {
        if (maxStorageBufferRangeBytes && maxAllocationBytes) {
            return std::min(*maxStorageBufferRangeBytes, *maxAllocationBytes);
        }
        return maxStorageBufferRangeBytes ? maxStorageBufferRangeBytes : maxAllocationBytes;
    }
    // Whether an op whose largest tensor has `bytes` may run on the device.
    bool allowsTensor(std::uint64_t bytes) const {
        const std::optional<std::uint64_t> limit = largestOpTensorBytes();
        return !limit || bytes <= *limit;
    }
};

// A GPU the estimate may place layers on (from --gpu NAME=MiB, a machine profile, or
// device discovery), or an RPC server's device (--rpc with --gpu rpc:HOST:PORT=MiB). No GPUs =
// a CPU-only run, like the test machines. The list is in llama.cpp's device order, the one -ts
// indexes: RPC devices first, then the local GPUs (rpcdevices.h).
struct GpuDevice {
    std::string name; // as llama.cpp names the buffer: "CUDA0", "Vulkan0", "RPC0[127.0.0.1:50052]", a label
    std::uint64_t memoryBytes = 0; // llama.cpp splits layers by the free memory a device reports (no -ts)
    Backend backend = Backend::Other;
    bool integrated = false;                    // an APU's iGPU: shares physical memory with the host
    std::optional<std::uint64_t> overheadBytes; // overrides the backend's default overhead
    DeviceLimits limits = {}; // an initializer, so brace-initialized devices may leave it out
    bool operator==(const GpuDevice&) const = default;
};

} // namespace llamafit
