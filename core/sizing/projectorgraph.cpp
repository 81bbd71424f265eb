// The projectors' warm-up graphs; see projectorgraph.h. Tensor sizes: f32 activations, f16 for
// im2col (the patch kernel's type) and for flash attention's K/V casts, i32 positions.
#include "core/sizing/projectorgraph.h"

#include "core/sizing/graphreplay.h"

namespace llamafit {
namespace {

using Id = GraphReplay::Id;
using Layout = GraphReplay::Layout;
using namespace replay;

struct ProjectorDims {
    std::uint64_t embd = 0;    // n_embd
    std::uint64_t heads = 0;   // n_head
    std::uint64_t headDim = 0; // d_head
    std::uint64_t ffn = 0;     // n_ff
    std::uint64_t patches = 0; // n_patches
    std::uint64_t side = 0;    // patches per side
    std::uint64_t pixels = 0;  // image side
    std::uint64_t patch = 0;   // patch side
};

ProjectorDims dimsOf(const ProjectorInfo& p, std::uint32_t imageSide) {
    ProjectorDims d;
    d.embd = p.embeddingLength;
    d.heads = p.headCount;
    d.headDim = d.embd / d.heads;
    d.ffn = p.feedForwardLength;
    d.side = imageSide / p.patchSize;
    d.patches = d.side * d.side;
    d.pixels = imageSide;
    d.patch = p.patchSize;
    return d;
}

// build_norm with weight and bias: norm (a new tensor), then mul and add in place.
Id layerNorm(GraphReplay& g, Id x, const ProjectorDims& d) {
    const Id norm = g.node(f32(d.embd, d.patches), {x});
    return g.node(f32(d.embd, d.patches), {g.node(f32(d.embd, d.patches), {norm}, kInPlace)}, kInPlace);
}

// q/k/v projection with bias, reshaped to [d_head, n_head, n_patches].
Id projection(GraphReplay& g, Id x, const ProjectorDims& d) {
    const Id mm = g.node(f32(d.embd, d.patches), {x});
    return g.view(g.node(f32(d.embd, d.patches), {mm}, kInPlace));
}

// clip_graph::build_attn from the roped Q and K and the reshaped V to the output projection's input.
Id attention(GraphReplay& g, Id q, Id k, Id v, const ProjectorDims& d, bool flash) {
    if (flash) {
        // Q permuted; K and V permuted and cast to f16; flash_attn_ext; reshaped to [n_embd, n_patches].
        const Id qp = g.view(q);
        const Id kc = g.node(f16(d.headDim, d.patches, d.heads), {g.view(k)});
        const Id vc = g.node(f16(d.headDim, d.patches, d.heads), {g.view(v)});
        return g.view(g.node(f32(d.headDim, d.heads, d.patches), {qp, kc, vc}));
    }
    // V permuted and made contiguous; kq = K*Q (n_patches^2 per head), soft_max in place; kqv;
    // permuted and made contiguous.
    const Id vc = g.node(f32(d.patches, d.headDim, d.heads), {g.view(v)});
    const Id kp = g.view(k);
    const Id qp = g.view(q);
    const Id kq = g.node(f32(d.patches, d.patches, d.heads), {kp, qp});
    const Id softmax = g.node(f32(d.patches, d.patches, d.heads), {kq}, kInPlace);
    const Id kqv = g.node(f32(d.headDim, d.patches, d.heads), {vc, softmax});
    return g.node(f32(d.embd, d.patches), {g.view(kqv)});
}

// One pre-norm transformer block: attention (with `rope` for the Qwen-VL towers) and the FFN,
// each added back to the residual in place. `beforeAttention` runs after V (gemma3's last block
// builds the transposed projection weight there).
Id block(GraphReplay& g, Id residual, const ProjectorDims& d, bool flash, Id positions, bool rope) {
    const Id x = layerNorm(g, residual, d);
    Id q = projection(g, x, d);
    if (rope) {
        q = g.node(f32(d.headDim, d.heads, d.patches), {q, positions}, kInPlace);
    }
    Id k = projection(g, x, d);
    if (rope) {
        k = g.node(f32(d.headDim, d.heads, d.patches), {k, positions}, kInPlace);
    }
    const Id v = projection(g, x, d);
    const Id attn = attention(g, q, k, v, d, flash);
    const Id out = g.node(f32(d.embd, d.patches), {g.node(f32(d.embd, d.patches), {attn})}, kInPlace);
    const Id ffnInput = g.node(f32(d.embd, d.patches), {out, residual}, kInPlace);
    const Id y = layerNorm(g, ffnInput, d);
    const Id up = g.node(f32(d.ffn, d.patches), {g.node(f32(d.ffn, d.patches), {y})}, kInPlace);
    const Id act = g.node(f32(d.ffn, d.patches), {up}, kInPlace);
    const Id down = g.node(f32(d.embd, d.patches), {g.node(f32(d.embd, d.patches), {act})}, kInPlace);
    return g.node(f32(d.embd, d.patches), {ffnInput, down}, kInPlace);
}

// clip.cpp build_inp's patch embedding: im2col of the image (f16), the kernel's mul_mat, and
// the result reshaped, permuted and made contiguous as [side, side, n_embd].
Id patchEmbedding(GraphReplay& g, Id image, const ProjectorDims& d) {
    const Id cols = g.node(f16(3 * d.patch * d.patch, d.side, d.side), {image});
    const Id mm = g.node(f32(d.patches, d.embd), {g.view(cols)});
    return g.node(f32(d.side, d.side, d.embd), {g.view(g.view(mm))});
}

// tools/mtmd/models/siglip.cpp for gemma3: build_inp (+ patch bias), learned positions, the ViT
// blocks, post-norm, then transpose, 2-D average pooling by n_merge, transpose back, rms_norm,
// soft-embedding norm and the input projection.
std::uint64_t gemma3Bytes(const ProjectorInfo& p, const ProjectorDims& d, bool flash) {
    GraphReplay g;
    const Id image = g.input(f32(d.pixels, d.pixels, 3));
    const Id conv = patchEmbedding(g, image, d);
    const Id flat = g.node(f32(d.embd, d.patches), {g.view(g.view(conv))});
    const Id biased = g.node(f32(d.embd, d.patches), {flat}, kInPlace);
    Id residual = g.view(g.node(f32(d.embd, d.patches), {biased}, kInPlace));
    Id projectionWeight = 0;
    for (std::uint32_t il = 0; il < p.blockCount; ++il) {
        if (il + 1 == p.blockCount) {
            // ggml orders the transposed projection weight's copy before the last block's attention.
            projectionWeight = g.node(f16(d.embd, p.outputEmbeddingLength), {});
        }
        residual = block(g, residual, d, flash, 0, false);
    }
    const Id post = layerNorm(g, residual, d);
    const Id grid = g.node(f32(d.side, d.side, d.embd), {g.view(g.view(post))});
    const std::uint64_t pooledSide = d.side / p.mergeSize;
    const std::uint64_t tokens = pooledSide * pooledSide;
    const Id pooled = g.node(f32(pooledSide, pooledSide, d.embd), {grid});
    const Id rows = g.node(f32(d.embd, tokens), {g.view(g.view(pooled))});
    const Id normed = g.node(f32(d.embd, tokens), {g.node(f32(d.embd, tokens), {rows}, kInPlace)}, kInPlace);
    g.node(f32(p.outputEmbeddingLength, tokens), {projectionWeight, normed});
    return g.plannedBytes();
}

// tools/mtmd/models/qwen2vl.cpp: two patch kernels added, regrouped by 2x2 patches, the ViT
// blocks with M-RoPE, post-norm, then the merger MLP on 4 patches at a time.
std::uint64_t qwen2VlBytes(const ProjectorInfo& p, const ProjectorDims& d, bool flash) {
    GraphReplay g;
    const Id image = g.input(f32(d.pixels, d.pixels, 3));
    const Id positions = g.input({4, {4 * d.patches, 1, 1, 1}});
    const Id first = patchEmbedding(g, image, d);
    const Id second = patchEmbedding(g, image, d);
    const Id sum = g.node(f32(d.side, d.side, d.embd), {first, second}, kInPlace);
    const Id regrouped = g.node(f32(d.embd, d.patches), {g.view(sum)});
    Id residual = g.node(f32(d.embd, d.patches), {g.view(g.view(regrouped))});
    for (std::uint32_t il = 0; il < p.blockCount; ++il) {
        residual = block(g, residual, d, flash, positions, true);
    }
    const Id post = g.view(layerNorm(g, residual, d));
    const std::uint64_t merged = std::uint64_t{p.mergeSize} * p.mergeSize;
    const std::uint64_t tokens = d.patches / merged;
    const Id up =
        g.node(f32(merged * d.embd, tokens), {g.node(f32(merged * d.embd, tokens), {post})}, kInPlace);
    const Id act = g.node(f32(merged * d.embd, tokens), {up}, kInPlace);
    const Id down = g.node(f32(p.outputEmbeddingLength, tokens), {act});
    g.node(f32(p.outputEmbeddingLength, tokens), {down}, kInPlace);
    return g.plannedBytes();
}

} // namespace

std::uint64_t projectorGraphBytes(const ProjectorInfo& projector, std::uint32_t imageSide,
                                  bool flashAttention) {
    const ProjectorDims d = dimsOf(projector, imageSide);
    if (d.heads == 0 || d.patches == 0) {
        return 0;
    }
    switch (projector.kind) {
    case ProjectorKind::Gemma3:
        return gemma3Bytes(projector, d, flashAttention);
    case ProjectorKind::Qwen2Vl:
        return qwen2VlBytes(projector, d, flashAttention);
    }
    return 0;
}

} // namespace llamafit
