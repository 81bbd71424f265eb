// Translated wording of the sizing rules and pool terms; see ruletext.h.
#include "ui/charts/ruletext.h"

#include "ui/chartstyle.h"

#include <QCoreApplication>

namespace llamafit {

namespace {

// "<sentence>; <llama.cpp source>": the source is a path, never translated.
QString cited(const QString& sentence, SizeRuleId id) {
    return QCoreApplication::translate("SizeRule", "%1; %2")
        .arg(sentence, QString::fromUtf8(sizeRuleSource(id)));
}

QString weightsText(const SizeRule& rule) {
    QString text;
    switch (rule.id) {
    case SizeRuleId::OffloadedWeights:
        text = cited(QCoreApplication::translate("SizeRule",
                                                 "blocks (and the output layer) offloaded by -ngl/-ts/-ot"),
                     rule.id);
        break;
    case SizeRuleId::MappedHostWeights:
        text = cited(QCoreApplication::translate(
                         "SizeRule",
                         "host weights mapped from the GGUF file (page cache, resident once touched); token "
                         "embeddings always stay on the CPU"),
                     rule.id);
        break;
    case SizeRuleId::RepackedHostWeights:
        text = cited(QCoreApplication::translate(
                         "SizeRule",
                         "Q4_0/Q4_K/IQ4_NL/MXFP4 matmul weights repacked for the AVX2 kernels: real RAM even "
                         "with mmap (-nr turns it off)"),
                     rule.id);
        break;
    case SizeRuleId::CopiedHostWeights:
        text = cited(QCoreApplication::translate("SizeRule", "host weights copied into RAM (-lm none)"),
                     rule.id);
        break;
    default:
        text =
            cited(QCoreApplication::translate(
                      "SizeRule", "host weights copied into the first GPU's pinned host buffer (-lm none)"),
                  rule.id);
        break;
    }
    if (rule.tiedOutput) {
        text = QCoreApplication::translate("SizeRule",
                                           "%1; includes the tied output, a second copy of token_embd")
                   .arg(text);
    }
    return text;
}

} // namespace

QString ruleText(const SizeRule& rule) {
    switch (rule.id) {
    case SizeRuleId::OffloadedWeights:
    case SizeRuleId::MappedHostWeights:
    case SizeRuleId::RepackedHostWeights:
    case SizeRuleId::CopiedHostWeights:
    case SizeRuleId::PinnedHostWeights:
        return weightsText(rule);
    case SizeRuleId::Logits:
        return cited(QCoreApplication::translate("SizeRule", "logits: n_vocab x one row per slot, f32"),
                     rule.id);
    case SizeRuleId::KvCache:
        return cited((rule.swa ? QCoreApplication::translate(
                                     "SizeRule", "SWA KV cache: %1 cells x %2 streams, K %3 + V %4")
                               : QCoreApplication::translate(
                                     "SizeRule", "non-SWA KV cache: %1 cells x %2 streams, K %3 + V %4"))
                         .arg(rule.cells)
                         .arg(rule.streams)
                         .arg(ggmlTypeLabel(rule.typeK), ggmlTypeLabel(rule.typeV)),
                     rule.id);
    case SizeRuleId::RecurrentState:
        return cited(
            QCoreApplication::translate(
                "SizeRule", "recurrent state: %1 rows of f32 conv (R) + SSM (S) state per recurrent layer")
                .arg(rule.cells),
            rule.id);
    case SizeRuleId::ComputeGraph:
        return cited(
            QCoreApplication::translate(
                "SizeRule",
                "peak of ggml-alloc over the worst-case graphs llama-server reserves (a prompt-sized "
                "and a one-token ubatch)"),
            rule.id);
    case SizeRuleId::TokenEmbeddingLookup:
        return QCoreApplication::translate("SizeRule",
                                           "token-embedding lookup on the CPU (every block offloaded)");
    case SizeRuleId::ProjectorWeights:
        return cited(
            QCoreApplication::translate("SizeRule", "vision projector: every tensor of the mmproj file"),
            rule.id);
    case SizeRuleId::ProjectorCompute:
        return cited(
            QCoreApplication::translate(
                "SizeRule", "vision projector warm-up: ggml-alloc over the graph of one %1 x %1 px image")
                .arg(rule.cells),
            rule.id);
    case SizeRuleId::DeviceBuffers:
        return rule.hostDevice
                   ? QCoreApplication::translate("SizeRule",
                                                 "the host's buffers as llama-server -lv 4 logs them")
                   : QCoreApplication::translate("SizeRule",
                                                 "the device's buffers as llama-server -lv 4 logs them");
    case SizeRuleId::HostReservation:
    case SizeRuleId::GpuReservation:
        return QCoreApplication::translate("SizeRule", "machine profile / discovery");
    case SizeRuleId::SharedMemoryCopy:
        return QCoreApplication::translate("SizeRule", "shared memory is system RAM");
    case SizeRuleId::MmapDoubleMapping:
        return QCoreApplication::translate(
            "SizeRule",
            "with mmap the loader reads the GPU's weights through the mapping (src/llama-model-loader.cpp "
            "load_all_data; unmap_fragment drops the mapping, not the cached pages), so on a shared-memory "
            "iGPU they sit in the page cache and in the GPU buffer (llama.cpp PR #16095 comment, "
            "whyvl/ollama-vulkan#18); -lm none avoids it, and is the Vulkan iGPU default "
            "(ggml-vulkan.cpp mmap_support=false)");
    case SizeRuleId::PromptCache:
        return QCoreApplication::translate(
            "SizeRule",
            "tools/server/server-context.cpp server_prompt_cache: saved slot states in host memory, limit "
            "--cache-ram MiB (common/common.h default 8192, -1 no limit)");
    case SizeRuleId::ContextCheckpoints:
        return QCoreApplication::translate(
            "SizeRule",
            "tools/server/server-context.cpp create_checkpoint: up to --ctx-checkpoints per slot (default "
            "32), each one slot's recurrent rows + SWA cells (llama-memory-hybrid.cpp, "
            "llama-kv-cache-iswa.cpp state_write PARTIAL_ONLY)");
    }
    return {};
}

QString poolTermLabel(const PoolTerm& term) {
    const SizeRule& rule = term.rule;
    const QString device = QString::fromStdString(term.device);
    switch (rule.id) {
    case SizeRuleId::HostReservation:
        return QCoreApplication::translate("SizeRule", "OS and other programs");
    case SizeRuleId::GpuReservation:
        return QCoreApplication::translate("SizeRule", "desktop and other GPU users");
    case SizeRuleId::SharedMemoryCopy:
        return QCoreApplication::translate("SizeRule", "%1 buffers in %2")
            .arg(device, QString::fromStdString(rule.pool));
    case SizeRuleId::MmapDoubleMapping:
        return QCoreApplication::translate("SizeRule",
                                           "mmap double mapping: weights also held in the page cache");
    case SizeRuleId::PromptCache:
        return QCoreApplication::translate("SizeRule", "prompt cache (--cache-ram %1)").arg(rule.limitMiB);
    case SizeRuleId::ContextCheckpoints:
        return QCoreApplication::translate("SizeRule", "context checkpoints (%1 per slot x %2 slots)")
            .arg(rule.perSlot)
            .arg(rule.slotCount);
    default:
        break;
    }
    return QCoreApplication::translate("SizeRule", "%1 %2")
        .arg(device, componentLabel(term.component.value_or(Component::Overhead)));
}

} // namespace llamafit
