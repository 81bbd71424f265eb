#pragma once
// The CUDA backend as ggml's scheduler sees it (ggml/src/ggml-cuda/ggml-cuda.cu), also built for
// AMD GPUs as HIP/ROCm from the same source (GGML_USE_HIP: devices and buffer types named "ROCm<i>",
// a few rules differ): which ops one device runs (ggml_backend_cuda_device_supports_op, with the
// flash attention kernel choice of fattn.cu that decides whether -fa auto keeps flash attention),
// which buffer types it reads in place (supports_buft), which ops on host weights it takes over
// (offload_op, the batch rule), and its device buffer type's alignment, maximum size and
// per-tensor allocation size (padding of quantized rows, the f16 copies of a quantized K/V that
// flash attention keeps behind its result). Beside it, the pinned host buffer type ("CUDA_Host",
// "ROCm_Host") that llama.cpp gives the CPU backend as its compute buffer type when a CUDA device
// is the model's first device (llama-context.cpp: the first device's host buffer type).
//
// Who uses it: the scheduler port (graphsplit.h) through the SchedulerBackend it returns, beside
// cpubackend.h. A CudaDevice is the handful of device properties and build options the rules
// read; sizes in bytes. Pure values, no CUDA calls. graph_optimize is not restated: ggml's CUDA
// reorder runs only under GGML_CUDA_GRAPH_OPT=1 with CUDA graphs on one device (off by default).

#include "core/gguf/ggmltype.h"
#include "core/sizing/llamabuild.h"
#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llamafit::scheduler {

// ggml's compute capability numbers (ggml-cuda/common.cuh GGML_CUDA_CC_*): NVIDIA major * 100 +
// minor * 10; AMD 0x1000000 + the gfx id.
namespace cudacc {
inline constexpr int kPascal = 600;
inline constexpr int kVolta = 700;
inline constexpr int kTuring = 750;
inline constexpr int kAmpere = 800;
inline constexpr int kAda = 890;
inline constexpr int kHopper = 900;
inline constexpr int kBlackwell = 1200;
inline constexpr int kRubin = 1300;
inline constexpr int kOffsetAmd = 0x1000000;
inline constexpr int kCdna1 = kOffsetAmd + 0x908; // MI100
inline constexpr int kCdna3 = kOffsetAmd + 0x942; // MI300
inline constexpr int kRdna1 = kOffsetAmd + 0x1010;
inline constexpr int kRdna2 = kOffsetAmd + 0x1030;
inline constexpr int kRdna3 = kOffsetAmd + 0x1100; // RX 7000
inline constexpr int kRdna4 = kOffsetAmd + 0x1200; // RX 9000
} // namespace cudacc

// A K/V type pair with a compiled vector flash attention kernel (GGML_CUDA_FA_QUANTS).
using CudaFlashAttnPair = std::pair<GgmlType, GgmlType>;

// GGML_CUDA_FA_QUANTS's default beside the always compiled f16-f16: q4_0-q4_0, q8_0-q8_0, bf16-bf16.
std::vector<CudaFlashAttnPair> cudaDefaultFlashAttnPairs();

struct CudaDevice {
    int index = 0; // ggml's device index: the backend and its buffer type are "CUDA0"
    // The name the estimate gives the device where it is not ggml's "CUDA<index>" (a GPU the user
    // named): the backend's and its buffer type's, so that they match the weights' buffers.
    std::string name;
    bool hip = false; // a HIP/ROCm build (GGML_USE_HIP): "ROCm0", "ROCm_Host"
    // ggml_cuda_info().devices[i].cc; 890 is an RTX 4090 (Ada), kRdna3 an RX 7900.
    int computeCapability = cudacc::kAda;
    // ggml_cuda_highest_compiled_arch(cc): the highest architecture of CMAKE_CUDA_ARCHITECTURES
    // at or below the device's (-1 if none); 0 here means the device's own, as in a native build
    // and always in a HIP build (no __CUDA_ARCH_LIST__).
    int compiledArch = 0;
    // cudaDeviceProp.integrated (Jetson, DGX Spark): the device then reads the pinned host buffer
    // type in place (ggml_backend_cuda_device_supports_buft).
    bool integrated = false;
    // Build options: GGML_CUDA_FA (off: GGML_CUDA_NO_FA, no flash attention kernel at all),
    // GGML_HIP_NO_MMQ_MFMA (no MFMA on CDNA), and GGML_CUDA_FA_QUANTS, the K/V pairs the vector
    // flash attention kernel is compiled for (f16-f16 always; "all" is every pair of f16, bf16,
    // q4_0, q4_1, q5_0, q5_1, q8_0). Its default is q4_0-q4_0;q8_0-q8_0;f16-f16;bf16-bf16.
    bool flashAttention = true;
    bool hipMfma = true;
    std::vector<CudaFlashAttnPair> flashAttnVecPairs = cudaDefaultFlashAttnPairs();
    // GGML_OP_OFFLOAD_MIN_BATCH (default 32), read once at registration (ggml_backend_cuda_reg).
    std::int64_t opOffloadMinBatch = 32;
    // The llama.cpp build (llamabuild.h): before kCudaFlashAttnCopiesBuild the flash attention
    // copies come from the CUDA memory pool, not the compute buffer.
    std::uint32_t llamaBuild = kReferenceLlamaBuild;

    bool operator==(const CudaDevice&) const = default;
};

// Every K/V pair: GGML_CUDA_FA_QUANTS=all (the former GGML_CUDA_FA_ALL_QUANTS=ON).
std::vector<CudaFlashAttnPair> cudaAllFlashAttnPairs();

// "CUDA" or "ROCm" (GGML_CUDA_NAME, ggml-cuda/vendors/hip.h), and the device's name with its index.
std::string cudaBackendPrefix(const CudaDevice& device);
std::string cudaDeviceName(const CudaDevice& device);

// The device buffer type ("CUDA0"), whose allocSize is cudaAllocSize, and the pinned host buffer
// type ("CUDA_Host").
BufferType cudaBufferType(const CudaDevice& device);
BufferType cudaHostBufferType(const CudaDevice& device);

// ggml_backend_cuda_buffer_type_get_alloc_size for a tensor of a graph, bytes.
std::uint64_t cudaAllocSize(const CudaDevice& device, const graph::ComputeGraph& graph, graph::TensorId id);

// Which flash attention kernel ggml_cuda_get_best_fattn_kernel (fattn.cu) picks for a
// FLASH_ATTN_EXT node; None is "not supported" (the scheduler then runs it on the CPU, and -fa
// auto turns flash attention off).
enum class CudaFlashAttnKernel : std::uint8_t { None, Vec, Tile, MmaF16 };
CudaFlashAttnKernel cudaFlashAttnKernel(const CudaDevice& device, const graph::ComputeGraph& graph,
                                        graph::TensorId id);

SchedulerBackend cudaBackend(const CudaDevice& device);

} // namespace llamafit::scheduler
