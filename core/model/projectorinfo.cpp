// Vision projector GGUFs; see projectorinfo.h for the rules and their llama.cpp source.
#include "core/model/projectorinfo.h"

#include <array>

namespace llamafit {
namespace {

// tools/mtmd/clip-impl.h PROJECTOR_TYPE_NAMES as built into 0.7.0's libmtmd.so (read from the
// Debian binary). A name outside this list makes load_hparams throw "unknown projector type".
constexpr std::array<std::string_view, 68> kKnownTypes = {
    "mlp",
    "ldp",
    "ldpv2",
    "resampler",
    "adapter",
    "qwen2vl_merger",
    "qwen2.5vl_merger",
    "qwen3vl_merger",
    "ling3vl",
    "step3vl",
    "gemma3",
    "gemma3nv",
    "gemma3na",
    "gemma4v",
    "gemma4a",
    "gemma4uv",
    "gemma4ua",
    "phi4",
    "idefics3",
    "pixtral",
    "ultravox",
    "internvl",
    "llama4",
    "qwen2a",
    "qwen3a",
    "glma",
    "qwen2.5o",
    "voxtral",
    "meralion",
    "musicflamingo",
    "lfm2",
    "d1omni_v",
    "kimivl",
    "paddleocr",
    "lightonocr",
    "cogvlm",
    "janus_pro",
    "dots_ocr",
    "dots3note_v",
    "dots3note_a",
    "deepseekocr",
    "deepseekocr2",
    "deepseek4v",
    "lfm2a",
    "d1omni_a",
    "glm4v",
    "glm5v",
    "youtuvl",
    "yasa2",
    "kimik25",
    "nemotron_v2_vl",
    "nemotron_omni",
    "exaone4_5",
    "hunyuanvl",
    "minicpmv4_6",
    "minicpmv4_7",
    "granite_speech",
    "mimovl",
    "minimax_m3",
    "granite4_vision",
    "mimo_audio",
    "parakeet",
    "qwen3tts_spkenc",
    "qwen3tts_gen",
    "pockettts_spkenc",
    "pockettts_gen",
    "muse-glimmer",
    "cohere2v",
};

bool knownType(std::string_view name) {
    for (std::string_view known : kKnownTypes) {
        if (known == name) {
            return true;
        }
    }
    return false;
}

Result<std::uint32_t> requiredUint(const GgufFile& file, const std::string& key, const std::string& path) {
    const auto value = file.getUint(key);
    if (!value || *value == 0 || *value > 0x7fffffffu) {
        return makeError("projector.missing-key",
                         path + ": the projector has no positive " + key +
                             " (llama.cpp clip.cpp load_hparams requires it)",
                         {Setting::Projector});
    }
    return static_cast<std::uint32_t>(*value);
}

// n_mmproj_embd (clip.cpp clip_n_mmproj_embd): the width of the projector's last weight.
std::uint64_t outputWidth(const GgufFile& file, ProjectorKind kind) {
    const char* name = kind == ProjectorKind::Gemma3 ? "mm.input_projection.weight" : "mm.2.bias";
    const GgufTensorInfo* tensor = file.findTensor(name);
    return tensor == nullptr ? 0 : tensor->shape[0];
}

} // namespace

std::string_view projectorKindName(ProjectorKind kind) {
    switch (kind) {
    case ProjectorKind::Gemma3:
        return "gemma3";
    case ProjectorKind::Qwen2Vl:
        return "qwen2vl_merger";
    }
    return "";
}

Result<ProjectorInfo> interpretProjector(const GgufFile& file, const std::string& path) {
    if (!file.getBool("clip.has_vision_encoder").value_or(false)) {
        return makeError(
            "projector.not-projector",
            path + " is not a vision projector: clip.has_vision_encoder is not true (general.architecture '" +
                file.getString("general.architecture").value_or("") + "')",
            {Setting::Projector});
    }
    std::string type = file.getString("clip.projector_type").value_or("");
    if (type.empty()) {
        type = file.getString("clip.vision.projector_type").value_or("");
    }
    ProjectorInfo info;
    info.path = path;
    if (type == "gemma3") {
        info.kind = ProjectorKind::Gemma3;
    } else if (type == "qwen2vl_merger") {
        info.kind = ProjectorKind::Qwen2Vl;
    } else if (knownType(type)) {
        return makeError(
            "projector.unsupported-type",
            path + ": projector type '" + type +
                "' loads in llama-server 0.7.0, but LlamaFit sizes only gemma3 and qwen2vl_merger",
            {Setting::Projector});
    } else {
        return makeError("projector.unknown-type",
                         path + ": unknown projector type '" + type +
                             "' (llama.cpp clip.cpp: \"unknown projector type\")",
                         {Setting::Projector});
    }
    for (auto [field, key] : {std::pair{&info.embeddingLength, "clip.vision.embedding_length"},
                              std::pair{&info.headCount, "clip.vision.attention.head_count"},
                              std::pair{&info.feedForwardLength, "clip.vision.feed_forward_length"},
                              std::pair{&info.blockCount, "clip.vision.block_count"},
                              std::pair{&info.imageSize, "clip.vision.image_size"},
                              std::pair{&info.patchSize, "clip.vision.patch_size"}}) {
        auto value = requiredUint(file, key, path);
        if (!value) {
            return value.error();
        }
        *field = *value;
    }
    // clip.cpp load_hparams: gemma3 pools 4x4 unless clip.vision.projector.scale_factor says
    // otherwise; the Qwen-VL mergers join 2x2 patches unless clip.vision.spatial_merge_size does.
    info.mergeSize = static_cast<std::uint32_t>(
        info.kind == ProjectorKind::Gemma3 ? file.getUint("clip.vision.projector.scale_factor").value_or(4)
                                           : file.getUint("clip.vision.spatial_merge_size").value_or(2));
    info.outputEmbeddingLength = static_cast<std::uint32_t>(outputWidth(file, info.kind));
    if (info.mergeSize == 0 || info.outputEmbeddingLength == 0) {
        return makeError("projector.missing-key",
                         path + ": the projector has no merge size or no output projection tensor",
                         {Setting::Projector});
    }
    info.weightBytes = file.tensorBytes();
    return info;
}

Result<bool> checkProjector(const ModelInfo& model, const ProjectorInfo& projector) {
    if (model.embeddingLength != projector.outputEmbeddingLength) {
        return makeError("projector.width-mismatch",
                         "mismatch between text model (n_embd = " + std::to_string(model.embeddingLength) +
                             ") and mmproj (n_embd = " + std::to_string(projector.outputEmbeddingLength) +
                             "): " + projector.path + " was made for another model (llama.cpp mtmd.cpp)",
                         {Setting::Projector});
    }
    return true;
}

} // namespace llamafit
