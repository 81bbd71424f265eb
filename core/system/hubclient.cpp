// The Hugging Face Hub over HTTP; see hubclient.h.

#include "core/system/hubclient.h"

#include "core/gguf/ggufparser.h"
#include "core/hub/hubendpoint.h"
#include "core/system/processenvironment.h"

#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <memory>

namespace llamafit {

namespace {

constexpr int kMaxRedirects = 10;
constexpr std::chrono::milliseconds kCancelPoll{100};
constexpr std::uint32_t kSearchPageLimit = 100; // the Hub's own page size for /api/models
constexpr qint64 kMaxErrorBody = 64 * 1024;     // what an error page may hold beside a streamed body
constexpr std::chrono::seconds kLongestRateLimitWait{60};

using Headers = std::vector<std::pair<QByteArray, QByteArray>>;

bool isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string originOf(const QUrl& url) {
    return url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo)
        .toString()
        .toStdString();
}

// A connection that never got an answer (the machine is offline, the host unknown, nothing
// listening): the Hub cannot be reached, which the GUI and CLI say as such.
bool isUnreachable(QNetworkReply::NetworkError error) {
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::UnknownNetworkError:
        return true;
    default:
        return false;
    }
}

} // namespace

std::optional<std::string> HubHttpAnswer::header(std::string_view name) const {
    const QByteArray wanted = QByteArray(name.data(), static_cast<qsizetype>(name.size())).toLower();
    for (const auto& [key, value] : headers) {
        if (key.toLower() == wanted) {
            return value.toStdString();
        }
    }
    return std::nullopt;
}

std::optional<Error> hubStatusError(const HubHttpAnswer& answer, const std::string& what, bool tokenSent) {
    const int status = answer.status;
    if (status < 400) {
        return std::nullopt;
    }
    if (status == 401 || status == 403) {
        return makeError("hub.gated",
                         tokenSent ? what + ": the Hub refused the token (HTTP " + std::to_string(status) +
                                         "): check that it can read this repo and that its terms are accepted"
                                   : what + ": the repo is gated or private (HTTP " + std::to_string(status) +
                                         "): accept its terms on the Hub and set HF_TOKEN");
    }
    if (status == 404) {
        return makeError("hub.not-found", what + ": not found on the Hub (HTTP 404)");
    }
    if (status == 429) {
        const std::optional<std::uint32_t> seconds =
            rateLimitResetSeconds(answer.header("RateLimit").value_or(""));
        return makeError("hub.rate-limited", what + ": the Hub's rate limit is reached (HTTP 429); " +
                                                 (seconds ? "it resets in " + std::to_string(*seconds) + " s"
                                                          : std::string("try again in a few minutes")));
    }
    return makeError("hub.http-error", what + ": HTTP " + std::to_string(status));
}

HubClientOptions hubClientOptionsFromEnvironment() {
    const EnvironmentLookup environment = processEnvironment();
    HubClientOptions options;
    options.endpoint = hubEndpoint(environment);
    options.token =
        hubToken(environment, homeDirectory(), [](const std::string& path) -> std::optional<std::string> {
            QFile file(QString::fromStdString(path));
            constexpr qint64 kMaxTokenFile = 4096;
            if (!file.open(QIODevice::ReadOnly)) {
                return std::nullopt;
            }
            return file.read(kMaxTokenFile).toStdString();
        });
    return options;
}

