#pragma once
// A Hugging Face repo's quants sized before download: the repo's commit and file tree, its
// files grouped into quants (core/hub/repoquants.h), and each quant's GGUF headers -- every
// shard's and its projector's -- read by Range (HubClient::readGgufHeader, never tensor data) or
// taken from the header cache, merged and interpreted as llama.cpp's loader would
// (interpretLoadableModel), ready for the fit table (core/hub/quantfit.h).
//
// The header cache keeps each file's header bytes under its LFS sha256, with no expiry: the key
// is the content, so a re-upload is a new key and an entry never goes stale. It lives in the
// shared cache folder (<generic cache>/llamafit/gguf-headers), for the GUI and the CLI alike.
// Thread: HubClient's.
//
// Error codes: HubClient's (for the repo); a quant whose header fails keeps its error in its
// QuantCandidate, so one broken file does not hide the others.

#include "core/common/result.h"
#include "core/hub/quantfit.h"
#include "core/system/hubclient.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

class HubHeaderCache {
  public:
    explicit HubHeaderCache(std::string directory);
    // The default folder: <generic cache location>/llamafit/gguf-headers.
    static std::string defaultDirectory();

    std::optional<GgufFile> find(const std::string& sha256, std::uint64_t fileBytes) const;
    void store(const std::string& sha256, const std::vector<std::uint8_t>& headerBytes) const;

  private:
    std::string m_directory;
};

struct RepoQuantSizing {
    std::string commit;
    std::vector<HubRepoFile> files;
    std::vector<QuantCandidate> candidates; // repoQuants() order: best quality first
    std::uint64_t bytesRead = 0;            // header bytes fetched over the network this time
};

// `onQuant` (if given) hears each quant's label as its headers are read.
Result<RepoQuantSizing> sizeRepoQuants(HubClient& client, const HubHeaderCache& cache,
                                       const std::string& repoId, const std::string& revision = "main",
                                       const std::function<void(const std::string&)>& onQuant = {});

} // namespace llamafit
