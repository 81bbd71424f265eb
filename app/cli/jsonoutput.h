#pragma once
// The JSON llamafit-cli prints with --json. This is a STABLE interface for scripts: fields
// are only ever added. Byte counts are integers (bytes), never MiB. Used by the command files.
//
// estimate: {model, settings.args, context{n_ctx, n_ctx_seq, n_seq_max, kv_unified, n_batch,
//   n_ubatch, flash_attn, n_outputs}, totals{model_bytes, kv_bytes, rs_bytes, output_bytes,
//   compute_bytes, overhead_bytes, total_bytes, note}, devices[{name, host, integrated, the
//   six byte fields, total_bytes, buffers[{buffer_type, component, owner, bytes, rule}]}],
//   kv_caches[{swa, cells, layers, streams, type_k, type_v, k_bytes, v_bytes}],
//   rs{cells, rs_seq, layers, r_bytes, s_bytes}, mtp_draft_context{...} (draft-mtp only),
//   gpu_layers, notes[], unmodelled_flags[], ignored_flags[]}.
// totals.overhead_bytes is LlamaFit's allowance for memory outside llama.cpp's buffers; no
// llama-server log line reports it (totals.note says so).

#include "app/cli/modelsource.h"
#include "core/flags/serverargs.h"
#include "core/sizing/memoryestimate.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string_view>

namespace llamafit {

using Json = nlohmann::ordered_json;

// Writes `object` indented, one trailing newline. Strings from model files, file names and
// flags may hold invalid UTF-8 (llama.cpp loads such models); those bytes are written as
// U+FFFD instead of throwing (nlohmann's dump() throws type_error.316 by default).
void printJson(std::ostream& out, const Json& object);

Json modelJson(const LoadedModel& model);
Json componentBytesJson(const ComponentBytes& bytes);
Json estimateJson(const LoadedModel& model, const ParsedServerArgs& args, const MemoryEstimate& estimate);
Json inspectJson(const LoadedModel& model);

} // namespace llamafit
