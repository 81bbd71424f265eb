// Text output of `estimate` and `inspect`; see textoutput.h.

#include "app/cli/textoutput.h"
#include "app/cli/ruletext.h"

#include "app/cli/commandline.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/modelsummary.h"
#include "app/cli/texttable.h"
#include "core/gguf/ggmltype.h"

#include <cstdio>
#include <ostream>

namespace llamafit {

namespace {

using Align = TextTable::Align;

std::vector<std::string> componentCells(const std::string& name, const ComponentBytes& b) {
    return {name,
            formatMiB(b.modelBytes),
            formatMiB(b.kvBytes),
            formatMiB(b.rsBytes),
            formatMiB(b.outputBytes),
            formatMiB(b.computeBytes),
            formatMiB(b.overheadBytes),
            formatMiB(b.totalBytes())};
}

template <typename Set> std::string joinSet(const Set& values) {
    std::string text;
    for (const auto& value : values) {
        if (!text.empty()) {
            text += '/';
        }
        text += std::to_string(value);
    }
    return text.empty() ? "-" : text;
}

void printList(std::ostream& out, const std::string& title, const std::vector<std::string>& items) {
    if (items.empty()) {
        return;
    }
    out << title << "\n";
    for (const std::string& item : items) {
        out << "  - " << item << "\n";
    }
}

// Only the kinds a model has: "10 full attention, 30 recurrent".
std::string layerCountsText(const LayerCounts& counts) {
    const std::pair<std::uint32_t, const char*> kinds[] = {{counts.full, "full attention"},
                                                           {counts.swa, "SWA"},
                                                           {counts.chunked, "chunked attention"},
                                                           {counts.recurrent, "recurrent"},
                                                           {counts.hybrid, "attention + recurrent"},
                                                           {counts.none, "neither"},
                                                           {counts.nextn, "NextN (outside the main cache)"}};
    std::string text;
    for (const auto& [count, name] : kinds) {
        if (count > 0) {
            text += std::string(text.empty() ? " " : ", ") + std::to_string(count) + " " + name;
        }
    }
    if (counts.sharedKv > 0) {
        text += " (" + std::to_string(counts.sharedKv) + " attention layers reuse earlier KV)";
    }
    return text;
}

std::string billions(std::uint64_t count) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f B", static_cast<double>(count) / 1e9);
    return buffer;
}

void printCaches(std::ostream& out, const MemoryEstimate& estimate) {
    // Same shape as llama.cpp src/llama-kv-cache.cpp's "llama_kv_cache: size = ..." line.
    for (const KvCacheEstimate& kv : estimate.kvCaches) {
        out << (kv.swa ? "KV cache (SWA)  " : "KV cache        ")
            << "size = " << formatMiB(kv.kBytes + kv.vBytes) << " MiB (" << kv.cells << " cells, "
            << kv.layers << " layers, " << kv.streams << (kv.streams == 1 ? " stream" : " streams")
            << "), K (" << ggmlTypeName(kv.typeK) << "): " << formatMiB(kv.kBytes) << " MiB, V ("
            << ggmlTypeName(kv.typeV) << "): " << formatMiB(kv.vBytes) << " MiB\n";
    }
    // src/llama-memory-recurrent.cpp: "llama_memory_recurrent: size = ... R (f32): ..., S (f32): ...".
    if (estimate.rs.layers > 0) {
        const RsEstimate& rs = estimate.rs;
        out << "RS buffer       size = " << formatMiB(rs.rBytes + rs.sBytes) << " MiB (" << rs.cells
            << " cells, " << rs.layers << " layers), R (f32): " << formatMiB(rs.rBytes)
            << " MiB, S (f32): " << formatMiB(rs.sBytes) << " MiB\n";
    }
    if (estimate.mtp) {
        const MtpContextEstimate& mtp = *estimate.mtp;
        out << "MTP draft context (--spec-type draft-mtp): n_ctx = " << mtp.context.nCtx
            << ", n_seq_max = " << mtp.context.nSeqMax << ", n_ubatch = " << mtp.context.nUbatch
            << "; KV size = " << formatMiB(mtp.kv.kBytes + mtp.kv.vBytes) << " MiB (" << mtp.kv.cells
            << " cells, " << mtp.kv.layers << " NextN layers), K (" << ggmlTypeName(mtp.kv.typeK) << "), V ("
            << ggmlTypeName(mtp.kv.typeV) << ")\n";
    }
    if (estimate.draft) {
        const DraftContextEstimate& draft = *estimate.draft;
        std::uint64_t kvBytes = 0;
        for (const KvCacheEstimate& kv : draft.kvCaches) {
            kvBytes += kv.kBytes + kv.vBytes;
        }
        out << "Draft model context (-md): n_ctx = " << draft.context.nCtx
            << ", n_seq_max = " << draft.context.nSeqMax << ", n_ubatch = " << draft.context.nUbatch
            << "; KV size = " << formatMiB(kvBytes) << " MiB";
        if (!draft.kvCaches.empty()) {
            out << ", K (" << ggmlTypeName(draft.kvCaches.front().typeK) << "), V ("
                << ggmlTypeName(draft.kvCaches.front().typeV) << ")";
        }
        out << "; " << draft.gpuLayers << " layers on GPUs\n";
    }
}

} // namespace

std::string modelLine(const LoadedModel& model) {
    const std::string where = model.cardId.empty() ? model.path : "card " + model.cardId;
    return model.displayName + " (" + where + ", " + model.info.architecture + ")";
}

