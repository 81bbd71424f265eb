// llamafit-make-gguf: writes a GGUF that llama-server loads, from a model spec.
//   llamafit-make-gguf SPEC.json|CARD_ID|SHAPE|tiny OUT.gguf [--weight-type TYPE] [--real-weights]
// --geometry ARCH/NAME rewrites the shape to a holdout geometry of tests/data/holdout
// ("qwen35/qwen3.5-27b", tests/support/shapegeometry.h), as a holdout case has it;
// --blocks N / --vocab N cut the shape as the Vulkan matrix does (tests/support/shapecut.h).
// SPEC.json: a spec file; CARD_ID: a built-in card ("qwen3.5-35b-a3b-q6_k"); SHAPE: a file stem
// of tests/data/shapes ("qwen35moe"); tiny: the tiny llama with random weights.
// Without --real-weights the data region is a hole (a sparse file, no disk used).
#include "tests/support/modelfiles.h"
#include "tests/support/shapecut.h"
#include "tests/support/shapegeometry.h"

#include "core/common/units.h"

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: llamafit-make-gguf SPEC.json|CARD_ID|SHAPE|tiny OUT.gguf "
                 "[--weight-type TYPE] [--real-weights] [--geometry ARCH/NAME] [--blocks N] [--vocab N]\n");
    return 2;
}

llamafit::Result<llamafit::ModelSpec> findSpec(const std::string& what) {
    using namespace llamafit;
    if (what == "tiny") {
        return test::tinyModelSpec();
    }
    if (std::filesystem::is_regular_file(what)) {
        return test::loadModelSpecFile(what);
    }
    if (auto card = findBuiltinModelCard(what)) {
        return card;
    }
    if (std::filesystem::is_regular_file(test::shapesDirectory() + "/" + what + ".json")) {
        return test::loadShape(what);
    }
    return makeError("spec.unknown-card",
                     "\"" + what + "\" is no file, built-in card or shape in " + test::shapesDirectory());
}

} // namespace

int main(int argc, char** argv) {
    using namespace llamafit;
    if (argc < 3) {
        return usage();
    }
    const std::string what = argv[1];
    const std::string out = argv[2];
    test::ModelFileOptions options;
    test::ShapeCut cut;
    std::string geometry;
    options.realWeights = what == "tiny";
    for (int i = 3; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--weight-type" && i + 1 < argc) {
            options.weightType = ggmlTypeFromName(argv[++i]);
            if (!options.weightType) {
                std::fprintf(stderr, "unknown ggml type %s\n", argv[i]);
                return 2;
            }
        } else if (arg == "--real-weights") {
            options.realWeights = true;
        } else if (arg == "--geometry" && i + 1 < argc) {
            geometry = argv[++i];
        } else if (arg == "--blocks" && i + 1 < argc) {
            cut.blockCount = static_cast<std::uint32_t>(std::stoul(argv[++i]));
        } else if (arg == "--vocab" && i + 1 < argc) {
            cut.vocabularySize = static_cast<std::uint32_t>(std::stoul(argv[++i]));
        } else {
            return usage();
        }
    }
    auto spec = findSpec(what);
    if (!spec) {
        std::fprintf(stderr, "%s: %s\n", spec.error().code.c_str(), spec.error().message.c_str());
        return 1;
    }
    if (!geometry.empty()) {
        spec = test::reshapeToGeometry(*spec, geometry);
        if (!spec) {
            std::fprintf(stderr, "%s: %s\n", spec.error().code.c_str(), spec.error().message.c_str());
            return 1;
        }
    }
    if (!cut.empty()) {
        spec = test::cutShape(*spec, cut);
        if (!spec) {
            std::fprintf(stderr, "%s: %s\n", spec.error().code.c_str(), spec.error().message.c_str());
            return 1;
        }
    }
    auto written = test::writeSpecAsGguf(*spec, out, options);
    if (!written) {
        std::fprintf(stderr, "%s: %s\n", written.error().code.c_str(), written.error().message.c_str());
        return 1;
    }
    std::printf("%s: %zu tensors, %.2f MiB of tensor data, vocabulary %u -> %s\n", spec->id.c_str(),
                written->tensors.size(), toMiB(written->tensorBytes()), spec->vocabularySize, out.c_str());
    return 0;
}
