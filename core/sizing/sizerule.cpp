// The llama.cpp source behind each rule; see sizerule.h.
#include "core/sizing/sizerule.h"

namespace llamafit {

std::string_view sizeRuleSource(SizeRuleId id) {
    switch (id) {
    case SizeRuleId::OffloadedWeights:
        return "llama.cpp src/llama-model.cpp load_tensors";
    case SizeRuleId::MappedHostWeights:
    case SizeRuleId::CopiedHostWeights:
        return "src/llama-model-loader.cpp";
    case SizeRuleId::RepackedHostWeights:
        return "ggml/src/ggml-cpu/repack.cpp";
    case SizeRuleId::PinnedHostWeights:
        return "src/llama-model.cpp make_cpu_buft_list";
    case SizeRuleId::Logits:
        return "src/llama-context.cpp output_reserve";
    case SizeRuleId::KvCache:
        return "src/llama-kv-cache.cpp";
    case SizeRuleId::RecurrentState:
        return "src/llama-memory-recurrent.cpp";
    case SizeRuleId::ComputeGraph:
        return "src/llama-context.cpp sched_reserve";
    case SizeRuleId::ProjectorWeights:
        return "tools/mtmd/clip.cpp load_tensors";
    case SizeRuleId::ProjectorCompute:
        return "tools/mtmd/clip.cpp warmup";
    case SizeRuleId::TokenEmbeddingLookup:
    case SizeRuleId::DeviceBuffers:
    case SizeRuleId::HostReservation:
    case SizeRuleId::GpuReservation:
    case SizeRuleId::SharedMemoryCopy:
    case SizeRuleId::MmapDoubleMapping:
    case SizeRuleId::PromptCache:
    case SizeRuleId::ContextCheckpoints:
        break;
    }
    return {};
}

} // namespace llamafit
