// English wording of the sizing rules and pool terms; see ruletext.h.
#include "app/cli/ruletext.h"

namespace llamafit {

namespace {

std::string cited(std::string sentence, SizeRuleId id) {
    return sentence + "; " + std::string(sizeRuleSource(id));
}

std::string weightsText(const SizeRule& rule) {
    std::string text;
    switch (rule.id) {
    case SizeRuleId::OffloadedWeights:
        text = cited("blocks (and the output layer) offloaded by -ngl/-ts/-ot", rule.id);
        break;
    case SizeRuleId::MappedHostWeights:
        text = cited("host weights mapped from the GGUF file (page cache, resident once touched); token "
                     "embeddings always stay on the CPU",
                     rule.id);
        break;
    case SizeRuleId::RepackedHostWeights:
        text = cited("Q4_0/Q4_K/IQ4_NL/MXFP4 matmul weights repacked for the AVX2 kernels: real RAM even "
                     "with mmap (-nr turns it off)",
                     rule.id);
        break;
    case SizeRuleId::CopiedHostWeights:
        text = cited("host weights copied into RAM (-lm none)", rule.id);
        break;
    default:
        text = cited("host weights copied into the first GPU's pinned host buffer (-lm none)", rule.id);
        break;
    }
    if (rule.tiedOutput) {
        text += "; includes the tied output, a second copy of token_embd";
    }
    return text;
}

std::string componentWords(Component component) {
    switch (component) {
    case Component::Model:
        return "model weights";
    case Component::Kv:
        return "KV cache";
    case Component::Rs:
        return "recurrent state";
    case Component::Output:
        return "output buffer";
    case Component::Compute:
        return "compute buffer";
    case Component::Overhead:
        break;
    }
    return "backend overhead (driver, scratch; LlamaFit allowance)";
}

} // namespace

std::string ruleText(const SizeRule& rule) {
    switch (rule.id) {
    case SizeRuleId::OffloadedWeights:
    case SizeRuleId::MappedHostWeights:
    case SizeRuleId::RepackedHostWeights:
    case SizeRuleId::CopiedHostWeights:
    case SizeRuleId::PinnedHostWeights:
        return weightsText(rule);
    case SizeRuleId::Logits:
        return cited("logits: n_vocab x one row per slot, f32", rule.id);
    case SizeRuleId::KvCache:
        return cited(std::string(rule.swa ? "SWA" : "non-SWA") + " KV cache: " + std::to_string(rule.cells) +
                         " cells x " + std::to_string(rule.streams) + " streams, K " +
                         std::string(ggmlTypeName(rule.typeK)) + " + V " +
                         std::string(ggmlTypeName(rule.typeV)),
                     rule.id);
    case SizeRuleId::RecurrentState:
        return cited("recurrent state: " + std::to_string(rule.cells) +
                         " rows of f32 conv (R) + SSM (S) state per recurrent layer",
                     rule.id);
    case SizeRuleId::ComputeGraph:
        return cited(
            "peak of ggml-alloc over the worst-case graphs llama-server reserves (a prompt-sized and a "
            "one-token ubatch)",
            rule.id);
    case SizeRuleId::TokenEmbeddingLookup:
        return "token-embedding lookup on the CPU (every block offloaded)";
    case SizeRuleId::ProjectorWeights:
        return cited("vision projector: every tensor of the mmproj file", rule.id);
    case SizeRuleId::ProjectorCompute:
        return cited("vision projector warm-up: ggml-alloc over the graph of one " +
                         std::to_string(rule.cells) + " x " + std::to_string(rule.cells) + " px image",
                     rule.id);
    case SizeRuleId::DeviceBuffers:
        return "estimateMemory: " + std::string(rule.hostDevice ? "host" : "device") +
               " buffers as llama-server -lv 4 logs them";
    case SizeRuleId::HostReservation:
    case SizeRuleId::GpuReservation:
        return "machine profile / discovery";
    case SizeRuleId::SharedMemoryCopy:
        return "shared memory is system RAM";
    case SizeRuleId::MmapDoubleMapping:
        return "with mmap the loader reads the GPU's weights through the mapping (src/llama-model-loader.cpp "
               "load_all_data; unmap_fragment drops the mapping, not the cached pages), so on a "
               "shared-memory "
               "iGPU they sit in the page cache and in the GPU buffer (llama.cpp PR #16095 comment, "
               "whyvl/ollama-vulkan#18); -lm none avoids it, and is the Vulkan iGPU default (ggml-vulkan.cpp "
               "mmap_support=false)";
    case SizeRuleId::PromptCache:
        return "tools/server/server-context.cpp server_prompt_cache: saved slot states in host memory, limit "
               "--cache-ram MiB (common/common.h default 8192, -1 no limit)";
    case SizeRuleId::ContextCheckpoints:
        return "tools/server/server-context.cpp create_checkpoint: up to --ctx-checkpoints per slot (default "
               "32), each one slot's recurrent rows + SWA cells (llama-memory-hybrid.cpp, "
               "llama-kv-cache-iswa.cpp "
               "state_write PARTIAL_ONLY)";
    }
    return {};
}

std::string poolTermLabel(const PoolTerm& term) {
    const SizeRule& rule = term.rule;
    switch (rule.id) {
    case SizeRuleId::HostReservation:
        return "OS and other programs";
    case SizeRuleId::GpuReservation:
        return "desktop and other GPU users";
    case SizeRuleId::SharedMemoryCopy:
        return term.device + " buffers in " + rule.pool;
    case SizeRuleId::MmapDoubleMapping:
        return "mmap double mapping: weights also held in the page cache";
    case SizeRuleId::PromptCache:
        return "prompt cache (--cache-ram " + std::to_string(rule.limitMiB) + ")";
    case SizeRuleId::ContextCheckpoints:
        return "context checkpoints (" + std::to_string(rule.perSlot) + " per slot x " +
               std::to_string(rule.slotCount) + " slots)";
    default:
        break;
    }
    return term.device + " " + componentWords(term.component.value_or(Component::Overhead));
}

} // namespace llamafit
