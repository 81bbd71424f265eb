#pragma once
// Turns the GGUF keys and tensor table of a model into a ModelInfo, following the
// per-architecture rules of llama.cpp src/llama-model.cpp (load_hparams, create_memory)
// and src/llama-hparams.cpp (n_embd_r, n_embd_s, is_swa, is_recurrent).
// Used by the CLI, the GUI and the model cards. Pure: no I/O.
//
// Error codes: model.missing-architecture (no general.architecture),
// model.missing-key (a key the architecture cannot do without, e.g. block_count),
// model.bad-value (a key with an impossible value: zero heads, array of wrong length).
// An architecture we do not know is not an error: generic transformer rules are used
// and ModelInfo::warnings says which assumptions were made.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <string_view>
#include <vector>

namespace llamafit {

Result<ModelInfo> interpretModel(const GgufFile& file);

// Architectures with dedicated rules (general.architecture spellings).
const std::vector<std::string_view>& knownArchitectures();

} // namespace llamafit
