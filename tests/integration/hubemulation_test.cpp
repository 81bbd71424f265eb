// The emulated Hugging Face Hub (tests/support/hubemulation.h) against real HTTP: Qt's
// QNetworkAccessManager, redirects not followed (as the Hub client reads them, model-sourcing.md
// section 1), talks to the real nginx. What is checked is what the Hub client's tests rely on:
// refs and tree JSON with the right sizes and hashes, the 302 of a resolve URL and its headers,
// Range on the CDN (206, open-ended, 416), the token of a gated repo, Link pagination of the
// search, UTF-8 and spaces in paths, the access log, two origins, and no nginx left behind.
// Every wait is on a signal (QSignalSpy::wait), a pidfd or start()'s own deadline; never a sleep.

#include "tests/support/hubemulation.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <random>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace llamafit::test {
namespace {

constexpr const char* kRepo = "llamafit-test/Tiny-GGUF";
constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kGatedRepo = "llamafit-test/Gated-GGUF";
constexpr const char* kGatedCommit = "fedcba9876543210fedcba9876543210fedcba98";
constexpr const char* kModel = "Tiny-Q4_K_M.gguf";
constexpr const char* kUnicodeModel = "Ünïcode dir/mmproj F16 ü.gguf";
constexpr const char* kHugeModel = "Huge-Q8_0.gguf";
constexpr std::uint64_t kHugeSize = std::uint64_t{3} << 30;
// A made-up sha256 for the sparse file: the emulation must not read 3 GiB to hash it.
constexpr const char* kHugeSha256 = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

struct Response {
    int status = 0;
    QByteArray body;
    std::map<QByteArray, QByteArray> headers; // names in lower case

    QByteArray header(const char* name) const {
        const auto found = headers.find(QByteArray(name).toLower());
        return found == headers.end() ? QByteArray() : found->second;
    }
};

QByteArray bytesOf(const std::string& text) {
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

std::string sha256Hex(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString();
}

// git's blob id, computed here independently of the emulation.
std::string gitBlobOid(const QByteArray& bytes) {
    QByteArray blob = bytesOf("blob " + std::to_string(bytes.size()));
    blob.append('\0');
    blob.append(bytes);
    return QCryptographicHash::hash(blob, QCryptographicHash::Sha1).toHex().toStdString();
}

class HubEmulationTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_folder.isValid());
        m_network.setProxy(QNetworkProxy::NoProxy); // loopback only, whatever http_proxy says
        m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        m_readme = bytesOf("# Tiny\nA repo for the Hub client's tests.\n");
        m_model = randomBytes(8192, 1);
        m_shard1 = randomBytes(4096, 2);
        m_shard2 = randomBytes(3000, 3);
        m_unicode = randomBytes(2048, 4);
        m_gatedModel = randomBytes(5000, 5);