HubClient::HubClient(HubClientOptions options) : m_options(std::move(options)) {
    // Redirects are followed by hand (get()), so that the token is dropped off the endpoint's
    // origin and a resolve's 302 can be read without following it (resolve()).
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

Result<HubHttpAnswer> HubClient::exchange(const QByteArray& verb, const QUrl& url, const Headers& headers,
                                          const std::function<bool(const QByteArray&)>& onBody,
                                          qint64 maxBodyBytes) {
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setRawHeader("User-Agent", "llamafit");
    // CloudFront with gzip ignores Range (huggingface_hub file_download.py http_get).
    request.setRawHeader("Accept-Encoding", "identity");
    const bool tokenSent = m_options.token && mayCarryToken(url.toString().toStdString(), m_options.endpoint);
    if (tokenSent) {
        request.setRawHeader("Authorization",
                             QByteArray("Bearer ") + QByteArray::fromStdString(*m_options.token));
    }
    for (const auto& [name, value] : headers) {
        request.setRawHeader(name, value);
    }

    std::unique_ptr<QNetworkReply> reply(m_network.sendCustomRequest(request, verb));
    QEventLoop loop;
    QTimer idle;
    idle.setSingleShot(true);
    idle.setInterval(m_options.idleTimeout);
    QTimer cancelPoll;
    cancelPoll.setInterval(kCancelPoll);
    bool timedOut = false;
    bool cancelled = false;
    bool tooLarge = false;
    bool stoppedByReader = false;
    HubHttpAnswer answer;

    const auto statusNow = [&] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
    const auto take = [&] {
        if (!reply->isOpen()) {
            return; // aborted
        }
        const QByteArray chunk = reply->readAll();
        if (chunk.isEmpty() || stoppedByReader || tooLarge) {
            return;
        }
        // A redirect's or an error's own body never reaches the reader; a redirect's is dropped,
        // an error's kept (small) for the message.
        const int status = statusNow();
        if (isRedirect(status)) {
            return;
        }
        if (onBody && status >= 200 && status < 300) {
            if (!onBody(chunk)) {
                stoppedByReader = true;
                reply->abort();
            }
            return;
        }
        if (answer.body.size() + chunk.size() > (onBody ? kMaxErrorBody : maxBodyBytes)) {
            tooLarge = true;
            reply->abort();
            return;
        }
        answer.body += chunk;
    };
    QObject::connect(reply.get(), &QNetworkReply::readyRead, &loop, [&] {
        idle.start();
        take();
    });
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QObject::connect(&idle, &QTimer::timeout, &loop, [&] {
        timedOut = true;
        reply->abort();
    });
    QObject::connect(&cancelPoll, &QTimer::timeout, &loop, [&] {
        if (m_options.cancelled && m_options.cancelled()) {
            cancelled = true;
            reply->abort();
        }
    });
    idle.start();
    cancelPoll.start();
    if (!reply->isFinished()) {
        loop.exec();
    }
    take();

    const std::string where = url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo).toStdString();
    if (cancelled) {
        return makeError("hub.cancelled", where + ": cancelled");
    }
    if (timedOut) {
        return makeError("hub.timeout", where + ": nothing arrived for " +
                                            std::to_string(m_options.idleTimeout.count() / 1000) + " s");
    }
    if (tooLarge) {
        return makeError("hub.answer-too-large",
                         where + ": the answer is larger than " + std::to_string(maxBodyBytes) + " bytes");
    }
    answer.status = statusNow();
    answer.headers = reply->rawHeaderPairs();
    answer.url = url;
    const QNetworkReply::NetworkError error = reply->error();
    if (answer.status == 0 && error != QNetworkReply::NoError) {
        const std::string code = isUnreachable(error) ? "hub.offline" : "hub.network";
        return makeError(code, "cannot reach " + originOf(url) + ": " + reply->errorString().toStdString());
    }
    if (!stoppedByReader && answer.status >= 200 && answer.status < 300 && error != QNetworkReply::NoError) {
        // The answer began and the connection broke off: what arrived is kept by the reader.
        return makeError("hub.connection-lost",
                         where + ": the connection broke off (" + reply->errorString().toStdString() + ")");
    }
    answer.tokenSent = tokenSent;
    return answer;
}

Result<HubHttpAnswer> HubClient::get(const std::string& url, const Headers& headers,
                                     const std::function<bool(const QByteArray&)>& onBody,
                                     qint64 maxBodyBytes) {
    QUrl current(QString::fromStdString(url));
    for (int hop = 0; hop <= kMaxRedirects; ++hop) {
        auto answer = exchange("GET", current, headers, onBody, maxBodyBytes);
        if (!answer || !isRedirect(answer->status)) {
            return answer;
        }
        const std::optional<std::string> location = answer->header("Location");
        if (!location || location->empty()) {
            return makeError("hub.bad-response",
                             current.toString().toStdString() + ": a redirect without a Location");
        }
        const QUrl next = current.resolved(QUrl(QString::fromStdString(*location)));
        if (next.scheme() != QStringLiteral("http") && next.scheme() != QStringLiteral("https")) {
            return makeError("hub.bad-response",
                             "a redirect to '" + location->substr(0, 200) + "', which is not http(s)");
        }
        current = next;
    }
    return makeError("hub.too-many-redirects",
                     url + ": more than " + std::to_string(kMaxRedirects) + " redirects");
}

