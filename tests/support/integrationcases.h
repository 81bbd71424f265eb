#pragma once
// The integration matrix: every realistic model shape (tests/data/shapes/*.json) crossed
// with a list of llama-server settings, each case named "<shape>_<settings>" for gtest.
// Built from the JSON specs alone (no model file, no server), so test discovery stays fast.
// The CPU matrix is here; the Vulkan matrix (tests/support/vulkancases.h) uses the same types
// with cut shapes and a GPU. Test support only.

#include "core/gguf/gguffile.h"
#include "core/model/modelspec.h"
#include "core/sizing/serversettings.h"
#include "tests/support/shapecut.h"

#include <ostream>
#include <string>
#include <vector>

namespace llamafit::test {

struct IntegrationShape {
    std::string name;     // test-name part: letters, digits and underscores only
    std::string specPath; // its tests/data/shapes/*.json spec
    ShapeCut cut;         // fewer blocks / a smaller vocabulary than the spec (none for the CPU matrix)
    // "<table>/<geometry>" of tests/data/holdout (shapegeometry.h): the spec rewritten to another
    // real model's widths before the cut (the seeded holdout, holdoutcases.h); empty: the spec's own.
    std::string geometry;
    std::string architecture;  // general.architecture
    bool swa = false;          // has sliding-window layers: --swa-full cases apply
    bool smallWeights = false; // weights < 3 GiB: the repack case (a real copy of the weights) is affordable
};

struct IntegrationCase {
    IntegrationShape shape;
    std::string settingsName;
    ServerSettings settings;
    std::vector<GpuDevice> gpus; // the devices the estimate is told about (none: the CPU matrix)
    std::string name() const { return shape.name + "_" + settingsName; }
};

std::vector<IntegrationShape> integrationShapes();
std::vector<IntegrationCase> integrationCases();

// The shape's spec with its geometry and its cut applied: what the server is given and the estimate sizes.
Result<ModelSpec> loadIntegrationShape(const IntegrationShape& shape);

// Writes the shape's sparse GGUF into `directory` (once per process; later calls return the
// same path). Empty string and a message in `error` on failure.
std::string materializeShape(const IntegrationShape& shape, const std::string& directory, std::string& error);

// gtest names a failing case with this instead of a byte dump.
void PrintTo(const IntegrationCase& testCase, std::ostream* out);

// "qwen3.5-35b-a3b" -> "qwen3_5_35b_a3b"
std::string testNamePart(const std::string& text);

} // namespace llamafit::test
