// Inputs the fuzz harnesses once crashed on (tests/fuzz/README.md), kept as regression tests.

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "core/sizing/graph/modelgraph.h"
#include "core/sizing/sizingmodel.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace llamafit {
namespace {

// fuzz_gguf: a llama header whose layers lack an FFN weight. The sizing engine's graph reached
// for it (kNoTensor) and read past the graph; now the graph is refused ("sizing.no-graph") and
// the estimate goes on the closed forms, as fuzz_gguf.cpp runs it.
TEST(FuzzRegression, ALlamaWithoutAnFfnWeightIsSizedWithoutAGraph) {
    std::ifstream in(LLAMAFIT_FUZZ_DATA_DIR "/gguf-llama-without-ffn-weight", std::ios::binary);
    ASSERT_TRUE(in.good());
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    Result<GgufFile> file = parseGguf(bytes, bytes.size() + (std::uint64_t{1} << 34));
    ASSERT_TRUE(file.ok()) << file.error().message;
    Result<ModelInfo> model = interpretModel(*file);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const SizingModel prepared = prepareModel(*model);
    ServerSettings settings;
    settings.contextTokens = 4096;
    (void)estimateMemory(prepared, settings); // the crash was here; an answer or an error is fine
}

} // namespace
} // namespace llamafit