        std::filesystem::create_directories(path("hub"));
        const std::string huge = writeContent("huge.bin", {});
        std::filesystem::resize_file(huge, kHugeSize); // sparse: no block written
        HubFixtureRepo tiny{kRepo, kCommit, {}, false};
        tiny.files = {
            {"README.md", writeContent("readme", m_readme), "", std::nullopt},
            {kModel, writeContent("model", m_model), "", std::nullopt},
            {"BF16/Tiny-BF16-00001-of-00002.gguf", writeContent("shard1", m_shard1), "", std::nullopt},
            {"BF16/Tiny-BF16-00002-of-00002.gguf", writeContent("shard2", m_shard2), "", std::nullopt},
            {kUnicodeModel, writeContent("unicode", m_unicode), "", std::nullopt},
            {kHugeModel, huge, kHugeSha256, std::nullopt}};
        HubFixtureRepo gated{kGatedRepo, kGatedCommit, {}, true};
        gated.files = {{"README.md", writeContent("gated-readme", m_readme), "", std::nullopt},
                       {kModel, writeContent("gated-model", m_gatedModel), "", std::nullopt}};
        HubEmulationOptions options;
        options.searchResultIds = {kRepo, "someone/Other-GGUF", kGatedRepo, "x/y", "z/w"};
        options.searchPageSize = 2;
        auto started = HubEmulation::start({tiny, gated}, path("hub"), options);
        ASSERT_TRUE(started.ok()) << started.error().code << ": " << started.error().message;
        m_hub.emplace(std::move(started).value());
    }

    std::string path(const std::string& name) const {
        return m_folder.filePath(QString::fromStdString(name)).toStdString();
    }

    std::string writeContent(const std::string& name, const QByteArray& bytes) const {
        std::ofstream out(path(name), std::ios::binary);
        out.write(bytes.constData(), bytes.size());
        return path(name);
    }

    static QByteArray randomBytes(int count, unsigned seed) {
        std::mt19937 random(seed);
        QByteArray bytes(count, '\0');
        std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<char>(random() & 0xff); });
        return bytes;
    }

    // One request, redirects not followed; waits on the reply's finished signal.
    Response send(const QByteArray& verb, const std::string& url,
                  const std::map<QByteArray, QByteArray>& headers = {}) {
        QNetworkRequest request(QUrl(QString::fromStdString(url)));
        for (const auto& [name, value] : headers) {
            request.setRawHeader(name, value);
        }
        QNetworkReply* reply = verb == "HEAD" ? m_network.head(request) : m_network.get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        Response response;
        if (!reply->isFinished() && !finished.wait(10000)) {
            ADD_FAILURE() << verb.toStdString() << " " << url << " did not finish";
            reply->deleteLater();
            return response;
        }
        response.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        response.body = reply->readAll();
        for (const auto& [name, value] : reply->rawHeaderPairs()) {
            response.headers[name.toLower()] = value;
        }
        reply->deleteLater();
        return response;
    }

    Response get(const std::string& url, const std::map<QByteArray, QByteArray>& headers = {}) {
        return send("GET", url, headers);
    }
    Response head(const std::string& url, const std::map<QByteArray, QByteArray>& headers = {}) {
        return send("HEAD", url, headers);
    }

    QJsonDocument getJson(const std::string& url) {
        const Response response = get(url);
        EXPECT_EQ(response.status, 200) << url;
        return QJsonDocument::fromJson(response.body);
    }

    std::map<QByteArray, QByteArray> bearer() const {
        return {{"Authorization", bytesOf("Bearer " + m_hub->token())}};
    }

    std::string resolveUrl(const std::string& repo, const std::string& revision,
                           const std::string& file) const {
        return m_hub->endpoint() + "/" + repo + "/resolve/" + revision + "/" + file;
    }

    QTemporaryDir m_folder;
    QNetworkAccessManager m_network;
    QByteArray m_readme, m_model, m_shard1, m_shard2, m_unicode, m_gatedModel;
    std::optional<HubEmulation> m_hub;
};

TEST_F(HubEmulationTest, RefsNameTheCommitOfMain) {
    const QJsonObject refs = getJson(m_hub->endpoint() + "/api/models/" + kRepo + "/refs").object();
    const QJsonObject main = refs[QStringLiteral("branches")].toArray().at(0).toObject();
    EXPECT_EQ(main[QStringLiteral("name")].toString().toStdString(), "main");
    EXPECT_EQ(main[QStringLiteral("ref")].toString().toStdString(), "refs/heads/main");
    EXPECT_EQ(main[QStringLiteral("targetCommit")].toString().toStdString(), kCommit);
    EXPECT_TRUE(refs[QStringLiteral("tags")].toArray().isEmpty());
}

