#pragma once
// Well-formed GGUF files that llama.cpp's loader refuses, each made from the tiny real-weight
// llama (modelfiles.h) with one thing wrong: a key of another integer type, no vocabulary,
// token_embd not matching the tokenizer, block_count disagreeing with the tensors, rope
// dimensions not the head size, too many experts, a tensor missing or of the wrong shape. The unit tests
// check that LlamaFit names each (core/model/loaderchecks.h); the integration tests check that the real
// llama-server refuses the same files. Test support only.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"

#include <string>
#include <vector>

namespace llamafit::test {

struct RefusedModel {
    std::string name;         // test-name part
    std::string expectedCode; // LlamaFit's error code
    std::string serverSays;   // a piece of llama-server's own message when it refuses the file
    GgufFile file;
};

Result<std::vector<RefusedModel>> loaderRefusedModels();

} // namespace llamafit::test
