#pragma once
// What the Hugging Face Hub answers, parsed: the model search, a repo's refs and file tree, the
// headers of a resolve redirect, and the Link and RateLimit headers. Every answer is treated as
// hostile: a malformed one is the error "hub.bad-response" naming what was wrong, and nothing
// in it (a path, a hash, a size) is used before it was checked here.
//
// Sources (/work/shared/reference/model-sourcing.md section 1): huggingface_hub hf_api.py
// (list_models, list_repo_tree, list_repo_refs), file_download.py get_hf_file_metadata (the
// metadata is read off the 302, not the CDN's answer), utils/_pagination.py (Link rel="next"),
// hub-docs rate-limits.md (RateLimit: "api";r=0;t=89). llama.cpp b11669 common/hf-cache.cpp
// makes the same refs + tree calls.
// Pure functions over the bytes and header values.

#include "core/common/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// "org/name": letters, digits, '-', '_', '.', one '/', at most 96 characters a side, no "--"
// or ".." and no leading or trailing '-' or '.' (huggingface_hub utils/_validators.py
// validate_repo_id). Checked before a repo id goes into a URL or a cache folder name.
bool isValidRepoId(std::string_view repoId);

// One model of a search answer (GET /api/models?search=...&expand[]=gguf&expand[]=gated...).
struct HubModelSummary {
    std::string id; // "unsloth/Qwen3-8B-GGUF"
    std::uint64_t downloads = 0;
    std::uint64_t likes = 0;
    bool gated = false;              // "auto" or "manual" on the Hub; false when open
    std::string architecture;        // gguf.architecture, "" when the Hub parsed none
    std::uint64_t parameters = 0;    // gguf.total
    std::uint64_t contextLength = 0; // gguf.context_length
    bool operator==(const HubModelSummary&) const = default;
};

Result<std::vector<HubModelSummary>> parseModelSearch(std::string_view json);

// The commit a branch points at, from GET /api/models/{repo}/refs.
Result<std::string> parseBranchCommit(std::string_view json, std::string_view branch);

// One file of GET /api/models/{repo}/tree/{commit}?recursive=true.
struct HubRepoFile {
    std::string path; // relative to the repo root, '/'-separated, checked safe
    std::uint64_t size = 0;
    std::string sha256; // lfs.oid, lower-case hex; "" for a file not in LFS
    std::string gitOid; // the git blob id (sha1)
    bool operator==(const HubRepoFile&) const = default;
};

// Directories are left out. A path that could leave the repo's folder ("..", absolute, a
// backslash, a control character, invalid UTF-8) is the error, not skipped: such an answer is
// not from a Hub.
Result<std::vector<HubRepoFile>> parseRepoTree(std::string_view json);

// True for a path safe to join under a folder: '/'-separated non-empty segments, none "." or
// "..", no backslash, colon or control character, valid UTF-8, under 1024 bytes.
bool isSafeRepoPath(std::string_view path);

// The headers of the 302 a HEAD of /{repo}/resolve/{rev}/{path} answers, read without following it.
struct ResolvedFileHeaders {
    std::string commit;                // X-Repo-Commit
    std::string sha256;                // X-Linked-Etag, unquoted (LFS files); "" otherwise
    std::optional<std::uint64_t> size; // X-Linked-Size, else Content-Length of a 200
    std::string location;              // Location of the redirect; "" for a 200
    bool operator==(const ResolvedFileHeaders&) const = default;
};

using HeaderLookup = std::function<std::optional<std::string>(std::string_view name)>;

Result<ResolvedFileHeaders> parseResolveHeaders(const HeaderLookup& header);

// The URL of Link's rel="next" ("<https://huggingface.co/api/models?cursor=...>; rel=\"next\""),
// nullopt when there is no next page.
std::optional<std::string> nextPageUrl(std::string_view linkHeader);

// Seconds until the rate-limit window resets: t= of the RateLimit header ("\"api\";r=0;t=89");
// nullopt when absent or malformed.
std::optional<std::uint32_t> rateLimitResetSeconds(std::string_view rateLimitHeader);

// True for 64 lower- or upper-case hex digits.
bool isSha256Hex(std::string_view text);

} // namespace llamafit