TEST_F(HubEmulationTest, RecursiveTreeHoldsEveryFileWithItsSizeAndHashes) {
    const std::string url =
        m_hub->endpoint() + "/api/models/" + kRepo + "/tree/" + kCommit + "?recursive=true";
    const QJsonArray tree = getJson(url).array();
    std::map<std::string, QJsonObject> byPath;
    std::vector<std::string> order;
    for (const QJsonValue& value : tree) {
        const std::string entryPath = value[QStringLiteral("path")].toString().toStdString();
        byPath[entryPath] = value.toObject();
        order.push_back(entryPath);
    }
    // The Hub's order: folders, then files, each by path bytewise (a UTF-8 lead byte is above ASCII).
    EXPECT_EQ(order, (std::vector<std::string>{"BF16", "Ünïcode dir", "BF16/Tiny-BF16-00001-of-00002.gguf",
                                               "BF16/Tiny-BF16-00002-of-00002.gguf", kHugeModel, "README.md",
                                               kModel, kUnicodeModel}));
    EXPECT_EQ(byPath["BF16"][QStringLiteral("type")].toString().toStdString(), "directory");

    const std::map<std::string, QByteArray> lfsFiles{{kModel, m_model},
                                                     {"BF16/Tiny-BF16-00001-of-00002.gguf", m_shard1},
                                                     {"BF16/Tiny-BF16-00002-of-00002.gguf", m_shard2},
                                                     {kUnicodeModel, m_unicode}};
    for (const auto& [file, bytes] : lfsFiles) {
        const QJsonObject entry = byPath[file];
        EXPECT_EQ(entry[QStringLiteral("type")].toString().toStdString(), "file") << file;
        EXPECT_EQ(entry[QStringLiteral("size")].toInteger(), bytes.size()) << file;
        const QJsonObject lfs = entry[QStringLiteral("lfs")].toObject();
        EXPECT_EQ(lfs[QStringLiteral("oid")].toString().toStdString(), sha256Hex(bytes)) << file;
        EXPECT_EQ(lfs[QStringLiteral("size")].toInteger(), bytes.size()) << file;
        // The git LFS pointer's length: 43 + 76 + "size N\n" (the version and oid lines).
        EXPECT_EQ(lfs[QStringLiteral("pointerSize")].toInteger(),
                  static_cast<qint64>(125 + std::to_string(bytes.size()).size()))
            << file;
        EXPECT_EQ(entry[QStringLiteral("oid")].toString().size(), 40) << file;
        EXPECT_EQ(m_hub->sha256Of(kRepo, file), sha256Hex(bytes)) << file;
    }
    const QJsonObject huge = byPath[kHugeModel];
    EXPECT_EQ(static_cast<std::uint64_t>(huge[QStringLiteral("size")].toInteger()), kHugeSize);
    EXPECT_EQ(huge[QStringLiteral("lfs")][QStringLiteral("oid")].toString().toStdString(), kHugeSha256);
    // A git file: no lfs, and its oid is git's blob id of the content.
    const QJsonObject readme = byPath["README.md"];
    EXPECT_FALSE(readme.contains(QStringLiteral("lfs")));
    EXPECT_EQ(readme[QStringLiteral("oid")].toString().toStdString(), gitBlobOid(m_readme));
    EXPECT_EQ(readme[QStringLiteral("size")].toInteger(), m_readme.size());

    // The same tree under main; one level without recursive=true; a folder's own listing.
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models/" + kRepo + "/tree/main?recursive=true").body,
              get(url).body);
    const QJsonArray top = getJson(m_hub->endpoint() + "/api/models/" + kRepo + "/tree/main").array();
    EXPECT_EQ(top.size(), 5);
    const QJsonArray bf16 =
        getJson(m_hub->endpoint() + "/api/models/" + kRepo + "/tree/main/BF16?recursive=true").array();
    ASSERT_EQ(bf16.size(), 2);
    EXPECT_EQ(bf16.at(0)[QStringLiteral("path")].toString().toStdString(),
              "BF16/Tiny-BF16-00001-of-00002.gguf");
}

