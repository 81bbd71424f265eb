#include "tests/support/refusedmodels.h"

#include "core/common/units.h"
#include "core/model/loaderchecks.h"
#include "tests/support/ggufedit.h"
#include "tests/support/modelfiles.h"
#include "tests/support/shapecut.h"

#include <algorithm>

namespace llamafit::test {
namespace {

// The tiny model is all f32, so swapping a matrix's dimensions keeps its bytes (and every offset).
void transposeTensor(GgufFile& file, const std::string& name) {
    for (GgufTensorInfo& tensor : file.tensors) {
        if (tensor.name == name) {
            std::swap(tensor.shape[0], tensor.shape[1]);
        }
    }
}

// Packs the data offsets again in table order (llama.cpp refuses any gap: see ggufparser.cpp), so
// the one thing wrong with the file is the one the variant made.
void packTensorData(GgufFile& file) {
    std::uint64_t offset = 0;
    for (GgufTensorInfo& tensor : file.tensors) {
        tensor.dataOffset = offset;
        offset = padTo(offset + tensor.bytes, file.alignment);
    }
}

void removeTensor(GgufFile& file, const std::string& name) {
    std::erase_if(file.tensors, [&](const GgufTensorInfo& tensor) { return tensor.name == name; });
    packTensorData(file);
}

// Halves a 1-D tensor (a norm) and its bytes.
void halveVector(GgufFile& file, const std::string& name) {
    for (GgufTensorInfo& tensor : file.tensors) {
        if (tensor.name == name) {
            tensor.shape[0] /= 2;
            tensor.bytes /= 2;
        }
    }
    packTensorData(file);
}

} // namespace

Result<std::vector<RefusedModel>> loaderRefusedModels() {
    ModelFileOptions options;
    options.realWeights = true;
    Result<GgufFile> tiny = ggufFileForSpec(tinyModelSpec(), options);
    if (!tiny) {
        return tiny.error();
    }
    std::vector<RefusedModel> models;
    const auto variant = [&](std::string name, std::string code, std::string serverSays, auto change) {
        RefusedModel model{std::move(name), std::move(code), std::move(serverSays), *tiny};
        change(model.file);
        model.file.rebuildIndex(); // the lookups index the keys by position
        models.push_back(std::move(model));
    };
    variant("context_length_i32", "model.wrong-key-type", "has wrong type", [](GgufFile& f) {
        setMetadataKey(f, "llama.context_length", GgufValue::fromInt(2048, GgufValueType::Int32));
    });
    variant("block_count_u64", "model.wrong-key-type", "has wrong type", [](GgufFile& f) {
        setMetadataKey(f, "llama.block_count", GgufValue::fromUint(2, GgufValueType::Uint64));
    });
    variant("no_token_list", "model.missing-vocabulary", "cannot find tokenizer vocab",
            [](GgufFile& f) { removeMetadataKey(f, "tokenizer.ggml.tokens"); });
    variant("no_tokenizer_model", "model.missing-vocabulary", "tokenizer.ggml.model",
            [](GgufFile& f) { removeMetadataKey(f, "tokenizer.ggml.model"); });
    variant("fewer_blocks_than_tensors", "model.wrong-tensor-count", "wrong number of tensors",
            [](GgufFile& f) { setMetadataKey(f, "llama.block_count", GgufValue::fromUint(1)); });
    variant("more_blocks_than_tensors", "model.missing-tensor", "not found",
            [](GgufFile& f) { setMetadataKey(f, "llama.block_count", GgufValue::fromUint(3)); });
    variant("rope_dims_not_head_size", "model.bad-rope-dimensions", "invalid n_rot",
            [](GgufFile& f) { setMetadataKey(f, "llama.rope.dimension_count", GgufValue::fromUint(8)); });
    variant("attn_k_transposed", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { transposeTensor(f, "blk.1.attn_k.weight"); });
    variant("attn_v_transposed", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { transposeTensor(f, "blk.0.attn_v.weight"); });
    variant("ffn_down_transposed", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { transposeTensor(f, "blk.0.ffn_down.weight"); });
    variant("ffn_gate_transposed", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { transposeTensor(f, "blk.1.ffn_gate.weight"); });
    variant("output_transposed", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { transposeTensor(f, "output.weight"); });
    variant("output_norm_too_short", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { halveVector(f, "output_norm.weight"); });
    variant("attn_norm_too_short", "model.wrong-tensor-shape", "has wrong shape",
            [](GgufFile& f) { halveVector(f, "blk.1.attn_norm.weight"); });
    variant("no_attn_k", "model.missing-tensor", "not found",
            [](GgufFile& f) { removeTensor(f, "blk.1.attn_k.weight"); });
    variant("no_attn_output", "model.missing-tensor", "not found",
            [](GgufFile& f) { removeTensor(f, "blk.0.attn_output.weight"); });
    variant("no_token_embd", "model.missing-tensor", "not found",
            [](GgufFile& f) { removeTensor(f, "token_embd.weight"); });
    variant("too_many_experts", "model.too-many-experts", "LLAMA_MAX_EXPERTS", [](GgufFile& f) {
        setMetadataKey(f, "llama.expert_count", GgufValue::fromUint(kLlamaMaxExperts + 1));
        setMetadataKey(f, "llama.expert_used_count", GgufValue::fromUint(2));
    });

    // The tokenizer lists 300 tokens while token_embd has the spec's 288 rows.
    ModelSpec longer = tinyModelSpec();
    longer.vocabularySize = 300;
    Result<GgufFile> mismatched = ggufFileForSpec(longer, options);
    if (!mismatched) {
        return mismatched.error();
    }
    models.push_back(
        {"token_embd_not_vocabulary", "model.wrong-tensor-shape", "has wrong shape", *mismatched});

    // DeepSeek-V2-Lite cut to 4 of its 27 layers: no longer a Lite to llama.cpp, which then needs
    // q_lora_rank (src/models/deepseek2.cpp). Sparse: the loader stops at the key.
    Result<ModelSpec> lite = loadShape("deepseek2-mla");
    if (lite) {
        lite = cutShape(*lite, {4, std::nullopt});
    }
    Result<GgufFile> cutLite = lite ? ggufFileForSpec(*lite) : Result<GgufFile>(lite.error());
    if (!cutLite) {
        return cutLite.error();
    }
    models.push_back({"deepseek2_lite_cut", "model.missing-key", "q_lora_rank", *cutLite});
    return models;
}

} // namespace llamafit::test
