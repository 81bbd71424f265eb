// Backend overheads. None of these appear in llama.cpp's buffer lines; they are the
// "unaccounted" column of common_memory_breakdown_print (total - free - self), which is why
// llama.cpp's --fit keeps a 1024 MiB margin per device (common/common.h fit_params_target).
#include "core/sizing/overhead.h"

#include "core/common/units.h"

namespace llamafit {

std::uint64_t defaultOverheadBytes(Backend backend) {
    switch (backend) {
    case Backend::Cpu:
        // Process code and heap outside the buffers; llama.cpp does not size it either.
        return 0;
    case Backend::Cuda:
    case Backend::Rocm:
        // CUDA/HIP context with lazy module loading (~300-500 MiB per device) plus cuBLAS/hipBLAS
        // workspaces and the ggml-cuda memory pool (ggml-cuda.cu ggml_cuda_pool).
        return 400 * kMiB;
    case Backend::Vulkan:
        // Driver and pipeline memory, descriptor pools and the prealloc_x/y/split_k scratch that
        // ggml-vulkan.cpp grows on the first runs (ggml_vk_preallocate_buffers).
        return 256 * kMiB;
    case Backend::Metal:
        // Command buffers and residency sets; Metal shares memory with the host.
        return 128 * kMiB;
    case Backend::Rpc:
        // Outside the client's view: the remote server's own backend context (a CUDA context on a
        // GPU server, almost nothing on a CPU one), which the client cannot see; as for Other.
    case Backend::Other:
        return 256 * kMiB;
    }
    return 0;
}

std::uint64_t overheadBytes(const GpuDevice& gpu) {
    return gpu.overheadBytes.value_or(defaultOverheadBytes(gpu.backend));
}

} // namespace llamafit
