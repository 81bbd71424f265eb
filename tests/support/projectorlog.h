#pragma once
// The vision projector's lines of a llama-server 0.7.0 log (tools/mtmd/clip.cpp's LOG_INF
// formats) and the generated projector shapes (tests/data/shapes/mmproj), shared by the recorded
// runs (tests/unit/recorded/recordedprojectorruns_test.cpp) and the live test
// (tests/integration/projectorserver_test.cpp). Test support only; MiB as printed.

#include "core/common/result.h"
#include "core/model/projectorinfo.h"

#include <optional>
#include <string>

namespace llamafit::test {

struct ProjectorLogLines {
    std::optional<double> weightMiB;  // load_hparams: model size:         N MiB
    std::optional<int> warmupSide;    // get_dummy_batch: warmup with image size = W x H
    std::optional<double> computeMiB; // reserve_compute_meta:        CPU compute buffer size =   N MiB
    bool widthMismatch = false;       // mtmd_init_from_file: error: mismatch between text model ...
};

ProjectorLogLines projectorLogLines(const std::string& log);

// tests/data/shapes/mmproj/<stem of path>.json built in memory and interpreted; `path` is the
// name the projector is given (the --mmproj value).
Result<ProjectorInfo> projectorShape(const std::string& path);

} // namespace llamafit::test
