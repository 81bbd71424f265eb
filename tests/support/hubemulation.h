#pragma once
// HubEmulation: a Hugging Face Hub on loopback, served by Debian's nginx 1.22.1
// (scripts/fetch-nginx.sh), for the tests of the Hub client (core/hub, core/system) and of
// llama-server's -hf download. It owns one nginx process (its own process group, killed with
// the test process too through PR_SET_PDEATHSIG, stopped by the destructor: SIGTERM, a grace
// period, SIGKILL, reaped), so no nginx outlives its test. Test support only; Linux only; used
// from one thread.
//
// What it answers (/work/shared/reference/model-sourcing.md sections 1 and 5, the shapes that
// llama.cpp b11669's -hf client was checked against):
//   endpoint() = http://127.0.0.1:PORT, the Hub:
//     GET /api/models/{repo}/refs                           branches[0] main -> commit
//     GET /api/models/{repo}/tree/{main|commit}[/{dir}][?recursive=true]   the Hub's tree JSON
//     GET /api/models/{repo}                                model info with siblings (blobs=true)
//     GET /api/models?search=...                            the search list, Link rel="next" pages
//     HEAD|GET /{repo}/resolve/{main|commit}/{path}        LFS files: 302 to cdnOrigin()/cdn/<sha256>
//         carrying X-Repo-Commit, X-Linked-Etag "<sha256>", X-Linked-Size, ETag "<git oid>" and
//         Accept-Ranges; other files: 200 with the bytes, X-Repo-Commit and ETag "<git oid>"
//   cdnOrigin() = http://127.0.0.2:PORT, the CDN: GET|HEAD /cdn/<sha256> with nginx's static Range
//     support (206, open-ended ranges, 416, multipart). A different origin from the Hub's, so a
//     test sees (accessLog: authorization, serverAddress) whether a client sent the token there.
//   A gated repo's api and resolve URLs answer 401 (X-Error-Code: GatedRepo) unless the request
//   carries "Authorization: Bearer <options.token>"; the CDN never asks for it.
//   Anything else: 404.
// Paths with spaces and UTF-8 work: nginx matches the percent-decoded path.
//
// Bytes: the CDN and resolve URLs serve the content files themselves (symbolic links), so a
// sparse file of several GB costs nothing until a client reads it; start() reads a file whole
// only to hash it, and not an LFS file whose sha256 the fixture gives.
//
// Error codes: test.nginx-not-found (with how to fetch it), test.bad-fixture (a repo id, commit,
// path, token or work folder the emulation cannot serve, named), test.io-failed,
// test.spawn-failed, test.no-free-port, test.nginx-not-ready (it exited or did not listen in
// time; the message holds its error log).

#include "core/common/result.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit::test {

// A file of an emulated repo.
struct HubFixtureFile {
    std::string repoPath;    // "BF16/Model-BF16-00001-of-00002.gguf": '/'-separated, UTF-8, spaces allowed
    std::string contentPath; // the bytes on disk; may be a sparse file of several GB
    // The LFS sha256 (64 hex). "" = hashed from the content at start(); give it for a large
    // file that no test should read whole (the CDN then serves bytes that do not hash to it).
    std::string sha256;
    // Stored in LFS or in git. nullopt = a .gguf file is in LFS, anything else is not (on the Hub
    // every GGUF carries lfs.oid in the tree, model-sourcing.md section 1).
    std::optional<bool> lfs;
};

struct HubFixtureRepo {
    std::string repoId; // "org/name"
    std::string commit; // 40 hex, what refs/heads/main points at
    std::vector<HubFixtureFile> files;
    bool gated = false; // api and resolve answer 401 without the token
};

// One model of the emulated search answer.
struct HubSearchEntry {
    std::string id;
    std::uint64_t downloads = 0;
    std::uint64_t likes = 0;
    bool gated = false;              // "manual" in the answer, else false
    std::string architecture;        // gguf.architecture
    std::uint64_t parameters = 0;    // gguf.total
    std::uint64_t contextLength = 0; // gguf.context_length
    bool operator==(const HubSearchEntry&) const = default;
};

// A token llama.cpp accepts too: hf_ and 34 letters or digits (is_valid_hf_token, model-sourcing.md section
// 1).
inline constexpr const char* kHubEmulationToken = "hf_LlamaFitEmulatedHubToken0123456789";

