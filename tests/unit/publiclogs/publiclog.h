#pragma once
// One public llama.cpp log of a real GPU (tests/data/public-logs/manifest.json, format in that
// folder's README.md): the log file, where it comes from, the model it was made with (a spec
// file or a built-in card), the llama-server flags and GPUs that rebuild its settings, and, for
// a log we cannot reproduce, why. Read by tests/unit/publiclogs only. Sizes in MiB as logged.
//
// Error codes: test.read-failed (no such file), test.bad-manifest (a field missing or mistyped).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit::test {

struct PublicLogDevice {
    std::string name; // as llama.cpp names its buffers: "CUDA0", "ROCm0", "Vulkan0", "MTL0"
    std::uint64_t memoryMiB = 0;
};

struct PublicLog {
    std::string logFile; // file name inside the public-logs folder
    Backend backend = Backend::Other;
    std::string gpu;
    std::string build;
    std::string source;
    std::string specFile; // relative to the folder; empty when `card` is set
    std::string card;     // a built-in model card id
    std::vector<std::string> args;
    std::vector<PublicLogDevice> devices;
    // The llama.cpp build it is sized for: the one the log names, the master of the day `buildDated`
    // says (read off llama.cpp's history), or for an undated log the first build of its generation.
    std::uint32_t llamaBuild = kReferenceLlamaBuild;
    std::string buildDated;        // "2026-05-14" where the build comes from the log's date
    std::string undatedGeneration; // "before-june-2026" where it comes from the generation alone
    OutputReserve outputReserve =
        OutputReserve::PerSlot;     // logits rows: per-batch for llama-cli, older servers
    double weightsTolerance = 0.10; // model buffers: quant mixes are approximated by the specs
    bool reproduce = true;
    std::string reason; // why not, when reproduce is false
    // The rebuild is proven (KV, RS, output exact) but the device's or the host's compute buffer is
    // not within 10 %: the log stays checked, its rows printed, and the reason says what is missing.
    std::string deviceComputeReason; // empty: the GPUs' compute buffers are asserted
    std::string hostComputeReason;   // empty: the host's compute buffer is asserted
};

Result<std::vector<PublicLog>> readPublicLogManifest(const std::string& directory);

std::string_view backendLabel(Backend backend);

} // namespace llamafit::test