TEST_F(HubEmulationTest, ModelInfoListsSiblingsWithLfsHashes) {
    const QJsonObject info = getJson(m_hub->endpoint() + "/api/models/" + kRepo + "?blobs=true").object();
    EXPECT_EQ(info[QStringLiteral("sha")].toString().toStdString(), kCommit);
    const QJsonArray siblings = info[QStringLiteral("siblings")].toArray();
    ASSERT_EQ(siblings.size(), 6);
    std::map<std::string, QJsonValue> byName;
    for (const QJsonValue& sibling : siblings) {
        byName[sibling[QStringLiteral("rfilename")].toString().toStdString()] = sibling;
    }
    EXPECT_EQ(byName[kModel][QStringLiteral("lfs")][QStringLiteral("sha256")].toString().toStdString(),
              sha256Hex(m_model));
    EXPECT_EQ(byName[kModel][QStringLiteral("size")].toInteger(), m_model.size());
    EXPECT_FALSE(byName["README.md"].toObject().contains(QStringLiteral("lfs")));
}

TEST_F(HubEmulationTest, ResolveAnswersA302ToTheCdnCarryingTheMetadata) {
    for (const std::string& revision : {std::string("main"), std::string(kCommit)}) {
        const Response response = head(resolveUrl(kRepo, revision, kModel));
        ASSERT_EQ(response.status, 302) << revision;
        EXPECT_EQ(response.header("Location").toStdString(),
                  m_hub->cdnOrigin() + "/cdn/" + sha256Hex(m_model));
        EXPECT_EQ(response.header("X-Repo-Commit").toStdString(), kCommit);
        EXPECT_EQ(response.header("X-Linked-Etag").toStdString(), "\"" + sha256Hex(m_model) + "\"");
        EXPECT_EQ(response.header("X-Linked-Size").toStdString(), std::to_string(m_model.size()));
        EXPECT_EQ(response.header("ETag").toStdString(), "\"" + m_hub->gitOidOf(kRepo, kModel) + "\"");
        EXPECT_EQ(response.header("Accept-Ranges").toStdString(), "bytes");
    }
    // GET too, and a path with spaces and UTF-8 (QUrl sends it percent-encoded).
    const Response unicode = get(resolveUrl(kRepo, "main", kUnicodeModel));
    ASSERT_EQ(unicode.status, 302);
    EXPECT_EQ(unicode.header("X-Linked-Etag").toStdString(), "\"" + sha256Hex(m_unicode) + "\"");
    const Response huge = head(resolveUrl(kRepo, "main", kHugeModel));
    EXPECT_EQ(huge.header("X-Linked-Size").toStdString(), std::to_string(kHugeSize));

    // A file not in LFS comes straight from the Hub, with its git blob id as ETag.
    const Response readme = get(resolveUrl(kRepo, "main", "README.md"));
    ASSERT_EQ(readme.status, 200);
    EXPECT_EQ(readme.body, m_readme);
    EXPECT_EQ(readme.header("X-Repo-Commit").toStdString(), kCommit);
    EXPECT_EQ(readme.header("ETag").toStdString(), "\"" + gitBlobOid(m_readme) + "\"");
}

TEST_F(HubEmulationTest, CdnAnswersRangesAsStaticFiles) {
    const std::string cdn = m_hub->cdnOrigin() + "/cdn/" + sha256Hex(m_model);
    const Response range = get(cdn, {{"Range", "bytes=100-199"}});
    ASSERT_EQ(range.status, 206);
    EXPECT_EQ(range.body, m_model.mid(100, 100));
    EXPECT_EQ(range.header("Content-Range").toStdString(), "bytes 100-199/8192");

    const Response openEnded = get(cdn, {{"Range", "bytes=8000-"}});
    EXPECT_EQ(openEnded.status, 206);
    EXPECT_EQ(openEnded.body, m_model.mid(8000));
    EXPECT_EQ(get(cdn, {{"Range", "bytes=9000-"}}).status, 416);

    const Response whole = get(cdn);
    EXPECT_EQ(whole.status, 200);
    EXPECT_EQ(whole.body, m_model);
    EXPECT_EQ(whole.header("Accept-Ranges").toStdString(), "bytes");
    // nginx's own ETag ("mtime-size") is not the sha256: a client trusts only X-Linked-Etag.
    EXPECT_NE(whole.header("ETag").toStdString(), "\"" + sha256Hex(m_model) + "\"");
}

