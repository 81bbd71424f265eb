// The faults a real web server does not produce on demand, from a small HTTP server in the test
// process -- a FAKE, named as such (FaultyHub): a connection that breaks off in the middle of a
// file, a 429 with the Hub's RateLimit header, and a body shorter than it said. Everything else
// the Hub client meets is tested against nginx (hubclient_test.cpp).

#include "core/hub/hubcachelayout.h"
#include "core/system/hubclient.h"
#include "core/system/hubdownload.h"
#include "tests/integration/scratchdirectory.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>

namespace llamafit::test {
namespace {

// A FAKE Hub for faults: one answer per connection (Connection: close). `answer` gets the
// request line and headers and returns the whole response; `breakAfter` (when set for a
// request) cuts the response after that many bytes and closes the connection.
class FaultyHub {
  public:
    struct Response {
        QByteArray bytes;
        std::optional<qsizetype> breakAfter;
    };
    using Answer = std::function<Response(const QByteArray& requestLine, const QByteArray& headers)>;

    explicit FaultyHub(Answer answer) : m_answer(std::move(answer)) {
        QObject::connect(&m_server, &QTcpServer::newConnection, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                auto* buffer = new QByteArray;
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                QObject::connect(socket, &QObject::destroyed, [buffer] { delete buffer; });
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0) {
                        return;
                    }
                    const qsizetype lineEnd = buffer->indexOf("\r\n");
                    const QByteArray requestLine = buffer->left(lineEnd);
                    const QByteArray headers = buffer->mid(lineEnd + 2, end - lineEnd);
                    QTcpSocket* const connection = socket;
                    // One answer per connection: what the socket reads after it is not a request.
                    QObject::disconnect(connection, &QTcpSocket::readyRead, nullptr, nullptr);
                    const Response response = m_answer(requestLine, headers);
                    connection->write(response.breakAfter ? response.bytes.left(*response.breakAfter)
                                                          : response.bytes);
                    connection->flush();
                    connection->disconnectFromHost();
                });
            }
        });
        EXPECT_TRUE(m_server.listen(QHostAddress::LocalHost, 0));
    }

    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_server.serverPort()); }

  private:
    Answer m_answer;
    QTcpServer m_server;
};

QByteArray httpResponse(int status, const QByteArray& reason, const QList<QByteArray>& headers,
                        const QByteArray& body, std::optional<qsizetype> declaredLength = std::nullopt) {
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + " " + reason + "\r\n";
    for (const QByteArray& header : headers) {
        out += header + "\r\n";
    }
    out += "Content-Length: " + QByteArray::number(declaredLength.value_or(body.size())) +
           "\r\nConnection: close\r\n\r\n";
    return out + body;
}

std::optional<qsizetype> rangeStart(const QByteArray& headers) {
    for (const QByteArray& line : headers.split('\n')) {
        const QByteArray trimmed = line.trimmed();
        if (trimmed.toLower().startsWith("range: bytes=")) {
            return trimmed.mid(13, trimmed.indexOf('-') - 13).toLongLong();
        }
    }
    return std::nullopt;
}

