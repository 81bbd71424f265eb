// The Vulkan backend's table; see vulkanbackend.h. Every rule restates
// ggml/src/ggml-vulkan/ggml-vulkan.cpp; the op table and the reorder are in vulkansupportsop.cpp
// and vulkangraphoptimize.cpp.
#include "core/sizing/scheduler/vulkanbackend.h"

#include "core/sizing/scheduler/tensorlayout.h"
#include "core/sizing/scheduler/vulkansupportsop.h"

#include <algorithm>

namespace llamafit::scheduler {

VulkanDevice lavapipeDevice() {
    // vulkaninfo: llvmpipe (LLVM 15.0.6, 256 bits), Vulkan 1.3.230, deviceType CPU (so not UMA),
    // VK_KHR_maintenance4 without VK_EXT_shader_64bit_indexing, subgroup size 8 with basic, vote,
    // arithmetic, ballot and shuffle operations in the compute stage, computeFullSubgroups,
    // vulkanMemoryModel, shaderFloat16 and storageBuffer16BitAccess, no cooperative matrices.
    return VulkanDevice{};
}

std::uint64_t vulkanMaxAllocationBytes(const VulkanDevice& device) {
    // ggml_vk_get_device: with maintenance4, the smaller of maxMemoryAllocationSize and maxBufferSize.
    return device.maintenance4 ? std::min(device.maxMemoryAllocationSize, device.maxBufferSize)
                               : device.maxMemoryAllocationSize;
}

std::uint64_t vulkanMaxBufferBytes(const VulkanDevice& device) {
    // ggml_vk_get_device: maxBufferSize with maintenance4, else the allocation limit.
    return device.maintenance4 ? device.maxBufferSize : vulkanMaxAllocationBytes(device);
}

std::uint64_t vulkanSuballocationBlockBytes(const VulkanDevice& device) {
    // ggml_vk_get_device: "Limit batching of allocations to 1GB by default", and never above the
    // allocation limit (GGML_VK_SUBALLOCATION_BLOCK_SIZE overrides the 1 GiB).
    return std::min<std::uint64_t>(1024ull * 1024 * 1024, vulkanMaxAllocationBytes(device));
}

BufferType vulkanBufferType(const VulkanDevice& device) {
    BufferType type;
    type.name = device.name; // ggml_backend_vk_buffer_type_name: the device's name
    type.host = false;
    // ggml_backend_vk_buffer_type_get_alignment: minStorageBufferOffsetAlignment.
    type.alignment = device.minStorageBufferOffsetAlignment;
    // ggml_backend_vk_buffer_type_get_max_size: the suballocation block.
    type.maxSize = vulkanSuballocationBlockBytes(device);
    // ggml_backend_vk_buffer_type_get_alloc_size: ggml_nbytes (the empty allocSize).
    return type;
}

BufferType vulkanHostBufferType(const VulkanDevice& device) {
    BufferType type;
    type.name = "Vulkan_Host"; // ggml_backend_vk_host_buffer_type_name: GGML_VK_NAME "_Host"
    type.host = true;          // is_host: the CPU buffer type's
    // ggml_backend_vk_host_buffer_type_get_alignment: device 0's minMemoryMapAlignment.
    type.alignment = device.minMemoryMapAlignment;
    // ggml_backend_vk_host_buffer_type_get_max_size: device 0's suballocation block.
    type.maxSize = vulkanSuballocationBlockBytes(device);
    // get_alloc_size: the CPU buffer type's, ggml_nbytes (the empty allocSize).
    // ggml_backend_vk_host_buffer_type_alloc_buffer: "size += 32; // Behave like the CPU buffer
    // type", and the pinned buffer reports that size.
    type.allocBufferPadding = 32;
    return type;
}

SchedulerBackend vulkanBackend(const VulkanDevice& device) {
    SchedulerBackend backend;
    backend.name = device.name; // ggml_backend_vk_name
    backend.computeBufferType = vulkanBufferType(device);
    // ggml_backend_vk_device_supports_buft: only this device's own buffer type; host buffers,
    // Vulkan_Host included, are copied in.
    backend.supportsBufferType = [name = device.name](std::string_view bufferType, bool) {
        return bufferType == name;
    };
    backend.supportsOp = [device](const graph::ComputeGraph& graph, graph::TensorId id) {
        return vulkanSupportsOp(device, graph, id);
    };
    // ggml_backend_vk_device_offload_op: an op on a host weight comes to the device when its batch
    // reaches op_offload_min_batch_size (GGML_OP_OFFLOAD_MIN_BATCH, default 32).
    backend.offloadOp = [minBatch = device.opOffloadMinBatch](const graph::ComputeGraph& graph,
                                                              graph::TensorId id) {
        return layout::opBatchSize(graph[id]) >= minBatch;
    };
    // ggml_vk_graph_optimize, unless GGML_VK_DISABLE_GRAPH_OPTIMIZE.
    if (device.graphOptimize) {
        backend.optimizeGraph = vulkanOptimizeGraph;
    }
    return backend;
}

} // namespace llamafit::scheduler
