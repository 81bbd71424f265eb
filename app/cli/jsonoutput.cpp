// JSON of llamafit-cli; the field list is in jsonoutput.h.

#include "app/cli/jsonoutput.h"
#include "app/cli/ruletext.h"

#include "app/cli/modelsummary.h"
#include "core/gguf/ggmltype.h"

namespace llamafit {

namespace {

constexpr std::string_view kOverheadNote = "overhead_bytes is LlamaFit's allowance for memory outside "
                                           "llama.cpp's buffers (backend context, driver); "
                                           "no llama-server log line reports it";

std::string_view flashAttentionName(bool on) {
    return on ? "on" : "off";
}

Json deviceJson(const DeviceEstimate& device, const std::vector<GpuDevice>& gpus) {
    Json json;
    json["name"] = device.name;
    json["host"] = device.host;
    bool integrated = false;
    for (const GpuDevice& gpu : gpus) {
        integrated = integrated || (gpu.name == device.name && gpu.integrated);
    }
    json["integrated"] = integrated;
    json.update(componentBytesJson(device.bytes));
    Json buffers = Json::array();
    for (const BufferEstimate& buffer : device.buffers) {
        buffers.push_back({{"buffer_type", buffer.bufferType},
                           {"component", componentName(buffer.component)},
                           {"owner", bufferOwnerName(buffer.owner)},
                           {"bytes", buffer.bytes},
                           {"rule", ruleText(buffer.rule)}});
    }
    json["buffers"] = std::move(buffers);
    return json;
}

Json layersJson(const ModelInfo& info) {
    Json layers = Json::array();
    for (std::size_t i = 0; i < info.layers.size(); ++i) {
        const LayerInfo& layer = info.layers[i];
        layers.push_back({{"index", i},
                          {"kind", std::string(1, layerSymbol(layer))},
                          {"attention", attentionKindName(layer.attention)},
                          {"has_kv", layer.hasKv},
                          {"recurrent", layer.recurrent},
                          {"nextn", layer.nextn},
                          {"head_count", layer.headCount},
                          {"head_count_kv", layer.headCountKv},
                          {"key_head_dim", layer.keyHeadDim},
                          {"value_head_dim", layer.valueHeadDim},
                          {"recurrent_conv_width", layer.recurrentConvWidth},
                          {"recurrent_state_width", layer.recurrentStateWidth},
                          {"feed_forward_length", layer.feedForwardLength}});
    }
    return layers;
}

} // namespace

Json modelJson(const LoadedModel& model) {
    Json json;
    json["id"] = model.cardId.empty() ? model.argument : model.cardId;
    json["path"] = model.path.empty() ? Json(nullptr) : Json(model.path);
    json["card"] = !model.cardId.empty();
    json["name"] = model.displayName;
    json["architecture"] = model.info.architecture;
    json["source"] = model.source;
    return json;
}

Json componentBytesJson(const ComponentBytes& bytes) {
    return {{"model_bytes", bytes.modelBytes},     {"kv_bytes", bytes.kvBytes},
            {"rs_bytes", bytes.rsBytes},           {"output_bytes", bytes.outputBytes},
            {"compute_bytes", bytes.computeBytes}, {"overhead_bytes", bytes.overheadBytes},
            {"total_bytes", bytes.totalBytes()}};
}

Json estimateJson(const LoadedModel& model, const ParsedServerArgs& args, const MemoryEstimate& estimate) {
    Json json;
    json["model"] = modelJson(model);
    json["settings"] = {{"args", toServerArgs(args.settings)}};
    const ResolvedContext& c = estimate.context;
    json["context"] = {{"n_ctx", c.nCtx},
                       {"n_ctx_seq", c.nCtxSeq},
                       {"n_seq_max", c.nSeqMax},
                       {"kv_unified", c.kvUnified},
                       {"n_batch", c.nBatch},
                       {"n_ubatch", c.nUbatch},
                       {"flash_attn", flashAttentionName(c.flashAttention)},
                       {"n_outputs", c.nOutputs}};
    json["totals"] = componentBytesJson(estimate.totals);
    json["totals"]["note"] = kOverheadNote;
    Json devices = Json::array();
    for (const DeviceEstimate& device : estimate.devices) {
        devices.push_back(deviceJson(device, args.gpus));
    }
    json["devices"] = std::move(devices);
    Json caches = Json::array();
    for (const KvCacheEstimate& kv : estimate.kvCaches) {
        caches.push_back({{"swa", kv.swa},
                          {"cells", kv.cells},
                          {"layers", kv.layers},
                          {"streams", kv.streams},
                          {"type_k", ggmlTypeName(kv.typeK)},
                          {"type_v", ggmlTypeName(kv.typeV)},
                          {"k_bytes", kv.kBytes},
                          {"v_bytes", kv.vBytes}});
    }
    json["kv_caches"] = std::move(caches);
    json["rs"] = {{"cells", estimate.rs.cells},
                  {"rs_seq", estimate.rs.rsSeq},
                  {"layers", estimate.rs.layers},
                  {"r_bytes", estimate.rs.rBytes},
                  {"s_bytes", estimate.rs.sBytes}};
    // --spec-type draft-mtp: the MTP draft context (its buffers are the devices' "mtp-draft" ones).
    if (estimate.mtp) {
        const MtpContextEstimate& mtp = *estimate.mtp;
        json["mtp_draft_context"] = {{"n_ctx", mtp.context.nCtx},
                                     {"n_seq_max", mtp.context.nSeqMax},
                                     {"n_ubatch", mtp.context.nUbatch},
                                     {"n_outputs", mtp.context.nOutputs},
                                     {"kv_cells", mtp.kv.cells},
                                     {"kv_layers", mtp.kv.layers},
                                     {"kv_type_k", ggmlTypeName(mtp.kv.typeK)},
                                     {"kv_type_v", ggmlTypeName(mtp.kv.typeV)},
                                     {"k_bytes", mtp.kv.kBytes},
                                     {"v_bytes", mtp.kv.vBytes}};
    }
    // -md: the draft model's context (its buffers are the devices' "draft-model" ones).
    if (estimate.draft) {
        const DraftContextEstimate& draft = *estimate.draft;
        Json draftCaches = Json::array();
        for (const KvCacheEstimate& kv : draft.kvCaches) {
            draftCaches.push_back({{"swa", kv.swa},
                                   {"cells", kv.cells},
                                   {"layers", kv.layers},
                                   {"type_k", ggmlTypeName(kv.typeK)},
                                   {"type_v", ggmlTypeName(kv.typeV)},
                                   {"k_bytes", kv.kBytes},
                                   {"v_bytes", kv.vBytes}});
        }
        json["draft_model_context"] = {
            {"n_ctx", draft.context.nCtx},       {"n_seq_max", draft.context.nSeqMax},
            {"n_ubatch", draft.context.nUbatch}, {"n_outputs", draft.context.nOutputs},
            {"gpu_layers", draft.gpuLayers},     {"kv_caches", std::move(draftCaches)}};
    }
    json["gpu_layers"] = estimate.gpuLayers;
    Json notes = estimate.notes;
    for (const std::string& note : args.notes) {
        notes.push_back(note);
    }
    json["notes"] = std::move(notes);
    // "graph": llama.cpp's graph, scheduler and allocator replayed; else the closed form and why.
    json["compute_sizing"] = estimate.computeApproximation.empty()
                                 ? std::string("graph")
                                 : "approximate: " + estimate.computeApproximation;
    // ggml's reason where llama-server aborts at these settings (MemoryEstimate::serverAborts).
    json["server_aborts"] = estimate.serverAborts.empty() ? Json() : Json(estimate.serverAborts);
    json["unmodelled_flags"] = args.unmodelledFlags;
    json["ignored_flags"] = args.ignoredFlags;
    return json;
}

Json inspectJson(const LoadedModel& model) {
    const ModelInfo& info = model.info;
    const LayerCounts counts = countLayers(info);
    Json json;
    json["model"] = modelJson(model);
    json["architecture"] = info.architecture;
    json["known_architecture"] = info.knownArchitecture;
    json["block_count"] = info.blockCount;
    json["trunk_layers"] = info.trunkLayerCount();
    json["training_context"] = info.trainingContext;
    json["embedding_length"] = info.embeddingLength;
    json["head_count"] = info.headCount;
    json["vocabulary_size"] = info.vocabularySize;
    json["sliding_window"] = info.slidingWindow;
    json["mla"] = info.mla;
    json["tied_output"] = info.tiedOutput;
    json["experts"] = {{"count", info.expertCount},
                       {"used", info.expertUsedCount},
                       {"feed_forward_length", info.expertFeedForwardLength},
                       {"shared_feed_forward_length", info.sharedExpertFeedForwardLength}};
    json["ssm"] = {{"conv_kernel", info.ssmConvKernel},
                   {"inner_size", info.ssmInnerSize},
                   {"state_size", info.ssmStateSize},
                   {"group_count", info.ssmGroupCount}};
    json["layer_counts"] = {{"full", counts.full},          {"swa", counts.swa},
                            {"chunked", counts.chunked},    {"recurrent", counts.recurrent},
                            {"hybrid", counts.hybrid},      {"none", counts.none},
                            {"shared_kv", counts.sharedKv}, {"nextn", counts.nextn}};
    json["layer_map"] = layerMap(info);
    json["layers"] = layersJson(info);
    Json byType = Json::object();
    for (const auto& [type, bytes] : info.weightBytesByType()) {
        byType[std::string(ggmlTypeName(type))] = bytes;
    }
    json["weights"] = {{"total_bytes", info.weightBytes()}, {"by_type", std::move(byType)}};
    json["parameters"] = {{"total", info.parameterCount()}, {"active", info.activeParameterCount()}};
    json["file_bytes"] = info.fileBytes;
    json["warnings"] = info.warnings;
    return json;
}

void printJson(std::ostream& out, const Json& object) {
    out << object.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

} // namespace llamafit
