#pragma once
// HubClient: the Hugging Face Hub over HTTP -- model search, a repo's commit and file tree, the
// metadata of a file read off its resolve redirect, byte ranges of a file, and a GGUF header
// read by Range requests up to where its tensor data starts (never into it). Answers are parsed
// and checked by core/hub (hubresponses.h); what a request may carry is decided there too: the
// token goes to the endpoint's origin only, never to the CDN a resolve redirects to.
//
// Every call blocks its thread until the answer is in, the request fails, `cancelled` says
// stop, or nothing arrived for the idle timeout. The CLI calls it directly; the GUI from a
// worker thread (a QNetworkAccessManager lives in the thread that uses it).
// Thread: one instance per thread.
//
// Error codes (beside core/hub's hub.bad-response and the gguf.* codes of a header):
//   hub.offline       the endpoint cannot be reached (no route, refused, DNS) -- offline
//   hub.timeout       no byte for the idle timeout
//   hub.cancelled     the caller's cancel flag
//   hub.gated         401/403: a gated or private repo, with or without a token (the message says which)
//   hub.not-found     404: no such repo, revision or file
//   hub.rate-limited  429 whose reset (the RateLimit header's t=) is over a minute away, or a second
//                     429 after waiting for one within a minute; the message says the seconds
//   hub.http-error    any other status >= 400
//   hub.no-range      a server that answered a Range request with the whole file
//   hub.too-many-redirects, hub.answer-too-large
// Sources: /work/shared/reference/model-sourcing.md sections 1 and 2.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/hub/hubresponses.h"

#include <QByteArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUrl>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct HubClientOptions {
    std::string endpoint;             // hubEndpoint(): "https://huggingface.co" or a mirror
    std::optional<std::string> token; // hubToken(); sent to the endpoint's origin only
    std::chrono::milliseconds idleTimeout{30000};
    std::function<bool()> cancelled; // polled while a request runs; may be empty
};

// One HTTP exchange, as far as the Hub client looks at it.
struct HubHttpAnswer {
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    QUrl url;               // the URL that answered (after the redirects followed)
    bool tokenSent = false; // whether the request that answered carried the token
    std::optional<std::string> header(std::string_view name) const;
};

class HubClient {
  public:
    explicit HubClient(HubClientOptions options);

    const HubClientOptions& options() const { return m_options; }

    // Up to `limit` models for `query`, following Link pages while fewer were listed.
    Result<std::vector<HubModelSummary>> search(const std::string& query, std::uint32_t limit);
    // The commit `branch` points at (refs).
    Result<std::string> branchCommit(const std::string& repoId, const std::string& branch = "main");
    // Every file of the repo at `commit` (tree, recursive, all pages).
    Result<std::vector<HubRepoFile>> tree(const std::string& repoId, const std::string& commit);
    // HEAD of the resolve URL, its 302 not followed: commit, sha256, size, CDN location.
    Result<ResolvedFileHeaders> resolve(const std::string& repoId, const std::string& revision,
                                        const std::string& repoPath);

    // A GGUF part's header from the file at `url` (a resolve URL) of `fileBytes` bytes, read by
    // Range requests each ending where the header surely goes on (GgufParser::certainHeaderEnd),
    // so no tensor data is read. `bytesRead` (if given) adds the body bytes received.
    // `headerBytes` (if given) receives the bytes from offset 0 up to the header's end, for the
    // header cache.
    Result<GgufFile> readGgufHeader(const std::string& url, std::uint64_t fileBytes,
                                    std::uint64_t* bytesRead = nullptr,
                                    std::vector<std::uint8_t>* headerBytes = nullptr);

    // GET with redirects followed (the token dropped off the endpoint's origin); `onBody`
    // receives the body as it arrives and returns false to stop; without it the body is kept
    // (up to maxBodyBytes).
    Result<HubHttpAnswer> get(const std::string& url,
                              const std::vector<std::pair<QByteArray, QByteArray>>& headers,
                              const std::function<bool(const QByteArray&)>& onBody = {},
                              qint64 maxBodyBytes = 64LL * 1024 * 1024);

  private:
    Result<HubHttpAnswer> exchange(const QByteArray& verb, const QUrl& url,
                                   const std::vector<std::pair<QByteArray, QByteArray>>& headers,
                                   const std::function<bool(const QByteArray&)>& onBody, qint64 maxBodyBytes);
    Result<HubHttpAnswer> getJson(const std::string& url);
    // Waits on the event loop; false when `cancelled` said stop first.
    bool waitFor(std::chrono::seconds wait);
    Result<QByteArray> readRange(QUrl& url, std::uint64_t from, std::uint64_t to);

    HubClientOptions m_options;
    QNetworkAccessManager m_network;
};

// The options this process's environment gives: hubEndpoint() and hubToken() over the real
// environment and home folder.
HubClientOptions hubClientOptionsFromEnvironment();

// The error an answer's status means (nullopt for 2xx and 3xx); `what` names the request.
std::optional<Error> hubStatusError(const HubHttpAnswer& answer, const std::string& what, bool tokenSent);

} // namespace llamafit
