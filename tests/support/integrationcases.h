#pragma once
// The integration matrix: every realistic model shape (tests/data/shapes/*.json) crossed
// with a list of llama-server settings, each case named "<shape>_<settings>" for gtest.
// Built from the JSON specs alone (no model file, no server), so test discovery stays fast.
// Test support only.

#include "core/gguf/gguffile.h"
#include "core/sizing/serversettings.h"

#include <string>
#include <vector>

namespace llamafit::test {

struct IntegrationShape {
    std::string name;          // test-name part: letters, digits and underscores only
    std::string specPath;      // its tests/data/shapes/*.json spec
    std::string architecture;  // general.architecture
    bool swa = false;          // has sliding-window layers: --swa-full cases apply
    bool smallWeights = false; // weights < 3 GiB: the repack case (a real copy of the weights) is affordable
};

struct IntegrationCase {
    IntegrationShape shape;
    std::string settingsName;
    ServerSettings settings;
    std::string name() const { return shape.name + "_" + settingsName; }
};

std::vector<IntegrationShape> integrationShapes();
std::vector<IntegrationCase> integrationCases();

// Writes the shape's sparse GGUF into `directory` (once per process; later calls return the
// same path). Empty string and a message in `error` on failure.
std::string materializeShape(const IntegrationShape& shape, const std::string& directory, std::string& error);

// "qwen3.5-35b-a3b" -> "qwen3_5_35b_a3b"
std::string testNamePart(const std::string& text);

} // namespace llamafit::test
