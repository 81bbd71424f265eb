#pragma once
// Fixture repos for the Hub emulation (hubemulation.h): GGUF files the tests generate, laid out
// as Hugging Face repos lay them out. Test support only; Linux only.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "tests/support/hubemulation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::test {

// Writes `file` split as llama.cpp's gguf-split does (every key in part 1, only split.* in the
// others, the tensors shared out in table order, filled with a constant byte) at
// "<prefix>-0000i-of-0000N.gguf"; returns the parts' paths.
Result<std::vector<std::string>> writeSplitGguf(const GgufFile& file, const std::string& prefix,
                                                std::uint32_t parts);

// The tiny llama (modelfiles.h tinyModelSpec, loadable by llama-server) as a repo, written into
// `dir`: Tiny-F32, Tiny-Q8_0 and Tiny-Q4_0 single files with real weights, a split F16 set in
// F16/, the projector made for its width (gemma3-mmproj, sparse) and a README.
Result<std::vector<HubFixtureFile>> tinyHubRepoFiles(const std::string& dir);

// llama.cpp's GitHub releases on the emulation's static site (HubEmulation::staticDirectory):
// `serverWrapper`'s folder -- the rig's llama-server wrapper and its unpacked Debian root
// (scripts/fetch-llama-server.sh) -- packed as the Linux CPU release is
// (llama-<tag>/... in llama-<tag>-bin-ubuntu-x64.tar.gz), and a releases/latest listing under
// static/repos/ggml-org/llama.cpp/releases/<name>/ that gives it `digest` (its real sha256 when
// empty) plus a Windows build without one. Returns the listing's URL.
Result<std::string> writeLlamaReleaseSite(const HubEmulation& hub, const std::string& serverWrapper,
                                          const std::string& tag, const std::string& name,
                                          const std::string& digest = {});

} // namespace llamafit::test
