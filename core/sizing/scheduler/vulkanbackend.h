#pragma once
// The Vulkan backend as ggml's scheduler sees it (ggml/src/ggml-vulkan/ggml-vulkan.cpp): which ops
// one Vulkan device runs (ggml_backend_vk_device_supports_op), that it reads only its own device
// buffers in place (supports_buft), which ops on host weights it takes over (offload_op, the batch
// rule), how it reorders each split before ggml-alloc sees it (ggml_vk_graph_optimize), and its
// device buffer type's alignment, maximum size and allocation size. Beside it, the pinned host
// buffer type ("Vulkan_Host") llama.cpp gives the CPU backend as its compute buffer type.
//
// Who uses it: the scheduler port (graphsplit.h) through the SchedulerBackend it returns; the plan
// tests map a dumped "Vulkan0" to it. A VulkanDevice is the handful of device properties the rules
// read, as vulkaninfo reports them; sizes in bytes. Pure values, no Vulkan calls.

#include "core/sizing/scheduler/schedulerbackend.h"

#include <cstdint>
#include <string>

namespace llamafit::scheduler {

struct VulkanDevice {
    std::string name = "Vulkan0"; // ggml_vk_get_device: GGML_VK_NAME + index; also its buffer type's name
    // VkPhysicalDeviceLimits.
    std::uint64_t maxStorageBufferRange = 134217728;
    std::uint64_t minStorageBufferOffsetAlignment = 16;
    std::uint64_t minMemoryMapAlignment = 64;
    std::uint32_t maxComputeSharedMemorySize = 32768;
    std::uint32_t maxComputeWorkGroupInvocations = 1024;
    // VkPhysicalDeviceMaintenance3Properties / Maintenance4Properties (maxBufferSize counts only
    // where VK_KHR_maintenance4 is there).
    std::uint64_t maxMemoryAllocationSize = 0x80000000;
    bool maintenance4 = true;
    std::uint64_t maxBufferSize = 0xffffffff;
    // VK_EXT_shader_64bit_indexing: lifts the maxStorageBufferRange limit on tensors.
    bool shader64BitIndexing = false;
    // fp16: storageBuffer16BitAccess and shaderFloat16 (device->fp16); it sizes the matrix
    // product's shared-memory tiles.
    bool fp16 = true;
    // Subgroups (VkPhysicalDeviceSubgroupProperties for the compute stage, and
    // subgroupSizeControl's computeFullSubgroups).
    std::uint32_t subgroupSize = 8;
    bool subgroupBasic = true;
    bool subgroupArithmetic = true;
    bool subgroupShuffle = true;
    bool subgroupVote = true;
    bool subgroupBallot = true;
    bool computeFullSubgroups = true;
    bool vulkanMemoryModel = true; // VkPhysicalDeviceVulkan12Features
    // KHR cooperative matrix as ggml enables it (ggml_vk_khr_cooperative_matrix_support), and NV
    // cooperative matrix 2; both change tile sizes and flash attention's requirements.
    bool coopmat = false;
    std::uint32_t coopmatM = 16; // the KHR shape ggml picked (device->coopmat_m, coopmat_n)
    std::uint32_t coopmatN = 16;
    bool coopmat2 = false;
    // shaderInt64 and bufferDeviceAddress: the im2col shaders then address past the binding limit.
    bool shaderInt64 = true;
    bool bufferDeviceAddress = true;
    // Environment knobs ggml reads once: GGML_OP_OFFLOAD_MIN_BATCH (default 32) and
    // GGML_VK_DISABLE_GRAPH_OPTIMIZE.
    std::int64_t opOffloadMinBatch = 32;
    bool graphOptimize = true;

    bool operator==(const VulkanDevice&) const = default;
};

// lavapipe (Mesa llvmpipe, 256 bits), the Vulkan device of the recorded runs: vulkaninfo on the
// GPU rig.
VulkanDevice lavapipeDevice();

// device->max_memory_allocation_size, device->max_buffer_size and
// device->suballocation_block_size (ggml_vk_get_device).
std::uint64_t vulkanMaxAllocationBytes(const VulkanDevice& device);
std::uint64_t vulkanMaxBufferBytes(const VulkanDevice& device);
std::uint64_t vulkanSuballocationBlockBytes(const VulkanDevice& device);

// The device buffer type ("Vulkan0") and the pinned host buffer type ("Vulkan_Host").
BufferType vulkanBufferType(const VulkanDevice& device);
BufferType vulkanHostBufferType(const VulkanDevice& device);

SchedulerBackend vulkanBackend(const VulkanDevice& device);

} // namespace llamafit::scheduler
