#pragma once
// The sizing core's prediction for a shape of tests/data/shapes run with llama-server flags,
// as the captured logs of tests/data/logs and tests/data/server were made (their READMEs give
// the flags). Test helper for the predicted-versus-actual and failure-fix tests.

#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"

#include <optional>
#include <string>
#include <vector>

namespace llamafit::testdata {

struct ShapeRun {
    SizingModel model;
    ParsedServerArgs args;
};

// shape "tiny" = test::tinyModelSpec(); weightType retypes the weights like llamafit-make-gguf --weight-type.
inline Result<ShapeRun> shapeRun(const std::string& shape, const std::vector<std::string>& flags,
                                 std::optional<GgmlType> weightType = std::nullopt) {
    Result<ModelSpec> spec =
        shape == "tiny" ? Result<ModelSpec>(test::tinyModelSpec()) : test::loadShape(shape);
    if (!spec) {
        return spec.error();
    }
    test::ModelFileOptions options;
    options.weightType = weightType;
    Result<GgufFile> file = test::ggufFileForSpec(*spec, options);
    if (!file) {
        return file.error();
    }
    Result<ModelInfo> info = interpretModel(*file);
    if (!info) {
        return info.error();
    }
    Result<ParsedServerArgs> args = parseServerArgs(flags);
    if (!args) {
        return args.error();
    }
    return ShapeRun{prepareModel(std::move(*info)), std::move(*args)};
}

} // namespace llamafit::testdata
