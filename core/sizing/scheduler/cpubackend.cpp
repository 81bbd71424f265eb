// The CPU backend's table; see cpubackend.h.
#include "core/sizing/scheduler/cpubackend.h"

namespace llamafit::scheduler {
namespace {

using graph::GgmlOp;

// ggml-cpu's extra buffer types (ggml/src/ggml-cpu/repack.cpp, amx.cpp, kleidiai.cpp): not host
// buffers, yet the CPU reads them.
bool isExtraBufferType(std::string_view name) {
    return name == "CPU_REPACK" || name == "AMX" || name == "CPU_KLEIDIAI";
}

} // namespace

SchedulerBackend cpuBackend(BufferType bufferType) {
    SchedulerBackend backend;
    backend.name = "CPU";
    backend.computeBufferType = std::move(bufferType);
    // ggml_backend_cpu_device_supports_buft.
    backend.supportsBufferType = [](std::string_view name, bool host) {
        return host || isExtraBufferType(name);
    };
    // ggml_backend_cpu_device_supports_op: views always; an op reading one of its first four
    // sources from an extra buffer type asks that type, and the repacked types take matrix
    // products only (repack.cpp extra_buffer_type::supports_op); the other refusals (copies into
    // IQ1/IQ2/IQ3 types, backward ops) never occur in llama.cpp's inference graphs.
    backend.supportsOp = [](const graph::ComputeGraph& graph, graph::TensorId id) {
        const graph::Tensor& op = graph[id];
        if (op.op == GgmlOp::None || graph::isViewOp(op.op)) {
            return true;
        }
        for (std::size_t i = 0; i < 4; ++i) {
            const graph::TensorId source = op.sources[i];
            if (source == graph::kNoTensor || graph[source].buffer == graph::kNoBuffer) {
                continue;
            }
            if (isExtraBufferType(graph.buffers[graph[source].buffer].bufferType)) {
                return op.op == GgmlOp::MulMat || op.op == GgmlOp::MulMatId;
            }
        }
        return true;
    };
    return backend;
}

} // namespace llamafit::scheduler
