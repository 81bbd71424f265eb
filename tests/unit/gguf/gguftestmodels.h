#pragma once
// GGUF files the reader tests share: one holding every metadata value type (nested arrays
// included) and tensors of many types, and a realistic ~33 GB dense model shape with ~700
// tensors. Built in memory with GgufBuilder; the tests write them out. Test code only.

#include "core/common/units.h"
#include "core/gguf/gguffile.h"
#include "tests/support/ggufbuilder.h"

#include <string>
#include <vector>

namespace llamafit::test {

// GgufBuilder lays tensors out on its default 32-byte grid; a file with another
// general.alignment needs the offsets laid out again on that grid.
inline void relayoutTensors(GgufFile& file, std::uint64_t alignment) {
    file.alignment = alignment;
    std::uint64_t offset = 0;
    for (auto& tensor : file.tensors) {
        tensor.dataOffset = offset;
        offset = padTo(offset + tensor.bytes, alignment);
    }
    file.rebuildIndex();
}

inline GgufArray stringArray(const std::vector<std::string>& values) {
    GgufArray array(GgufValueType::String);
    for (const auto& v : values) {
        array.appendString(v);
    }
    return array;
}

// Every GGUF value type, an array of each scalar type, an array of arrays of strings and an
// array nested three deep, plus tensors of ten ggml types.
inline GgufFile richFile(std::uint64_t alignment = 32) {
    GgufBuilder b("llama");
    b.set("t.u8", GgufValue::fromUint(200, GgufValueType::Uint8));
    b.set("t.i8", GgufValue::fromInt(-100, GgufValueType::Int8));
    b.set("t.u16", GgufValue::fromUint(60000, GgufValueType::Uint16));
    b.set("t.i16", GgufValue::fromInt(-30000, GgufValueType::Int16));
    b.setUint32("t.u32", 4000000000u);
    b.setInt32("t.i32", -2000000000);
    b.setFloat32("t.f32", 0.5f);
    b.setBool("t.bool", true);
    b.setString("t.string", "hello \xE2\x9C\x93 world");
    b.setString("t.empty-string", "");
    b.setUint64("t.u64", 0xFEDCBA9876543210ull);
    b.set("t.i64", GgufValue::fromInt(-1234567890123456789ll, GgufValueType::Int64));
    b.set("t.f64", GgufValue::fromFloat(-2.718281828459045, GgufValueType::Float64));
    b.setUint32Array("t.arr.u32", {1, 2, 3, 0xFFFFFFFFu});
    b.setInt32Array("t.arr.i32", {-1, 0, 1});
    b.setBoolArray("t.arr.bool", {true, false, true});
    b.setFloat32Array("t.arr.f32", {1.5f, -0.25f});
    b.setStringArray("t.arr.string", {"a", "", "ccc"});
    b.set("t.arr.empty", GgufValue::fromArray(GgufArray(GgufValueType::Int64)));
    GgufArray u8Array(GgufValueType::Uint8);
    GgufArray f64Array(GgufValueType::Float64);
    GgufArray i8Array(GgufValueType::Int8);
    GgufArray u16Array(GgufValueType::Uint16);
    GgufArray i16Array(GgufValueType::Int16);
    GgufArray u64Array(GgufValueType::Uint64);
    GgufArray i64Array(GgufValueType::Int64);
    for (int i = 0; i < 5; ++i) {
        u8Array.appendUint(static_cast<std::uint64_t>(i * 50));
        f64Array.appendFloat(i * 0.125);
        i8Array.appendInt(-100 + 50 * i);
        u16Array.appendUint(static_cast<std::uint64_t>(15000 * i));
        i16Array.appendInt(-30000 + 15000 * i);
        u64Array.appendUint(0xFEDCBA9876543210ull >> i);
        i64Array.appendInt(-1234567890123456789ll + i);
    }
    b.set("t.arr.u8", GgufValue::fromArray(std::move(u8Array)));
    b.set("t.arr.f64", GgufValue::fromArray(std::move(f64Array)));
    b.set("t.arr.i8", GgufValue::fromArray(std::move(i8Array)));
    b.set("t.arr.u16", GgufValue::fromArray(std::move(u16Array)));
    b.set("t.arr.i16", GgufValue::fromArray(std::move(i16Array)));
    b.set("t.arr.u64", GgufValue::fromArray(std::move(u64Array)));
    b.set("t.arr.i64", GgufValue::fromArray(std::move(i64Array)));
    GgufArray arrayOfArrays(GgufValueType::Array);
    arrayOfArrays.appendArray(stringArray({"x", "yy"}));
    arrayOfArrays.appendArray(stringArray({}));
    arrayOfArrays.appendArray(stringArray({"zzz"}));
    b.set("t.arr.arr.string", GgufValue::fromArray(arrayOfArrays));
    GgufArray deep(GgufValueType::Array);
    deep.appendArray(arrayOfArrays);
    b.set("t.arr.arr.arr.string", GgufValue::fromArray(std::move(deep)));
    if (alignment != 32) {
        b.setUint32("general.alignment", static_cast<std::uint32_t>(alignment));
    }

    b.addTensor("token_embd.weight", GgmlType::Q6_K, {512, 100});
    b.addTensor("blk.0.attn_norm.weight", GgmlType::F32, {512});
    b.addTensor("blk.0.attn_q.weight", GgmlType::Q8_0, {512, 512});
    b.addTensor("blk.0.attn_k.weight", GgmlType::Q4_K, {512, 128});
    b.addTensor("blk.0.attn_v.weight", GgmlType::Q5_0, {512, 128});
    b.addTensor("blk.0.ffn_gate_exps.weight", GgmlType::MXFP4, {512, 64, 4});
    b.addTensor("blk.0.ffn_up.weight", GgmlType::IQ4_XS, {512, 256});
    b.addTensor("blk.0.ffn_down.weight", GgmlType::BF16, {256, 512});
    b.addTensor("blk.0.conv.weight", GgmlType::F16, {4, 3, 2, 5});
    b.addTensor("output.weight", GgmlType::Q2_K, {512, 100});
    GgufFile file = b.build();
    relayoutTensors(file, alignment);
    return file;
}

// A Qwen2.5-32B-like dense shape in q8_0: 64 layers x 11 tensors + 3 = 707 tensors,
// about 33 GB of data.
inline GgufFile largeDenseModel() {
    constexpr std::uint64_t kEmbd = 5120, kKv = 1024, kFf = 27648, kVocab = 152064;
    constexpr int kLayers = 64;
    GgufBuilder b("qwen2");
    b.setUint32(b.key("block_count"), kLayers);
    b.setUint32(b.key("embedding_length"), kEmbd);
    b.setUint32(b.key("feed_forward_length"), kFf);
    b.setUint32(b.key("attention.head_count"), 40);
    b.setUint32(b.key("attention.head_count_kv"), 8);
    b.setUint32(b.key("context_length"), 32768);
    b.addTensor("token_embd.weight", GgmlType::Q6_K, {kEmbd, kVocab});
    for (int l = 0; l < kLayers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.addTensor(p + "attn_norm.weight", GgmlType::F32, {kEmbd});
        b.addTensor(p + "attn_q.weight", GgmlType::Q8_0, {kEmbd, kEmbd});
        b.addTensor(p + "attn_q.bias", GgmlType::F32, {kEmbd});
        b.addTensor(p + "attn_k.weight", GgmlType::Q8_0, {kEmbd, kKv});
        b.addTensor(p + "attn_v.weight", GgmlType::Q8_0, {kEmbd, kKv});
        b.addTensor(p + "attn_output.weight", GgmlType::Q8_0, {kEmbd, kEmbd});
        b.addTensor(p + "ffn_norm.weight", GgmlType::F32, {kEmbd});
        b.addTensor(p + "ffn_gate.weight", GgmlType::Q8_0, {kEmbd, kFf});
        b.addTensor(p + "ffn_up.weight", GgmlType::Q8_0, {kEmbd, kFf});
        b.addTensor(p + "ffn_down.weight", GgmlType::Q8_0, {kFf, kEmbd});
        b.addTensor(p + "attn_k.bias", GgmlType::F32, {kKv});
    }
    b.addTensor("output_norm.weight", GgmlType::F32, {kEmbd});
    b.addTensor("output.weight", GgmlType::Q6_K, {kEmbd, kVocab});
    return b.build();
}

} // namespace llamafit::test