TEST_F(HubEmulationTest, SparseFileIsServedByRangeWithoutBeingRead) {
    const std::string cdn = m_hub->cdnOrigin() + "/cdn/" + kHugeSha256;
    const Response tail = get(cdn, {{"Range", bytesOf("bytes=" + std::to_string(kHugeSize - 16) + "-")}});
    ASSERT_EQ(tail.status, 206);
    EXPECT_EQ(tail.body, QByteArray(16, '\0'));
    EXPECT_EQ(tail.header("Content-Range").toStdString(), "bytes " + std::to_string(kHugeSize - 16) + "-" +
                                                              std::to_string(kHugeSize - 1) + "/" +
                                                              std::to_string(kHugeSize));
    EXPECT_EQ(m_hub->bytesServedFrom(std::string("/cdn/") + kHugeSha256), 16u);
    struct stat info {};
    ASSERT_EQ(::stat(path("huge.bin").c_str(), &info), 0);
    EXPECT_LT(info.st_blocks, 64) << "the sparse file got blocks: something wrote it";
}

TEST_F(HubEmulationTest, GatedRepoAsksForTheTokenButItsCdnDoesNot) {
    const std::string refs = m_hub->endpoint() + "/api/models/" + kGatedRepo + "/refs";
    const Response anonymous = get(refs);
    EXPECT_EQ(anonymous.status, 401);
    EXPECT_EQ(anonymous.header("X-Error-Code").toStdString(), "GatedRepo");
    EXPECT_EQ(get(refs, {{"Authorization", "Bearer hf_WrongToken0123456789012345678901234"}}).status, 401);
    EXPECT_EQ(get(refs, bearer()).status, 200);
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models/" + kGatedRepo + "/tree/main?recursive=true").status, 401);
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models/" + kGatedRepo).status, 401);
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models/" + kGatedRepo, bearer()).status, 200);

    const std::string resolve = resolveUrl(kGatedRepo, "main", kModel);
    EXPECT_EQ(head(resolve).status, 401);
    EXPECT_EQ(get(resolveUrl(kGatedRepo, "main", "README.md")).status, 401);
    const Response allowed = head(resolve, bearer());
    ASSERT_EQ(allowed.status, 302);
    EXPECT_EQ(allowed.header("X-Repo-Commit").toStdString(), kGatedCommit);
    EXPECT_EQ(get(resolveUrl(kGatedRepo, kGatedCommit, "README.md"), bearer()).body, m_readme);

    const Response cdn = get(allowed.header("Location").toStdString(), {{"Range", "bytes=0-9"}});
    EXPECT_EQ(cdn.status, 206);
    EXPECT_EQ(cdn.body, m_gatedModel.left(10));
}

TEST_F(HubEmulationTest, SearchPagesAreLinkedByCursor) {
    std::string url = m_hub->endpoint() + "/api/models?search=tiny&filter=gguf&expand[]=gguf&limit=2";
    std::vector<std::string> ids;
    std::vector<std::string> links;
    for (int page = 0; page < 5 && !url.empty(); ++page) {
        const Response response = get(url);
        ASSERT_EQ(response.status, 200) << url;
        for (const QJsonValue& model : QJsonDocument::fromJson(response.body).array()) {
            ids.push_back(model[QStringLiteral("id")].toString().toStdString());
            const HubSearchEntry& expected = m_hub->searchEntries().at(ids.size() - 1);
            EXPECT_EQ(static_cast<std::uint64_t>(model[QStringLiteral("downloads")].toInteger()),
                      expected.downloads);
            EXPECT_EQ(static_cast<std::uint64_t>(
                          model[QStringLiteral("gguf")][QStringLiteral("total")].toInteger()),
                      expected.parameters);
            EXPECT_EQ(model[QStringLiteral("gguf")][QStringLiteral("architecture")].toString().toStdString(),
                      expected.architecture);
            const QJsonValue gated = model[QStringLiteral("gated")];
            EXPECT_EQ(gated.isString() && gated.toString() == QStringLiteral("manual"),
                      ids.back() == kGatedRepo);
        }
        const std::string link = response.header("Link").toStdString();
        links.push_back(link);
        url = link.empty() ? "" : link.substr(1, link.find('>') - 1);
    }
    EXPECT_EQ(ids, (std::vector<std::string>{kRepo, "someone/Other-GGUF", kGatedRepo, "x/y", "z/w"}));
    ASSERT_EQ(links.size(), 3u);
    // The next URL keeps the client's query (as QUrl encoded it), cursor last, as the Hub's does.
    const std::string firstUri = m_hub->accessLog().at(0).uri;
    EXPECT_EQ(firstUri.substr(0, firstUri.find('?')), "/api/models");
    EXPECT_EQ(links[0], "<" + m_hub->endpoint() + firstUri + "&cursor=2>; rel=\"next\"");
    EXPECT_EQ(links[1], "<" + m_hub->endpoint() + firstUri + "&cursor=3>; rel=\"next\"");
    EXPECT_EQ(links[2], "");
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models?cursor=bogus").status, 400);
}

