#!/usr/bin/env python3
"""Writes the model specs (ModelSpec JSON, core/model/modelspec.cpp) of the public logs.

Each public log names its model's geometry in its print_info lines or its model card; this
script turns a compact geometry into the full tensor table llama.cpp builds for the
architecture (src/models/<arch>.cpp), with one weight type for the 2-D tensors and another
for the output/embedding matrix. Real files mix quant types per tensor, so the model buffers
these specs give are close, not exact (the test's weight tolerance says how close).

Run from this folder: python3 make_specs.py  (writes specs/<name>.json)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def meta(arch, key, typ, value):
    return {"key": f"{arch}.{key}" if key else arch, "type": typ, "value": value}


def dense(g):
    """llama / qwen2 / qwen2vl / qwen3: attention + gated FFN in every block."""
    a, e, n = g["arch"], g["n_embd"], g["n_layer"]
    hd, h, kv, ff, w = g["head_dim"], g["n_head"], g["n_head_kv"], g["n_ff"], g["wtype"]
    md = [
        {"key": "general.architecture", "type": "string", "value": a},
        {"key": "general.name", "type": "string", "value": g["name"]},
        {"key": f"{a}.block_count", "type": "u32", "value": n},
        {"key": f"{a}.context_length", "type": "u32", "value": g["n_ctx_train"]},
        {"key": f"{a}.embedding_length", "type": "u32", "value": e},
        {"key": f"{a}.feed_forward_length", "type": "u32", "value": ff},
        {"key": f"{a}.attention.head_count", "type": "u32", "value": h},
        {"key": f"{a}.attention.head_count_kv", "type": "u32", "value": kv},
        {"key": f"{a}.attention.layer_norm_rms_epsilon", "type": "f32", "value": 1e-06},
        {"key": f"{a}.rope.freq_base", "type": "f32", "value": 1000000.0},
        {"key": f"{a}.attention.key_length", "type": "u32", "value": hd},
        {"key": f"{a}.attention.value_length", "type": "u32", "value": hd},
        {"key": f"{a}.rope.dimension_count", "type": "u32", "value": hd},
    ]
    if a == "qwen2vl":
        md.append({"key": f"{a}.rope.dimension_sections", "type": "i32[]", "value": [16, 24, 24, 0]})
    t = [{"name": "token_embd.weight", "type": g["embd_type"], "shape": [e, g["n_vocab"]]}]
    if g.get("rope_freqs"):
        # Llama 3.1 / 3.2 files: convert_hf_to_gguf.py writes the llama3 rope scaling's factors,
        # [n_rot / 2] f32, which llama.cpp loads with block 0 and copies per buffer type.
        t += [{"name": "rope_freqs.weight", "type": "f32", "shape": [hd // 2]}]
    t += [{"name": "blk.{i}.attn_norm.weight", "type": "f32", "shape": [e]},
         {"name": "blk.{i}.attn_q.weight", "type": w, "shape": [e, h * hd]},
         {"name": "blk.{i}.attn_k.weight", "type": w, "shape": [e, kv * hd]},
         {"name": "blk.{i}.attn_v.weight", "type": w, "shape": [e, kv * hd]},
         {"name": "blk.{i}.attn_output.weight", "type": w, "shape": [h * hd, e]}]
    if a in ("qwen2", "qwen2vl"):
        t += [{"name": "blk.{i}.attn_q.bias", "type": "f32", "shape": [h * hd]},
              {"name": "blk.{i}.attn_k.bias", "type": "f32", "shape": [kv * hd]},
              {"name": "blk.{i}.attn_v.bias", "type": "f32", "shape": [kv * hd]}]
    if a == "qwen3":
        t += [{"name": "blk.{i}.attn_q_norm.weight", "type": "f32", "shape": [hd]},
              {"name": "blk.{i}.attn_k_norm.weight", "type": "f32", "shape": [hd]}]
    t += [{"name": "blk.{i}.ffn_norm.weight", "type": "f32", "shape": [e]},
          {"name": "blk.{i}.ffn_gate.weight", "type": w, "shape": [e, ff]},
          {"name": "blk.{i}.ffn_up.weight", "type": w, "shape": [e, ff]},
          {"name": "blk.{i}.ffn_down.weight", "type": g.get("down_type", w), "shape": [ff, e]},
          {"name": "output_norm.weight", "type": "f32", "shape": [e]}]
    if not g.get("tied"):
        t.append({"name": "output.weight", "type": g["output_type"], "shape": [e, g["n_vocab"]]})
    return md, t


def qwen35(g):
    """Qwen3.5 dense (src/models/qwen35.cpp): gated delta net blocks, full attention every 4th."""
    a, e, n = "qwen35", g["n_embd"], g["n_layer"]
    hd, h, kv, ff, w = g["head_dim"], g["n_head"], g["n_head_kv"], g["n_ff"], g["wtype"]
    inner, state, groups, vheads = g["ssm_inner"], 128, 16, g["ssm_inner"] // 128
    conv = inner + 2 * groups * state
    md = [
        {"key": "general.architecture", "type": "string", "value": a},
        {"key": "general.name", "type": "string", "value": g["name"]},
        {"key": f"{a}.block_count", "type": "u32", "value": n},
        {"key": f"{a}.context_length", "type": "u32", "value": 262144},
        {"key": f"{a}.embedding_length", "type": "u32", "value": e},
        {"key": f"{a}.feed_forward_length", "type": "u32", "value": ff},
        {"key": f"{a}.attention.head_count", "type": "u32", "value": h},
        {"key": f"{a}.attention.head_count_kv", "type": "u32", "value": kv},
        {"key": f"{a}.attention.layer_norm_rms_epsilon", "type": "f32", "value": 1e-06},
        {"key": f"{a}.rope.freq_base", "type": "f32", "value": 10000000.0},
        {"key": f"{a}.attention.key_length", "type": "u32", "value": hd},
        {"key": f"{a}.attention.value_length", "type": "u32", "value": hd},
        {"key": f"{a}.rope.dimension_count", "type": "u32", "value": 64},
        {"key": f"{a}.rope.dimension_sections", "type": "i32[]", "value": [11, 11, 10, 0]},
        {"key": f"{a}.ssm.conv_kernel", "type": "u32", "value": 4},
        {"key": f"{a}.ssm.state_size", "type": "u32", "value": state},
        {"key": f"{a}.ssm.group_count", "type": "u32", "value": groups},
        {"key": f"{a}.ssm.time_step_rank", "type": "u32", "value": vheads},
        {"key": f"{a}.ssm.inner_size", "type": "u32", "value": inner},
        {"key": f"{a}.full_attention_interval", "type": "u32", "value": 4},
    ]
    rec = {"except_every": 4, "offset": 3}
    att = {"every": 4, "offset": 3}
    t = [{"name": "token_embd.weight", "type": g["embd_type"], "shape": [e, g["n_vocab"]]}]
    if g.get("rope_freqs"):
        # Llama 3.1 / 3.2 files: convert_hf_to_gguf.py writes the llama3 rope scaling's factors,
        # [n_rot / 2] f32, which llama.cpp loads with block 0 and copies per buffer type.
        t += [{"name": "rope_freqs.weight", "type": "f32", "shape": [hd // 2]}]
    t += [{"name": "blk.{i}.attn_norm.weight", "type": "f32", "shape": [e]},
         {"name": "blk.{i}.post_attention_norm.weight", "type": "f32", "shape": [e]},
         {"name": "blk.{i}.attn_qkv.weight", "type": w, "shape": [e, conv], "layers": rec},
         {"name": "blk.{i}.attn_gate.weight", "type": w, "shape": [e, inner], "layers": rec},
         {"name": "blk.{i}.ssm_conv1d.weight", "type": "f32", "shape": [4, conv], "layers": rec},
         {"name": "blk.{i}.ssm_dt.bias", "type": "f32", "shape": [vheads], "layers": rec},
         {"name": "blk.{i}.ssm_a", "type": "f32", "shape": [vheads], "layers": rec},
         {"name": "blk.{i}.ssm_beta.weight", "type": w, "shape": [e, vheads], "layers": rec},
         {"name": "blk.{i}.ssm_alpha.weight", "type": w, "shape": [e, vheads], "layers": rec},
         {"name": "blk.{i}.ssm_norm.weight", "type": "f32", "shape": [state], "layers": rec},
         {"name": "blk.{i}.ssm_out.weight", "type": w, "shape": [inner, e], "layers": rec},
         {"name": "blk.{i}.attn_q.weight", "type": w, "shape": [e, 2 * h * hd], "layers": att},
         {"name": "blk.{i}.attn_k.weight", "type": w, "shape": [e, kv * hd], "layers": att},
         {"name": "blk.{i}.attn_v.weight", "type": w, "shape": [e, kv * hd], "layers": att},
         {"name": "blk.{i}.attn_output.weight", "type": w, "shape": [h * hd, e], "layers": att},
         {"name": "blk.{i}.attn_q_norm.weight", "type": "f32", "shape": [hd], "layers": att},
         {"name": "blk.{i}.attn_k_norm.weight", "type": "f32", "shape": [hd], "layers": att},
         {"name": "blk.{i}.ffn_gate.weight", "type": w, "shape": [e, ff]},
         {"name": "blk.{i}.ffn_up.weight", "type": w, "shape": [e, ff]},
         {"name": "blk.{i}.ffn_down.weight", "type": g.get("down_type", w), "shape": [ff, e]},
         {"name": "output_norm.weight", "type": "f32", "shape": [e]},
         {"name": "output.weight", "type": g["output_type"], "shape": [e, g["n_vocab"]]}]
    return md, t


# The geometries, each from the print_info lines of its log (or the model's card where the
# excerpt has none; "source" says which).
MODELS = {
    "qwen3-4b-q4_k_m": dict(
        family=dense, arch="qwen3", name="Qwen3-4B", n_embd=2560, n_layer=36, n_head=32,
        n_head_kv=8, head_dim=128, n_ff=9728, n_vocab=151936, n_ctx_train=40960, tied=True,
        wtype="q4_K", down_type="q6_K", embd_type="q6_K", output_type="q6_K",
        source="Qwen/Qwen3-4B config.json (hidden 2560, 36 layers, 32 heads, 8 KV x 128, "
               "intermediate 9728, vocab 151936, tied); the log's KV line (36 layers x 8 x 128) agrees."),
    "llama-3.1-8b-q4_0": dict(
        family=dense, arch="llama", name="Hermes 3 Llama 3.1 8B", n_embd=4096, n_layer=32, n_head=32,
        n_head_kv=8, head_dim=128, n_ff=14336, n_vocab=128256, n_ctx_train=131072, rope_freqs=True,
        wtype="q4_0", embd_type="q4_0", output_type="q6_K",
        source="print_info of the log (n_embd 4096, 32 layers, 32/8 heads x 128, n_ff 14336, "
               "vocab 128256; 225 q4_0 + 1 q6_K tensors)."),
    "qwen3.5-27b-q4_k": dict(
        family=qwen35, name="Qwen3.5/3.6/3.8-27B", n_embd=5120, n_layer=64, n_head=24, n_head_kv=4,
        head_dim=256, n_ff=17408, n_vocab=248320, ssm_inner=6144,
        wtype="q4_K", down_type="q5_K", embd_type="q4_K", output_type="q6_K",
        source="halo inspect of Qwen3.8-27B (n_embd 5120, n_ff 17408, heads 24/4, head dims 256, "
               "vocab 248320, 48 GDN + 16 attention layers, 16 k-heads / 48 v-heads x 128, conv 4); "
               "the logs' RS line (149.62 MiB per slot) and KV lines agree."),
    "qwen3-14b-q6_k": dict(
        family=dense, arch="qwen3", name="Qwen3-14B fine-tune", n_embd=5120, n_layer=40, n_head=40,
        n_head_kv=8, head_dim=128, n_ff=17408, n_vocab=151669, n_ctx_train=32768,
        wtype="q6_K", embd_type="q6_K", output_type="q6_K",
        source="print_info of the log (n_embd 5120, 40 layers, 40/8 heads x 128, n_ff 17408, "
               "vocab 151669; 282 q6_K tensors)."),
    "qwen2.5-vl-7b-q6_k": dict(
        family=dense, arch="qwen2vl", name="Qwen2.5-VL-7B-Instruct", n_embd=3584, n_layer=28,
        n_head=28, n_head_kv=4, head_dim=128, n_ff=18944, n_vocab=152064, n_ctx_train=128000,
        wtype="q6_K", embd_type="q6_K", output_type="q8_0",
        source="print_info of the log (qwen2vl, n_embd 3584, 28 layers, 28/4 heads x 128, n_ff "
               "18944, vocab 152064; q8_0 + q6_K mix)."),
    "qwen3.5-9b-q4_k": dict(
        family=qwen35, name="Qwen3.5-9B", n_embd=4096, n_layer=32, n_head=16, n_head_kv=4,
        head_dim=256, n_ff=12288, n_vocab=248320, ssm_inner=4096,
        wtype="q4_K", down_type="q5_K", embd_type="q4_K", output_type="q6_K",
        source="Qwen/Qwen3.5-9B config (hidden 4096, 32 layers, 16 heads, 4 KV x 256, intermediate "
               "12288, 16 k-heads / 32 v-heads x 128, vocab 248320, untied); the log's RS (50.25 MiB "
               "per slot) and KV lines agree, and CPU_Mapped 545.62 MiB is a q4_K token_embd."),
    "qwen2.5-0.5b-q8_0": dict(
        family=dense, arch="qwen2", name="Qwen2.5-0.5B", n_embd=896, n_layer=24, n_head=14,
        n_head_kv=2, head_dim=64, n_ff=4864, n_vocab=151936, n_ctx_train=32768, tied=True,
        wtype="q8_0", embd_type="q5_0", output_type="q8_0",
        source="Qwen/Qwen2.5-0.5B config.json (hidden 896, 24 layers, 14 heads, 2 KV x 64, "
               "intermediate 4864, vocab 151936, tied); the log's KV line (24 layers) and its q5_0 "
               "token_embd agree."),
    "llama-3.2-3b-q4_k_m": dict(
        family=dense, arch="llama", name="Llama 3.2 3B class (28 layers)", n_embd=3072, n_layer=28,
        n_head=24, n_head_kv=8, head_dim=128, n_ff=8192, n_vocab=128256, n_ctx_train=131072, tied=True,
        rope_freqs=True, wtype="q4_K", down_type="q6_K", embd_type="q6_K", output_type="q6_K",
        source="meta-llama/Llama-3.2-3B config (hidden 3072, 28 layers, 24 heads, 8 KV x 128, "
               "intermediate 8192, vocab 128256, tied); the log's KV line (28 layers, 4096 B per cell "
               "and layer), n_ctx_train 131072, freq_base 500000, its 0.49 MiB output (128256 logits) "
               "and its q6_K token_embd (CPU_Mapped 308.23 MiB = 128256 x 3072 q6_K) agree."),
    "qwen2.5-0.5b-q5_0-untied": dict(
        family=dense, arch="qwen2", name="qwen2.5-0.5b-instruct fine-tune (untied output)", n_embd=896,
        n_layer=24, n_head=14, n_head_kv=2, head_dim=64, n_ff=4864, n_vocab=151936, n_ctx_train=32768,
        wtype="q5_0", embd_type="q8_0", output_type="q8_0",
        source="print_info of the log (qwen2, n_embd 896, 24 layers, 14/2 heads x 64, n_ff 4864, "
               "vocab 151936; an output.weight is loaded; 133 q5_0, 13 q8_0, 12 q4_K, 12 q6_K)."),
}


# Built-in cards retyped where a log's file is another quantisation of the same model.
CARD_VARIANTS = {
    "gpt-oss-20b-q4_k_m": dict(
        card="gpt-oss-20b-mxfp4", name="gpt-oss-20b Q4_K_M (unsloth)", retype={"token_embd.weight": "q5_0"},
        source="The built-in card gpt-oss-20b-mxfp4 (resources/cards) with token_embd in q5_0, as in "
               "unsloth/gpt-oss-20b-GGUF Q4_K_M (the log's CPU_Mapped 379.71 MiB is 201088 x 2880 q5_0)."),
}


def card_variant(v):
    root = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
    with open(os.path.join(root, "resources", "cards", v["card"] + ".json")) as f:
        spec = json.load(f)
    for tensor in spec["tensors"]:
        if tensor.get("name") in v["retype"]:
            tensor["type"] = v["retype"][tensor["name"]]
    spec["name"] = v["name"]
    spec["source"] = v["source"]
    return spec


def main():
    os.makedirs(os.path.join(HERE, "specs"), exist_ok=True)
    for name, v in CARD_VARIANTS.items():
        spec = card_variant(v)
        spec["id"] = name
        with open(os.path.join(HERE, "specs", name + ".json"), "w") as out:
            json.dump(spec, out, indent=1)
            out.write("\n")
    for name, g in MODELS.items():
        md, tensors = g["family"](g)
        spec = {"id": name, "name": g["name"], "source": g["source"],
                "notes": "Written by tests/data/public-logs/make_specs.py: one weight type for the "
                         "2-D tensors, another for token_embd/output; real files mix types per tensor.",
                "vocabulary_size": g["n_vocab"], "metadata": md, "tensors": tensors}
        with open(os.path.join(HERE, "specs", name + ".json"), "w") as out:
            json.dump(spec, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