TEST(HubFaults, ADownloadCutMidFileResumesWhereTheBytesStopped) {
    std::mt19937 random(7);
    QByteArray content(300000, Qt::Uninitialized);
    for (char& c : content) {
        c = static_cast<char>(random());
    }
    const std::string sha =
        QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex().toStdString();
    // A transfer that starts in the file's first half is cut after 40 % of what it asked for, so
    // the bytes arrive as 0..120000, 120000..192000, then the rest. The cut follows the range, not
    // a count of requests: Qt's HTTP channel may send a request again on a fresh connection when
    // the first one closes, and that copy must meet the same server.
    std::vector<qsizetype> rangesAsked;
    FaultyHub hub([&](const QByteArray& line, const QByteArray& headers) -> FaultyHub::Response {
        if (line.contains("/resolve/")) {
            return {httpResponse(302, "Found", {"Location: /cdn/blob?Expires=1"}, ""), std::nullopt};
        }
        const qsizetype from = rangeStart(headers).value_or(0);
        rangesAsked.push_back(from);
        const QByteArray rest = content.mid(from);
        const QByteArray response =
            httpResponse(206, "Partial Content",
                         {"Content-Range: bytes " + QByteArray::number(from) + "-" +
                          QByteArray::number(content.size() - 1) + "/" + QByteArray::number(content.size())},
                         rest);
        if (from < content.size() / 2) {
            return {response, response.size() - rest.size() + rest.size() * 2 / 5};
        }
        return {response, std::nullopt};
    });
    std::string error;
    const std::string cache = scratchDirectory(error) + "/faults-cut";
    HubClientOptions options;
    options.endpoint = hub.endpoint();
    HubClient client(options);
    const HubCacheLayout layout{cache, "org/repo"};
    auto path =
        downloadHubFile(client, layout, std::string(40, 'a'),
                        HubRepoFile{"m-Q4_0.gguf", static_cast<std::uint64_t>(content.size()), sha, ""});
    ASSERT_TRUE(path.ok()) << path.error().message;
    std::string asked;
    for (const qsizetype from : rangesAsked) {
        asked += std::to_string(from) + " ";
    }
    SCOPED_TRACE("ranges asked from: " + asked);
    // Two cuts, then the rest: each transfer starts exactly where the bytes that arrived end
    // (never earlier, never from the start again), and the last one goes on from the middle.
    ASSERT_FALSE(rangesAsked.empty());
    EXPECT_EQ(rangesAsked.front(), 0);
    EXPECT_TRUE(std::is_sorted(rangesAsked.begin(), rangesAsked.end()));
    std::vector<qsizetype> starts = rangesAsked;
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    EXPECT_EQ(starts, (std::vector<qsizetype>{0, 120000, 192000}));
    QFile blob(QString::fromStdString(layout.blobPath(sha)));
    ASSERT_TRUE(blob.open(QIODevice::ReadOnly));
    EXPECT_EQ(blob.readAll(), content);
}

TEST(HubFaults, AResetWithinAMinuteIsWaitedForOnce) {
    int requests = 0;
    FaultyHub hub([&](const QByteArray&, const QByteArray&) -> FaultyHub::Response {
        if (++requests == 1) {
            return {httpResponse(429, "Too Many Requests", {"RateLimit: \"api\";r=0;t=1"}, "rate limited"),
                    std::nullopt};
        }
        return {
            httpResponse(200, "OK", {"Content-Type: application/json"},
                         R"({"branches":[{"name":"main","targetCommit":")" + QByteArray(40, 'a') + R"("}]})"),
            std::nullopt};
    });
    HubClientOptions options;
    options.endpoint = hub.endpoint();
    HubClient client(options);
    auto commit = client.branchCommit("org/repo");
    ASSERT_TRUE(commit.ok()) << commit.error().message;
    EXPECT_EQ(*commit, std::string(40, 'a'));
    EXPECT_EQ(requests, 2);
}

TEST(HubFaults, TheRateLimitIsNamedWithItsReset) {
    FaultyHub hub([](const QByteArray&, const QByteArray&) -> FaultyHub::Response {
        return {httpResponse(429, "Too Many Requests",
                             {"RateLimit: \"api\";r=0;t=420",
                              "RateLimit-Policy: \"fixed window\";\"api\";q=500;w=300"},
                             "rate limited"),
                std::nullopt};
    });
    HubClientOptions options;
    options.endpoint = hub.endpoint();
    HubClient client(options);
    auto commit = client.branchCommit("org/repo");
    ASSERT_FALSE(commit.ok());
    EXPECT_EQ(commit.error().code, "hub.rate-limited");
    EXPECT_NE(commit.error().message.find("420 s"), std::string::npos) << commit.error().message;
}

TEST(HubFaults, ARangeAnswerShorterThanItSaidIsNotTakenAsAHeader) {
    FaultyHub hub([](const QByteArray&, const QByteArray& headers) -> FaultyHub::Response {
        const qsizetype from = rangeStart(headers).value_or(0);
        const QByteArray body = "GGUF";
        // Says 24 bytes, sends 4 and closes.
        return {httpResponse(206, "Partial Content",
                             {"Content-Range: bytes " + QByteArray::number(from) + "-23/100000"}, body, 24),
                std::nullopt};
    });
    HubClientOptions options;
    options.endpoint = hub.endpoint();
    HubClient client(options);
    auto header = client.readGgufHeader(hub.endpoint() + "/org/repo/resolve/main/m.gguf", 100000);
    ASSERT_FALSE(header.ok());
    EXPECT_TRUE(header.error().code == "hub.connection-lost" || header.error().code == "hub.bad-response")
        << header.error().code << ": " << header.error().message;
}

} // namespace
} // namespace llamafit::test