void printFlagLists(std::ostream& out, const ParsedServerArgs& args) {
    printList(out, "Flag spellings", args.notes);
    printList(out, "Not modelled (these flags change memory; the estimate leaves them out)",
              args.unmodelledFlags);
    if (!args.ignoredFlags.empty()) {
        out << "Flags not affecting memory: " << joinArgs(args.ignoredFlags) << "\n";
    }
}

void printEstimateText(std::ostream& out, const LoadedModel& model, const ParsedServerArgs& args,
                       const MemoryEstimate& estimate) {
    const ResolvedContext& c = estimate.context;
    const std::vector<std::string> serverArgs = toServerArgs(args.settings);
    out << "Model     " << modelLine(model) << "\n";
    out << "Flags     " << (serverArgs.empty() ? "(llama-server defaults)" : joinArgs(serverArgs)) << "\n";
    out << "Context   n_ctx = " << c.nCtx << ", n_ctx_seq = " << c.nCtxSeq << ", n_seq_max = " << c.nSeqMax
        << ", kv_unified = " << (c.kvUnified ? "true" : "false") << ", n_batch = " << c.nBatch
        << ", n_ubatch = " << c.nUbatch << ", flash_attn = " << (c.flashAttention ? "on" : "off") << "\n";
    if (!args.gpus.empty()) {
        out << "Offload   " << estimate.gpuLayers
            << " layers on GPUs (the output layer counts as one, like -ngl)\n";
    }
    out << "\n";

    TextTable table({"MiB", "model", "KV", "RS", "output", "compute", "overhead", "total"},
                    {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
                     Align::Right, Align::Right});
    for (const DeviceEstimate& device : estimate.devices) {
        table.addRow(componentCells(device.name, device.bytes));
    }
    table.addRow(componentCells("total", estimate.totals));
    table.print(out, "");
    out << "(overhead: LlamaFit's allowance for memory outside llama.cpp's buffers; no log line reports "
           "it)\n\n";

    out << "Buffers (as llama-server -lv 4 logs them)\n";
    TextTable buffers({"device", "buffer", "component", "MiB", "rule"},
                      {Align::Left, Align::Left, Align::Left, Align::Right, Align::Left});
    for (const DeviceEstimate& device : estimate.devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            const std::string owner = buffer.owner == BufferOwner::Main
                                          ? ""
                                          : " (" + std::string(bufferOwnerName(buffer.owner)) + ")";
            buffers.addRow({device.name, buffer.bufferType,
                            std::string(componentName(buffer.component)) + owner, formatMiB(buffer.bytes),
                            ruleText(buffer.rule)});
        }
    }
    buffers.print(out);
    out << "\n";
    printCaches(out, estimate);
    out << "Compute buffers: "
        << (estimate.computeApproximation.empty() ? std::string("llama.cpp's graph, scheduler and allocator")
                                                  : "approximate (" + estimate.computeApproximation + ")")
        << "\n";
    printList(out, "Notes", estimate.notes);
    printFlagLists(out, args);
}

void printInspectText(std::ostream& out, const LoadedModel& model) {
    const ModelInfo& info = model.info;
    const LayerCounts counts = countLayers(info);
    const LayerWidths widths = layerWidths(info);
    out << "Model         " << modelLine(model) << "\n";
    out << "Architecture  " << info.architecture
        << (info.knownArchitecture ? "" : " (unknown: generic transformer rules, see warnings)") << "\n";
    out << "Layers        " << info.blockCount << " blocks:" << layerCountsText(counts) << "\n";
    out << "Layer map     " << layerMap(info) << "\n";
    out << "              F full, S SWA, C chunked, R recurrent, B both, - neither, N NextN; lower case: "
           "shared KV\n";
    out << "Heads         " << info.headCount << " query heads; KV heads " << joinSet(widths.headCountKv)
        << "; head dim K " << joinSet(widths.keyHeadDim) << ", V " << joinSet(widths.valueHeadDim)
        << (info.mla ? " (MLA: K only, V is a view of K)" : "") << "\n";
    if (!widths.recurrentConvWidth.empty()) {
        out << "Recurrent     per sequence: conv/shift state " << joinSet(widths.recurrentConvWidth)
            << " floats (n_embd_r), SSM/WKV state " << joinSet(widths.recurrentStateWidth)
            << " floats (n_embd_s)\n";
    }
    out << "Training ctx  " << info.trainingContext << "\n";
    out << "Embedding     " << info.embeddingLength << ", vocabulary " << info.vocabularySize;
    if (info.slidingWindow > 0) {
        out << ", sliding window " << info.slidingWindow;
    }
    out << "\n";
    if (info.isMoe()) {
        out << "Experts       " << info.expertCount << " (" << info.expertUsedCount << " used), expert FFN "
            << info.expertFeedForwardLength << ", shared expert FFN " << info.sharedExpertFeedForwardLength
            << "\n";
    }
    out << "Output        "
        << (info.tiedOutput ? "tied to token_embd (a copy sits on the output device)"
                            : "separate output.weight")
        << "\n";
    out << "Weights       " << formatGiB(info.weightBytes()) << " GiB (" << formatMiB(info.weightBytes())
        << " MiB)\n";
    TextTable types({"type", "MiB"}, {Align::Left, Align::Right});
    for (const auto& [type, bytes] : info.weightBytesByType()) {
        types.addRow({std::string(ggmlTypeName(type)), formatMiB(bytes)});
    }
    types.print(out, "              ");
    out << "Parameters    " << billions(info.parameterCount()) << " total, "
        << billions(info.activeParameterCount()) << " active per token\n";
    printList(out, "Warnings", info.warnings);
}

} // namespace llamafit