TEST_F(HubEmulationTest, UnknownReposPathsAndOriginsAnswer404) {
    EXPECT_NE(m_hub->endpoint(), m_hub->cdnOrigin());
    EXPECT_EQ(get(m_hub->endpoint() + "/api/models/nobody/nothing/refs").status, 404);
    EXPECT_EQ(
        get(m_hub->endpoint() + "/api/models/" + kRepo + "/tree/0000000000000000000000000000000000000000")
            .status,
        404);
    EXPECT_EQ(head(resolveUrl(kRepo, "main", "missing.gguf")).status, 404);
    EXPECT_EQ(head(resolveUrl(kRepo, "other-branch", kModel)).status, 404);
    EXPECT_EQ(get(m_hub->cdnOrigin() + "/cdn/" + std::string(64, '0')).status, 404);
    // Each origin serves only its own part.
    EXPECT_EQ(get(m_hub->endpoint() + "/cdn/" + sha256Hex(m_model)).status, 404);
    EXPECT_EQ(head(m_hub->cdnOrigin() + "/" + kRepo + "/resolve/main/" + kModel).status, 404);
    EXPECT_EQ(get(m_hub->cdnOrigin() + "/api/models/" + kRepo + "/refs").status, 404);
}

TEST_F(HubEmulationTest, AccessLogRecordsEveryFinishedRequest) {
    const std::string cdnPath = "/cdn/" + sha256Hex(m_unicode);
    ASSERT_EQ(head(resolveUrl(kRepo, "main", kUnicodeModel), {{"User-Agent", "llamafit-test"}}).status, 302);
    ASSERT_EQ(get(m_hub->cdnOrigin() + cdnPath, {{"Range", "bytes=0-1023"}}).status, 206);
    ASSERT_EQ(get(m_hub->cdnOrigin() + cdnPath, {{"Range", "bytes=1024-"}}).status, 206);
    ASSERT_EQ(get(m_hub->endpoint() + "/api/models/" + kGatedRepo + "/refs", bearer()).status, 200);

    const std::vector<HubAccessLogEntry> log = m_hub->accessLog();
    ASSERT_EQ(log.size(), 4u);
    EXPECT_EQ(log[0].method, "HEAD");
    EXPECT_EQ(log[0].status, 302);
    EXPECT_EQ(log[0].path, "/" + std::string(kRepo) + "/resolve/main/" + kUnicodeModel);
    EXPECT_NE(log[0].uri, log[0].path); // sent percent-encoded
    EXPECT_EQ(log[0].userAgent, "llamafit-test");
    EXPECT_EQ(log[0].serverAddress, "127.0.0.1");
    EXPECT_EQ(log[0].authorization, "");

    EXPECT_EQ(log[1].method, "GET");
    EXPECT_EQ(log[1].status, 206);
    EXPECT_EQ(log[1].range, "bytes=0-1023");
    EXPECT_EQ(log[1].bodyBytes, 1024u);
    EXPECT_EQ(log[1].serverAddress, "127.0.0.2");
    EXPECT_EQ(log[1].host, m_hub->cdnOrigin().substr(std::string("http://").size()));
    EXPECT_EQ(log[2].bodyBytes, static_cast<std::uint64_t>(m_unicode.size() - 1024));
    EXPECT_EQ(log[3].authorization, "Bearer " + m_hub->token());
    EXPECT_EQ(m_hub->bytesServedFrom(cdnPath), static_cast<std::uint64_t>(m_unicode.size()));
    EXPECT_EQ(m_hub->bytesServedFrom("/cdn/"), static_cast<std::uint64_t>(m_unicode.size()));

    // Reading the log makes no entry of its own, and a later request is there the next time.
    ASSERT_EQ(get(m_hub->endpoint() + "/api/models/" + kRepo + "/refs").status, 200);
    EXPECT_EQ(m_hub->accessLog().size(), 5u);
}

