#pragma once
// The files an emulated Hub is made of (tests/support/hubemulation.h): the fixtures checked and
// hashed, the API answers written as JSON files, the links the CDN and resolve URLs serve, and
// nginx.conf. Used by HubEmulation::start() only; every path it writes is under the work folder,
// and nginx.conf names them relative to it (nginx runs with -p <work folder>), so the work
// folder's own path never has to be quoted in the configuration.
//
// Work folder layout:
//   nginx.conf  nginx.pid  error.log  access.log  nginx.out (its stdout and stderr)
//   temp/{client_body,proxy,fastcgi,uwsgi,scgi}   nginx's temp paths (its built-in ones are system paths)
//   www/api/models/<org>/<name>.json                           model info
//   www/api/models/<org>/<name>/refs.json
//   www/api/models/<org>/<name>/tree/<rev>[/<dir>][.recursive].json   rev = main and the commit
//   www/api/search/page-<n>.json                               the search answer, page n (1-based)
//   cdn/cdn/<sha256> -> content       what the CDN origin serves (LFS files)
//   blobs/<sha256> -> content         what resolve serves directly (files not in LFS)

#include "core/common/result.h"
#include "tests/support/hubemulation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::test {

// A fixture file with what the site says about it.
struct HubSiteFile {
    std::string repoPath;
    std::string contentPath; // absolute
    std::uint64_t size = 0;
    bool lfs = false;
    std::string sha256;            // lower-case hex: lfs.oid, the CDN key; of the content for git files
    std::string gitOid;            // the git blob id: of the LFS pointer for LFS files
    std::uint64_t pointerSize = 0; // the LFS pointer's length (lfs.pointerSize); 0 for git files
};

struct HubSiteRepo {
    std::string repoId;
    std::string commit;
    bool gated = false;
    std::vector<HubSiteFile> files;
};

// Checks every fixture (repo id, commit, paths, contents, no repo or path twice) and hashes
// what it must. test.bad-fixture or test.io-failed, naming the repo and the file.
Result<std::vector<HubSiteRepo>> describeRepos(const std::vector<HubFixtureRepo>& repos);

// The search answer's entries for ids, in order, with made-up deterministic figures; gated as the
// repo of that id is.
std::vector<HubSearchEntry> searchEntriesFor(const std::vector<std::string>& ids,
                                             const std::vector<HubSiteRepo>& repos);

// How many search pages: 1 when pageSize is 0 or nothing is listed.
std::size_t searchPageCount(std::size_t entries, std::size_t pageSize);

// Writes temp/, www/, cdn/ and blobs/ under workDirectory.
Result<bool> writeSite(const std::string& workDirectory, const std::vector<HubSiteRepo>& repos,
                       const std::vector<HubSearchEntry>& search, std::size_t pageSize);

// nginx.conf for the two origins on port.
std::string nginxConfig(const std::vector<HubSiteRepo>& repos, const std::string& token,
                        std::size_t searchPages, std::uint16_t port);

} // namespace llamafit::test