bool HubClient::waitFor(std::chrono::seconds wait) {
    QEventLoop loop;
    QTimer done;
    done.setSingleShot(true);
    QObject::connect(&done, &QTimer::timeout, &loop, &QEventLoop::quit);
    QTimer cancelPoll;
    bool cancelled = false;
    QObject::connect(&cancelPoll, &QTimer::timeout, &loop, [&] {
        if (m_options.cancelled && m_options.cancelled()) {
            cancelled = true;
            loop.quit();
        }
    });
    done.start(std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    cancelPoll.start(kCancelPoll);
    loop.exec();
    return !cancelled;
}

Result<HubHttpAnswer> HubClient::getJson(const std::string& url) {
    auto answer = get(url, {{"Accept", "application/json"}});
    // The Hub's rate limit (hub-docs rate-limits.md): fixed windows whose reset the 429 says
    // (RateLimit: ...;t=SECONDS). A reset within a minute is waited for, once; a longer one is
    // the named error with its seconds.
    if (answer && answer->status == 429) {
        const std::optional<std::uint32_t> seconds =
            rateLimitResetSeconds(answer->header("RateLimit").value_or(""));
        if (seconds && *seconds <= kLongestRateLimitWait.count() &&
            waitFor(std::chrono::seconds(*seconds + 1))) {
            answer = get(url, {{"Accept", "application/json"}});
        }
    }
    if (!answer) {
        return answer.error();
    }
    if (auto error = hubStatusError(*answer, url, answer->tokenSent)) {
        return *error;
    }
    return answer;
}

Result<std::vector<HubModelSummary>> HubClient::search(const std::string& query, std::uint32_t limit) {
    std::vector<HubModelSummary> models;
    std::string url = hubSearchUrl(m_options.endpoint, query, std::min(limit, kSearchPageLimit));
    while (models.size() < limit) {
        auto answer = getJson(url);
        if (!answer) {
            return answer.error();
        }
        auto page = parseModelSearch(answer->body.toStdString());
        if (!page) {
            return page.error();
        }
        for (HubModelSummary& model : *page) {
            if (models.size() < limit) {
                models.push_back(std::move(model));
            }
        }
        const std::optional<std::string> next = nextPageUrl(answer->header("Link").value_or(""));
        // A next page elsewhere than the endpoint is not followed: the answer is not the Hub's.
        if (page->empty() || !next || urlOrigin(*next) != urlOrigin(m_options.endpoint)) {
            break;
        }
        url = *next;
    }
    return models;
}

Result<std::string> HubClient::branchCommit(const std::string& repoId, const std::string& branch) {
    if (!isValidRepoId(repoId)) {
        return makeError("hub.bad-repo-id", "'" + repoId + "' is not a Hugging Face repo id (org/name)");
    }
    auto answer = getJson(hubRefsUrl(m_options.endpoint, repoId));
    if (!answer) {
        return answer.error();
    }
    return parseBranchCommit(answer->body.toStdString(), branch);
}

Result<std::vector<HubRepoFile>> HubClient::tree(const std::string& repoId, const std::string& commit) {
    if (!isValidRepoId(repoId)) {
        return makeError("hub.bad-repo-id", "'" + repoId + "' is not a Hugging Face repo id (org/name)");
    }
    std::vector<HubRepoFile> files;
    std::string url = hubTreeUrl(m_options.endpoint, repoId, commit);
    for (;;) {
        auto answer = getJson(url);
        if (!answer) {
            return answer.error();
        }
        auto page = parseRepoTree(answer->body.toStdString());
        if (!page) {
            return page.error();
        }
        files.insert(files.end(), page->begin(), page->end());
        const std::optional<std::string> next = nextPageUrl(answer->header("Link").value_or(""));
        if (!next || urlOrigin(*next) != urlOrigin(m_options.endpoint)) {
            return files;
        }
        url = *next;
    }
}

Result<ResolvedFileHeaders> HubClient::resolve(const std::string& repoId, const std::string& revision,
                                               const std::string& repoPath) {
    const std::string url = hubResolveUrl(m_options.endpoint, repoId, revision, repoPath);
    auto answer = exchange("HEAD", QUrl(QString::fromStdString(url)), {}, {}, 0);
    if (!answer) {
        return answer.error();
    }
    if (auto error = hubStatusError(*answer, repoId + "/" + repoPath, answer->tokenSent)) {
        return *error;
    }
    const HubHttpAnswer& headers = *answer;
    return parseResolveHeaders([&](std::string_view name) { return headers.header(name); });
}

Result<QByteArray> HubClient::readRange(QUrl& url, std::uint64_t from, std::uint64_t to) {
    const std::uint64_t wanted = to - from;
    const QByteArray range = "bytes=" + QByteArray::number(static_cast<qulonglong>(from)) + "-" +
                             QByteArray::number(static_cast<qulonglong>(to - 1));
    QByteArray body;
    bool wholeFile = false;
    auto answer = get(url.toString().toStdString(), {{"Range", range}}, [&](const QByteArray& chunk) {
        body += chunk;
        if (static_cast<std::uint64_t>(body.size()) > wanted) {
            wholeFile = true; // a 200 with the whole file: stop before it all comes
            return false;
        }
        return true;
    });
    if (!answer) {
        return answer.error();
    }
    if (auto error =
            hubStatusError(*answer, url.toString(QUrl::RemoveQuery).toStdString(), answer->tokenSent)) {
        return *error;
    }
    if (answer->status != 206 || wholeFile) {
        return makeError("hub.no-range", url.toString(QUrl::RemoveQuery).toStdString() +
                                             ": the server does not answer Range requests (HTTP " +
                                             std::to_string(answer->status) + ")");
    }
    // Later ranges go straight to where the redirects led (the CDN), skipping the resolve hop.
    url = answer->url;
    if (static_cast<std::uint64_t>(body.size()) != wanted) {
        return makeError("hub.bad-response", "asked for " + std::to_string(wanted) + " bytes from offset " +
                                                 std::to_string(from) + ", got " +
                                                 std::to_string(body.size()));
    }
    return body;
}

Result<GgufFile> HubClient::readGgufHeader(const std::string& url, std::uint64_t fileBytes,
                                           std::uint64_t* bytesRead, std::vector<std::uint8_t>* headerBytes) {
    const QUrl resolveUrl(QString::fromStdString(url));
    QUrl current = resolveUrl;
    GgufParser parser(fileBytes, {});
    std::vector<std::uint8_t> held; // the file from heldFrom on
    std::uint64_t heldFrom = 0;
    std::uint64_t readTo = 0;
    for (;;) {
        const std::uint64_t next = parser.certainHeaderEnd();
        if (next <= readTo) {
            return makeError("gguf.truncated", url + ": the header runs past the end of the file");
        }
        auto bytes = readRange(current, readTo, next);
        if (!bytes && current != resolveUrl && bytes.error().code != "hub.cancelled") {
            current = resolveUrl; // a signed CDN URL expires: resolve again, once
            bytes = readRange(current, readTo, next);
        }
        if (!bytes) {
            return bytes.error();
        }
        if (bytesRead) {
            *bytesRead += static_cast<std::uint64_t>(bytes->size());
        }
        held.insert(held.end(), bytes->begin(), bytes->end());
        if (headerBytes) {
            headerBytes->insert(headerBytes->end(), bytes->begin(), bytes->end());
        }
        readTo = next;
        auto result = parser.parse(held, heldFrom);
        if (result.ok() || !parser.neededBytes()) {
            return result;
        }
        const std::uint64_t resume = parser.resumeOffset();
        held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(resume - heldFrom));
        heldFrom = resume;
    }
}

} // namespace llamafit