struct HubEmulationOptions {
    std::string token = kHubEmulationToken; // letters, digits, '_' and '-' only
    // What GET /api/models answers, in this order, whatever the query; the figures are made up
    // (deterministic: HubEmulation::searchEntries() says them) and gated follows the repo's.
    std::vector<std::string> searchResultIds;
    std::size_t searchPageSize =
        0; // 0: one page; else pages of this many, linked by Link rel="next" (?cursor=N)
    std::chrono::milliseconds startTimeout{std::chrono::seconds(10)}; // for nginx to listen, per port tried
};

// One line of nginx's access log: one request, written when nginx finished it.
struct HubAccessLogEntry {
    std::string method;
    std::string uri;  // the request target as sent: percent-encoded, with the query (nginx $request_uri)
    std::string path; // the same path percent-decoded, without the query
    int status = 0;
    std::uint64_t bodyBytes = 0; // body bytes sent, headers not counted ($body_bytes_sent)
    std::string range;           // the Range header; "" if none
    std::string authorization;   // the Authorization header; "" if none
    std::string host;            // the Host header as sent
    std::string serverAddress;   // the address it came in on: "127.0.0.1" Hub, "127.0.0.2" CDN
    std::string userAgent;
};

class HubEmulation {
  public:
    // Writes the site and nginx.conf under workDirectory and starts nginx on a free port, trying
    // another port when the first is taken. Returns once both origins accept connections. The
    // folder must exist and have no control character in its path; the names of
    // hubemulationsite.h's layout in it are the emulation's (an earlier emulation's are replaced).
    static Result<HubEmulation> start(std::vector<HubFixtureRepo> repos, const std::string& workDirectory,
                                      HubEmulationOptions options = {});

    HubEmulation(HubEmulation&& other) noexcept;
    HubEmulation& operator=(HubEmulation&& other) noexcept;
    HubEmulation(const HubEmulation&) = delete;
    HubEmulation& operator=(const HubEmulation&) = delete;
    ~HubEmulation();

    std::string endpoint() const;  // "http://127.0.0.1:<port>", no trailing slash
    std::string cdnOrigin() const; // "http://127.0.0.2:<port>"
    std::uint16_t port() const { return m_port; }
    const std::string& token() const { return m_options.token; }
    const std::vector<HubSearchEntry>& searchEntries() const { return m_searchEntries; }

    // Every request nginx has finished, oldest first. Deterministic: before reading the log it
    // makes one request of its own on a new connection and waits for nginx to close it, and nginx
    // handles connections one event at a time, writing a request's line right after its last byte
    // is sent; so every request whose response a client has read to the end is listed. (One a
    // client abandoned mid-body is listed once nginx notices.) The emulation's own request is not.
    std::vector<HubAccessLogEntry> accessLog() const;
    // The body bytes of every finished request whose decoded path starts with pathPrefix.
    std::uint64_t bytesServedFrom(const std::string& pathPrefix) const;

    // The LFS sha256 of a fixture file as the Hub reports it (for other files: of the content);
    // "" for a file the emulation does not hold.
    std::string sha256Of(const std::string& repoId, const std::string& repoPath) const;
    // The git blob id the tree and ETag report; "" for a file the emulation does not hold.
    std::string gitOidOf(const std::string& repoId, const std::string& repoPath) const;

    const std::string& workDirectory() const { return m_workDirectory; }
    // Files put here while nginx runs are served at cdnOrigin() + "/static/<path>", with nginx's
    // Range support: other sites a test needs beside the Hub (llama.cpp's releases).
    std::string staticDirectory() const { return m_workDirectory + "/static"; }
    int pid() const { return m_pid; }

  private:
    struct FileFacts {
        std::string repoId;
        std::string repoPath;
        std::string sha256;
        std::string gitOid;
    };

    HubEmulation() = default;
    void stop();

    int m_pid = -1;
    std::uint16_t m_port = 0;
    std::string m_workDirectory;
    HubEmulationOptions m_options;
    std::vector<HubSearchEntry> m_searchEntries;
    std::vector<FileFacts> m_files;
};

// The nginx to serve with: $LLAMAFIT_NGINX, else the CMake cache variable LLAMAFIT_NGINX
// (default <repo>/.nginx/root/usr/sbin/nginx, where scripts/fetch-nginx.sh unpacks it).
Result<std::string> findNginx();

} // namespace llamafit::test