// Waits (pidfd) until the process is gone; true when it is.
bool processEnds(int pid) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        return errno == ESRCH;
    }
    pollfd fd{pidfd, POLLIN, 0};
    const bool ended = ::poll(&fd, 1, 5000) > 0;
    ::close(pidfd);
    return ended;
}

TEST_F(HubEmulationTest, MovingKeepsNginxAndDestroyingStopsIt) {
    const int pid = m_hub->pid();
    ASSERT_GT(pid, 0);
    HubEmulation moved = std::move(*m_hub);
    m_hub.reset(); // the moved-from emulation stops nothing
    EXPECT_EQ(::kill(pid, 0), 0);
    EXPECT_EQ(get(moved.endpoint() + "/api/models/" + kRepo + "/refs").status, 200);
    { HubEmulation gone = std::move(moved); }
    EXPECT_TRUE(processEnds(pid));
    EXPECT_NE(::kill(pid, 0), 0);
}

// A stand-in for nginx: a shell script, run with nginx's arguments.
std::string writeScript(const std::string& path, const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\n" << body;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

// Runs `body` with $LLAMAFIT_NGINX set to `nginx`, then puts the variable back.
template <typename Body> void withNginx(const std::string& nginx, Body body) {
    const char* configured = std::getenv("LLAMAFIT_NGINX");
    const std::string saved = configured != nullptr ? configured : "";
    ::setenv("LLAMAFIT_NGINX", nginx.c_str(), 1);
    body();
    configured != nullptr ? ::setenv("LLAMAFIT_NGINX", saved.c_str(), 1) : ::unsetenv("LLAMAFIT_NGINX");
}

TEST(HubEmulationStart, RefusesFixturesItCannotServe) {
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const std::string work = folder.path().toStdString();
    const std::string content = work + "/content";
    std::ofstream(content) << "x";
    const auto refused = [&](HubFixtureRepo repo, HubEmulationOptions options = {}) {
        auto started = HubEmulation::start({std::move(repo)}, work, std::move(options));
        return started.ok() ? std::string("started") : started.error().code;
    };
    EXPECT_EQ(refused({kRepo, "not-a-commit", {{"a.gguf", content, "", std::nullopt}}, false}),
              "test.bad-fixture");
    EXPECT_EQ(refused({"no-slash", kCommit, {}, false}), "test.bad-fixture");
    EXPECT_EQ(refused({kRepo, kCommit, {{"../a.gguf", content, "", std::nullopt}}, false}),
              "test.bad-fixture");
    EXPECT_EQ(refused({kRepo, kCommit, {{"a.gguf", work + "/missing", "", std::nullopt}}, false}),
              "test.bad-fixture");
    EXPECT_EQ(
        refused(
            {kRepo, kCommit, {{"a", content, "", std::nullopt}, {"a/b", content, "", std::nullopt}}, false}),
        "test.bad-fixture");
    HubEmulationOptions badToken;
    badToken.token = "hf_$injected";
    EXPECT_EQ(refused({kRepo, kCommit, {}, false}, badToken), "test.bad-fixture");
}

TEST(HubEmulationStart, SaysHowToGetNginxWhenItIsMissing) {
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    withNginx(folder.path().toStdString() + "/no-nginx", [&] {
        auto missing = HubEmulation::start({}, folder.path().toStdString());
        ASSERT_FALSE(missing.ok());
        EXPECT_EQ(missing.error().code, "test.nginx-not-found");
        EXPECT_NE(missing.error().message.find("LLAMAFIT_NGINX"), std::string::npos);
    });
}

TEST(HubEmulationStart, ReplacesWhatAnEarlierEmulationLeftInItsFolder) {
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const std::string work = folder.path().toStdString();
    std::ofstream(work + "/content") << "bytes";
    const HubFixtureRepo first{kRepo, kCommit, {{"a.gguf", work + "/content", "", std::nullopt}}, false};
    {
        auto hub = HubEmulation::start({first}, work);
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        ASSERT_EQ(hub->accessLog().size(), 0u);
    }
    const HubFixtureRepo second{
        kGatedRepo, kGatedCommit, {{"b.gguf", work + "/content", "", std::nullopt}}, false};
    auto hub = HubEmulation::start({second}, work);
    ASSERT_TRUE(hub.ok()) << hub.error().message;
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QNetworkReply* reply = network.get(
        QNetworkRequest(QUrl(QString::fromStdString(hub->endpoint() + "/api/models/" + kRepo + "/refs"))));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    ASSERT_TRUE(finished.wait(10000));
    EXPECT_EQ(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
    reply->deleteLater();
    EXPECT_EQ(hub->accessLog().size(), 1u);
}

TEST(HubEmulationStart, TriesAnotherPortWhenNginxCannotBind) {
    const auto real = findNginx();
    ASSERT_TRUE(real.ok()) << real.error().message;
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const std::string work = folder.path().toStdString();
    // The first start fails as nginx does on a taken port; the second is the real nginx.
    const std::string nginx = writeScript(
        work + "/nginx", "echo start >>" + work +
                             "/starts\n"
                             "if [ ! -e " +
                             work +
                             "/bound-once ]; then\n"
                             "    : >" +
                             work +
                             "/bound-once\n"
                             "    echo 'bind() to 127.0.0.2:1 failed (98: Address already in use)' >&2\n"
                             "    exit 1\n"
                             "fi\n"
                             "exec " +
                             *real + " \"$@\"\n");
    withNginx(nginx, [&] {
        auto hub = HubEmulation::start({}, work);
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        std::ifstream starts(work + "/starts");
        const auto lines =
            std::count(std::istreambuf_iterator<char>(starts), std::istreambuf_iterator<char>(), '\n');
        EXPECT_EQ(lines, 2);
    });
}

TEST(HubEmulationStart, ReportsAnNginxThatDoesNotListen) {
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const std::string work = folder.path().toStdString();
    withNginx(writeScript(work + "/nginx", "echo 'nginx: [emerg] unknown directive' >&2\nexit 1\n"), [&] {
        auto hub = HubEmulation::start({}, work);
        ASSERT_FALSE(hub.ok());
        EXPECT_EQ(hub.error().code, "test.nginx-not-ready");
        EXPECT_NE(hub.error().message.find("unknown directive"), std::string::npos) << hub.error().message;
    });
    // One that never listens is stopped at the deadline, not left running.
    withNginx(writeScript(work + "/nginx", "echo $$ >" + work + "/pid\nexec sleep 60\n"), [&] {
        HubEmulationOptions options;
        options.startTimeout = std::chrono::milliseconds(300);
        auto hub = HubEmulation::start({}, work, options);
        ASSERT_FALSE(hub.ok());
        EXPECT_EQ(hub.error().code, "test.nginx-not-ready");
        EXPECT_NE(hub.error().message.find("did not listen"), std::string::npos) << hub.error().message;
        int pid = 0;
        std::ifstream(work + "/pid") >> pid;
        ASSERT_GT(pid, 0);
        EXPECT_NE(::kill(pid, 0), 0) << "the stand-in still runs";
    });
}

} // namespace
} // namespace llamafit::test
