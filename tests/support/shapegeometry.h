#pragma once
// ShapeGeometry: a realistic shape (tests/data/shapes/<arch>.json) rewritten to the widths of
// another real model of the same family -- Qwen2.5-0.5B's qwen2 shape with Qwen2.5-7B's n_embd,
// n_ff, heads and vocabulary -- so that the seeded holdout (holdoutcases.h) varies widths and not
// only layer counts. Which metadata key and which tensor dimension follows which hyperparameter is
// data: one table per architecture, tests/data/holdout/<arch>.json (format in
// tests/data/holdout/README.md). Layer patterns, per-layer kinds and tensor types stay the
// shape's. Test support only.
//
// A wrong table fails loudly: every tensor of the shape must be listed with all its dimensions,
// the shape's own parameters must give back the shape exactly, every geometry must set every
// parameter, and the rewritten spec must pass the core's interpreter and tensor-shape checks
// (core/model/tensorshapechecks.h), as llama.cpp's loader would check it.
//
// Error codes: test.bad-geometry (a table that does not describe its shape, an unknown
// geometry, an expression that does not evaluate), test.read-failed, and those of the
// interpreter and the shape checks.

#include "core/common/result.h"
#include "core/model/modelspec.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace llamafit::test {

// One real model of the family: its name, where the values come from, its block count and a
// value for every parameter of the table.
struct ShapeGeometry {
    std::string name;   // "qwen2.5-7b"
    std::string source; // "Qwen/Qwen2.5-7B config.json"
    std::uint32_t blocks = 0;
    std::map<std::string, std::uint64_t> parameters;
};

struct GeometryTable {
    std::string architecture; // the table's file stem, "qwen2"
    std::string shapeStem;    // the shape it rewrites: tests/data/shapes/<shapeStem>.json
    // The fewest blocks that keep every kind of layer of the shape (an attention layer of a
    // hybrid, a global layer of a sliding-window model): holdout cuts keep at least these.
    std::uint32_t minBlocks = 1;
    // The holdout round that first drew the table (HoldoutRound): a round's cases are drawn from
    // its own tables only, so adding a table adds cases and leaves the recorded ones as they were.
    std::uint32_t round = 0;
    std::map<std::string, std::uint64_t> shapeParameters;  // the shape's own values
    std::vector<std::pair<std::string, std::string>> keys; // metadata key -> expression
    // Tensor name with "blk.{i}." for blocks -> one expression per dimension.
    std::vector<std::pair<std::string, std::vector<std::string>>> tensors;
    std::vector<ShapeGeometry> geometries;
};

// How many cases a seeded holdout (holdoutcases.h, fitholdoutcases.h) draws from one round's
// tables on each backend, round robin over the tables. A round's cases are numbered after the
// rounds before it.
struct HoldoutRound {
    std::uint32_t round = 0;
    std::uint32_t cpuCases = 0;
    std::uint32_t vulkanCases = 0;
    std::uint32_t rpcCases = 0;
};

// Calls `draw` for every case of `rounds` in index order: each round's CPU cases, then its Vulkan
// ones, then its RPC ones (`backend` 0, 1, 2), each with its index over all rounds, its position in
// the round's round robin and the round's tables (file-name order). A round without tables draws
// nothing (its recorded cases then name themselves missing).
void forEachHoldoutCase(
    std::span<const HoldoutRound> rounds, const std::vector<GeometryTable>& tables,
    const std::function<void(std::uint32_t index, std::size_t backend, std::uint32_t position,
                             const std::vector<GeometryTable>& roundTables)>& draw);

// Every tests/data/holdout/*.json, sorted by file name.
std::vector<std::string> geometryTableFiles();
Result<GeometryTable> loadGeometryTable(const std::string& path);
// The tables of geometryTableFiles(), each loaded and checked against its shape once per process.
const Result<std::vector<GeometryTable>>& geometryTables();

// The shape `spec` with the widths of `geometry`: every listed key and tensor dimension
// re-evaluated, tensor bytes and offsets laid out again, a quantized type whose rows no longer
// divide into its blocks replaced by q8_0 (f16 when q8_0 does not divide either), as
// llama-quantize falls back. Checked with the interpreter and the tensor-shape checks.
Result<ModelSpec> reshapeSpec(const ModelSpec& spec, const GeometryTable& table,
                              const ShapeGeometry& geometry);

// The most blocks a holdout's cut of the table's shape to `geometry` keeps: the geometry's own
// count, no more than `shape` (the table's shape as loaded) has, no fewer than table.minBlocks.
std::uint32_t mostCutBlocks(const GeometryTable& table, const ShapeGeometry& geometry,
                            const Result<ModelSpec>& shape);

// "qwen2/qwen2.5-7b": `spec` (the table's shape) rewritten to that geometry of that table.
Result<ModelSpec> reshapeToGeometry(const ModelSpec& spec, const std::string& geometryId);

} // namespace llamafit::test
