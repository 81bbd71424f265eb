// The RPC backend's table; see rpcbackend.h.
#include "core/sizing/scheduler/rpcbackend.h"

namespace llamafit::scheduler {

SchedulerBackend rpcBackend(const RpcDevice& device) {
    SchedulerBackend backend;
    // ggml-rpc.cpp ggml_backend_rpc_init: the backend's name is "RPC" + the device's index on
    // its server + "[endpoint]", the same string as its buffer type's name.
    backend.name = device.name;
    // ggml_backend_rpc_buffer_type: alignment and max_size come from the server
    // (get_alignment / get_max_size at buffer type creation); not a host buffer
    // (ggml_backend_rpc_buffer_type_interface has no is_host).
    // ggml_backend_rpc_buffer_type_get_alloc_size asks the server only for quantized tensors
    // whose rows are not a multiple of 512 and for FLASH_ATTN_EXT and MUL_MAT_ID; the server's
    // CPU buffer type answers ggml_nbytes for those as for every other tensor.
    backend.computeBufferType = BufferType{device.name, false, device.alignment, device.maxSize, {}};
    // ggml_backend_rpc_device_supports_buft: only an RPC buffer type of the same endpoint and
    // device, which is the one whose name is this device's.
    backend.supportsBufferType = [name = device.name](std::string_view bufferType, bool) {
        return bufferType == name;
    };
    // ggml_backend_rpc_device_supports_op: true for every op ("TODO: call the remote backend").
    backend.supportsOp = [](const graph::ComputeGraph&, graph::TensorId) { return true; };
    // ggml_backend_rpc_device_i: .offload_op = NULL, and no graph_optimize in the backend's
    // interface: offloadOp and optimizeGraph stay empty.
    return backend;
}

} // namespace llamafit::scheduler
