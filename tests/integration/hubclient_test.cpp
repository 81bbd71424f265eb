// The Hub client, the quant sizing and the downloads against a real web server: the Hugging Face
// Hub emulated by Debian's nginx on loopback (tests/support/hubemulation.h), serving GGUF files
// the tests generate. What is asserted is what a user relies on: a quant's fit-table row equals
// the estimate of the file once downloaded, to the byte; sizing a repo reads no tensor data; a
// download cut at any byte resumes and verifies; a corrupted one is refused and named; the token
// never reaches the CDN.

#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufsplit.h"
#include "core/hub/hubcachelayout.h"
#include "core/hub/quantfit.h"
#include "core/library/libraryscan.h"
#include "core/machine/machineprofile.h"
#include "core/model/companionmodels.h"
#include "core/model/modelsource.h"
#include "core/sizing/estimator.h"
#include "core/system/hubclient.h"
#include "core/system/hubdownload.h"
#include "core/system/hubquants.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/ggufwriter.h"
#include "tests/support/hubemulation.h"
#include "tests/support/hubfixtures.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace llamafit::test {
namespace {

namespace fs = std::filesystem;

const std::string kTinyRepo = "llamafit-test/Tiny-GGUF";
const std::string kGatedRepo = "llamafit-test/Gated-GGUF";
const std::string kWideRepo = "llamafit-test/Llama-Twenty-Quants-GGUF";
const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kEightGbCard = "rtx-4060-8gb";

// The fit table for the seed's 8 GB card with the public speed defaults.
QuantFitTable tableFor(const std::vector<QuantCandidate>& candidates, const ServerSettings& settings) {
    return quantFitTable(candidates, settings, *findBuiltinMachine(kEightGbCard), {}, defaultKvPairs(),
                         [](bool moe) { return defaultSpeedEfficiency(Backend::Cuda, moe); });
}

std::string folder(const std::string& name) {
    std::string error;
    const std::string& scratch = scratchDirectory(error);
    EXPECT_FALSE(scratch.empty()) << error;
    const std::string path = scratch + "/" + name;
    fs::create_directories(path);
    return path;
}

class HubClientTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        const std::string dir = folder("hub-fixture");
        auto files = tinyHubRepoFiles(dir);
        ASSERT_TRUE(files.ok()) << files.error().message;
        std::vector<HubFixtureRepo> repos{{kTinyRepo, kCommit, *files, false}};
        HubFixtureRepo gated{kGatedRepo, kCommit, {}, true};
        gated.files.push_back(repos.front().files[1]); // Tiny-Q8_0.gguf
        repos.push_back(gated);
        HubEmulationOptions options;
        options.searchResultIds = {kTinyRepo, kGatedRepo};
        options.searchPageSize = 1;
        auto hub = HubEmulation::start(std::move(repos), folder("hub-site"), options);
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        s_hub = new HubEmulation(std::move(*hub));
    }
    static void TearDownTestSuite() {
        delete s_hub;
        s_hub = nullptr;
    }
    void SetUp() override { ASSERT_NE(s_hub, nullptr); }

    HubClient client(bool withToken = false) const {
        HubClientOptions options;
        options.endpoint = s_hub->endpoint();
        if (withToken) {
            options.token = s_hub->token();
        }
        options.idleTimeout = std::chrono::seconds(20);
        return HubClient(options);
    }

    static HubEmulation* s_hub;
};

HubEmulation* HubClientTest::s_hub = nullptr;

TEST_F(HubClientTest, SearchFollowsThePages) {
    HubClient hub = client();
    auto models = hub.search("tiny", 10);
    ASSERT_TRUE(models.ok()) << models.error().message;
    ASSERT_EQ(models->size(), 2U); // one per page, two pages
    EXPECT_EQ((*models)[0].id, kTinyRepo);
    EXPECT_EQ((*models)[1].id, kGatedRepo);
    EXPECT_TRUE((*models)[1].gated);
    EXPECT_EQ((*models)[0].downloads, s_hub->searchEntries()[0].downloads);
}

TEST_F(HubClientTest, QuantRowsEqualTheEstimateOfTheDownloadedFiles) {
    HubClient hub = client();
    const HubHeaderCache cache(folder("headers-equal"));
    auto sizing = sizeRepoQuants(hub, cache, kTinyRepo);
    ASSERT_TRUE(sizing.ok()) << sizing.error().message;
    EXPECT_EQ(sizing->commit, kCommit);
    ASSERT_EQ(sizing->candidates.size(), 4U); // F32, F16 (2 shards), Q8_0, Q4_0
    const Machine machine = *findBuiltinMachine(kEightGbCard);
    ServerSettings settings;
    settings.contextTokens = 2048;
    const QuantFitTable table = tableFor(sizing->candidates, settings);
    ASSERT_EQ(table.rows.size(), 4U);
    EXPECT_EQ(table.rows.front().quant.label, "F32"); // the Hub's quality order
    EXPECT_EQ(table.recommended, 0U);                 // a tiny model fits everywhere: the best quality

    const HubCacheLayout layout{folder("hub-cache-equal"), kTinyRepo};
    for (const QuantFitRow& row : table.rows) {
        ASSERT_FALSE(row.error) << row.quant.label << ": " << row.error->message;
        auto pulled = pullQuant(hub, layout, sizing->commit, row.quant);
        ASSERT_TRUE(pulled.ok()) << pulled.error().message;
        ASSERT_EQ(pulled->modelPaths.size(), row.quant.files.size());
        // The downloaded file, loaded as any local file is, sized with the same settings.
        auto local = loadModel(pulled->modelPaths.front());
        ASSERT_TRUE(local.ok()) << local.error().message;
        ASSERT_TRUE(pulled->projectorPath.has_value())
            << row.quant.label << ": the projector did not come along";
        ServerSettings launched = settings;
        launched.projector.path = *pulled->projectorPath;
        auto companions = loadCompanionModels(launched);
        ASSERT_TRUE(companions.ok()) << companions.error().message;
        auto estimate = estimateMemory(local->info, launched, sizingGpus(machine), *companions);
        ASSERT_TRUE(estimate.ok()) << estimate.error().message;
        EXPECT_TRUE(*estimate == *row.estimate)
            << row.quant.label << ": the row is not the downloaded file's estimate";
        EXPECT_EQ(estimate->totals.totalBytes(), row.estimate->totals.totalBytes()) << row.quant.label;
    }
    // The cache as llama.cpp lays it out: relative links into blobs, refs/main.
    const std::string link = layout.snapshotPath(kCommit, "F16/Tiny-F16-00001-of-00002.gguf");
    ASSERT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(fs::read_symlink(link).string(),
              snapshotLinkTarget("F16/Tiny-F16-00001-of-00002.gguf",
                                 s_hub->sha256Of(kTinyRepo, "F16/Tiny-F16-00001-of-00002.gguf")));
    std::ifstream ref(layout.refPath("main"));
    std::string commit;
    ref >> commit;
    EXPECT_EQ(commit, kCommit);
}

TEST_F(HubClientTest, AnInterruptedDownloadResumesFromItsByteAndVerifies) {
    HubClient hub = client();
    const HubCacheLayout layout{folder("hub-cache-resume"), kTinyRepo};
    const std::string repoPath = "Tiny-F32.gguf";
    const std::string sha = s_hub->sha256Of(kTinyRepo, repoPath);
    QFile source(QString::fromStdString(folder("hub-fixture") + "/" + repoPath));
    ASSERT_TRUE(source.open(QIODevice::ReadOnly));
    const QByteArray whole = source.readAll();
    // Cut at a random byte (seeded: a failure names its byte), as a dropped connection leaves it.
    std::mt19937 random(20261206);
    for (int trial = 0; trial < 3; ++trial) {
        const auto cut = std::uniform_int_distribution<qsizetype>(1, whole.size() - 1)(random);
        fs::remove_all(layout.repoDirectory());
        fs::create_directories(fs::path(layout.partialBlobPath(sha)).parent_path());
        std::ofstream(layout.partialBlobPath(sha), std::ios::binary).write(whole.constData(), cut);
        const std::size_t logBefore = s_hub->accessLog().size();
        auto path = downloadHubFile(hub, layout, kCommit,
                                    HubRepoFile{repoPath, static_cast<std::uint64_t>(whole.size()), sha, ""});
        ASSERT_TRUE(path.ok()) << "cut at " << cut << ": " << path.error().message;
        EXPECT_FALSE(fs::exists(layout.partialBlobPath(sha)));
        QFile blob(QString::fromStdString(layout.blobPath(sha)));
        ASSERT_TRUE(blob.open(QIODevice::ReadOnly));
        EXPECT_EQ(QCryptographicHash::hash(blob.readAll(), QCryptographicHash::Sha256).toHex().toStdString(),
                  sha);
        // Only the rest was fetched: one Range request from the cut on, through the redirect.
        const auto log = s_hub->accessLog();
        std::uint64_t cdnBytes = 0;
        bool resumedAtCut = false;
        for (std::size_t i = logBefore; i < log.size(); ++i) {
            if (log[i].path.starts_with("/cdn/")) {
                cdnBytes += log[i].bodyBytes;
                resumedAtCut = resumedAtCut || log[i].range == "bytes=" + std::to_string(cut) + "-";
            }
        }
        EXPECT_TRUE(resumedAtCut) << "cut at " << cut;
        EXPECT_EQ(cdnBytes, static_cast<std::uint64_t>(whole.size() - cut));
    }
}

TEST_F(HubClientTest, ACorruptedDownloadIsRefusedAndNamed) {
    HubClient hub = client();
    const HubCacheLayout layout{folder("hub-cache-corrupt"), kTinyRepo};
    const std::string repoPath = "Tiny-Q8_0.gguf";
    const std::string sha = s_hub->sha256Of(kTinyRepo, repoPath);
    const auto size = static_cast<std::uint64_t>(fs::file_size(folder("hub-fixture") + "/" + repoPath));
    fs::create_directories(fs::path(layout.partialBlobPath(sha)).parent_path());
    std::ofstream(layout.partialBlobPath(sha), std::ios::binary)
        << std::string(100, '\x5a'); // not its first bytes
    auto path = downloadHubFile(hub, layout, kCommit, HubRepoFile{repoPath, size, sha, ""});
    ASSERT_FALSE(path.ok());
    EXPECT_EQ(path.error().code, "hub.hash-mismatch");
    EXPECT_NE(path.error().message.find(repoPath), std::string::npos);
    EXPECT_FALSE(fs::exists(layout.blobPath(sha)));        // nothing unverified is used
    EXPECT_FALSE(fs::exists(layout.partialBlobPath(sha))); // and the next try starts clean
    EXPECT_FALSE(fs::exists(layout.snapshotPath(kCommit, repoPath)));
    // A file whose listed hash no bytes can match is refused the same way.
    auto wrong = downloadHubFile(hub, layout, kCommit, HubRepoFile{repoPath, size, std::string(64, 'f'), ""});
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error().code, "hub.hash-mismatch");
}

TEST_F(HubClientTest, AGatedRepoNeedsTheTokenWhichNeverReachesTheCdn) {
    HubClient anonymous = client(false);
    auto refused = anonymous.branchCommit(kGatedRepo);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "hub.gated");
    EXPECT_NE(refused.error().message.find("HF_TOKEN"), std::string::npos);

    HubClient authorized = client(true);
    const HubCacheLayout layout{folder("hub-cache-gated"), kGatedRepo};
    auto files = authorized.tree(kGatedRepo, kCommit);
    ASSERT_TRUE(files.ok()) << files.error().message;
    const std::size_t logBefore = s_hub->accessLog().size();
    auto pulled = pullQuant(authorized, layout, kCommit, repoQuants(*files).front());
    ASSERT_TRUE(pulled.ok()) << pulled.error().message;
    const auto log = s_hub->accessLog();
    int hubRequests = 0;
    int cdnRequests = 0;
    for (std::size_t i = logBefore; i < log.size(); ++i) {
        if (log[i].serverAddress == "127.0.0.2") {
            ++cdnRequests;
            EXPECT_EQ(log[i].authorization, "") << log[i].uri << ": the token went to the CDN";
        } else {
            ++hubRequests;
            EXPECT_EQ(log[i].authorization, "Bearer " + s_hub->token()) << log[i].uri;
        }
    }
    EXPECT_GT(hubRequests, 0);
    EXPECT_GT(cdnRequests, 0);
}

TEST_F(HubClientTest, MissingReposAndAnUnreachableHubAreNamed) {
    HubClient hub = client();
    auto missing = hub.branchCommit("llamafit-test/No-Such-Repo");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "hub.not-found");
    EXPECT_EQ(hub.branchCommit("../etc").error().code, "hub.bad-repo-id");
    HubClientOptions offline;
    offline.endpoint = "http://127.0.0.1:9"; // discard: nothing listens
    HubClient nowhere(offline);
    auto unreachable = nowhere.search("x", 1);
    ASSERT_FALSE(unreachable.ok());
    EXPECT_EQ(unreachable.error().code, "hub.offline");
}

// `llamafit-cli hf`, as a script runs it: the endpoint from MODEL_ENDPOINT, the cache from
// HF_HUB_CACHE, JSON out; the pull's paths load, and a second pull downloads nothing.
TEST_F(HubClientTest, TheCliSizesAndPullsThroughTheEnvironment) {
    const std::string home = folder("cli-home");
    const std::string cache = folder("cli-hub-cache");
    const auto runCli = [&](const QStringList& args) {
        QProcess cli;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("MODEL_ENDPOINT"), QString::fromStdString(s_hub->endpoint()));
        environment.insert(QStringLiteral("HF_HUB_CACHE"), QString::fromStdString(cache));
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), QString::fromStdString(home + "/cache"));
        environment.remove(QStringLiteral("HF_TOKEN"));
        environment.remove(QStringLiteral("LLAMA_CACHE"));
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(LLAMAFIT_CLI_PATH), args);
        EXPECT_TRUE(cli.waitForFinished(120000));
        EXPECT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
        return nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false);
    };
    const auto words = [](std::initializer_list<std::string> list) {
        QStringList out;
        for (const std::string& word : list) {
            out << QString::fromStdString(word);
        }
        return out;
    };
    const auto quants =
        runCli(words({"hf", "quants", kTinyRepo, "--machine", "rtx-4060-8gb", "-c", "2048", "--json"}));
    ASSERT_FALSE(quants.is_discarded());
    EXPECT_EQ(quants["commit"], kCommit);
    ASSERT_EQ(quants["quants"].size(), 4U);
    EXPECT_EQ(quants["quants"][0]["label"], "F32");
    EXPECT_EQ(quants["quants"][0]["recommended"], true);
    EXPECT_EQ(quants["quants"][0]["verdict"], "fits");
    EXPECT_GT(quants["header_bytes_read"].get<std::uint64_t>(), 0U);

    const auto pulled = runCli(words({"hf", "pull", kTinyRepo + ":q4_0", "--json"}));
    ASSERT_FALSE(pulled.is_discarded());
    EXPECT_EQ(pulled["quant"], "Q4_0");
    const std::string modelPath = pulled["model_paths"][0];
    const HubCacheLayout layout{cache, kTinyRepo};
    EXPECT_EQ(modelPath, layout.snapshotPath(kCommit, "Tiny-Q4_0.gguf"));
    EXPECT_TRUE(loadModel(modelPath).ok());
    EXPECT_TRUE(pulled["projector_path"].is_string());
    const std::size_t before = s_hub->bytesServedFrom("/cdn/");
    runCli(words({"hf", "pull", kTinyRepo + ":Q4_0", "--json"}));
    EXPECT_EQ(s_hub->bytesServedFrom("/cdn/"), before) << "the second pull downloaded again";
}

// The shared cache works both ways with the real llama-server 0.7.0: it loads, with -hf and
// --offline, the quant LlamaFit downloaded; and LlamaFit's library lists, and sizes like any local
// file, the quant llama-server -hf downloaded from the same Hub.
TEST_F(HubClientTest, LlamaServerAndLlamaFitShareTheCache) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    const auto runServer = [&](const std::string& cache, std::vector<std::string> args) {
        ServerRunOptions options;
        options.executable = *server;
        options.args = std::move(args);
        options.args.insert(options.args.end(), {"-c", "256", "-fit", "off", "-t", "2", "--no-warmup"});
        options.environment = {{"HF_HUB_CACHE", cache},
                               {"MODEL_ENDPOINT", s_hub->endpoint() + "/"},
                               {"LLAMAFIT_NO_POPULATE", "1"}};
        options.timeout = std::chrono::seconds(120);
        options.stopWhen = [](std::string_view log) {
            return log.find("listening on") != std::string_view::npos ||
                   log.find("exiting due to model loading error") != std::string_view::npos;
        };
        return runLlamaServer(options);
    };

    // LlamaFit downloads; llama-server finds it offline.
    const std::string ours = folder("interop-ours");
    HubClient hub = client();
    auto files = hub.tree(kTinyRepo, kCommit);
    ASSERT_TRUE(files.ok());
    const std::vector<RepoQuant> quants = repoQuants(*files);
    ASSERT_NE(quantForTag(quants, "Q8_0"), nullptr);
    ASSERT_TRUE(
        pullQuant(hub, HubCacheLayout{ours, kTinyRepo}, kCommit, *quantForTag(quants, "Q8_0"), false).ok());
    const std::size_t before = s_hub->accessLog().size();
    auto offline = runServer(ours, {"-hf", kTinyRepo + ":Q8_0", "--offline", "--no-mmproj"});
    ASSERT_TRUE(offline.ok()) << offline.error().message;
    EXPECT_NE(offline->log.find("listening on"), std::string::npos) << offline->log;
    EXPECT_EQ(s_hub->accessLog().size(), before) << "llama-server --offline went to the Hub";

    // llama-server downloads; LlamaFit's library finds it in the same cache layout.
    const std::string theirs = folder("interop-theirs");
    auto online = runServer(theirs, {"-hf", kTinyRepo + ":Q4_0", "--no-mmproj"});
    ASSERT_TRUE(online.ok()) << online.error().message;
    ASSERT_NE(online->log.find("listening on"), std::string::npos) << online->log;
    const LibraryScanResult scan =
        scanLibrary({LibraryRoot{theirs, LibraryRootKind::HfHubCache, "Hugging Face cache"}});
    const auto entry = std::find_if(scan.entries.begin(), scan.entries.end(), [](const LibraryEntry& e) {
        return e.path.find("Tiny-Q4_0.gguf") != std::string::npos;
    });
    ASSERT_NE(entry, scan.entries.end()) << "the library did not list llama-server's download";
    EXPECT_FALSE(entry->error) << entry->error->message;
    const std::string blob =
        HubCacheLayout{theirs, kTinyRepo}.blobPath(s_hub->sha256Of(kTinyRepo, "Tiny-Q4_0.gguf"));
    EXPECT_TRUE(fs::exists(blob)) << "llama-server's blob is not where LlamaFit downloads to";
}

// Twenty quants of Llama-3.2-1B (sparse files, a 128256-token vocabulary: 2.8 MB headers): the
// whole fit table from their headers, and not one byte of tensor data fetched.
TEST(HubQuantSizing, TwentyQuantsAreSizedWithoutReadingTensorData) {
    const auto spec = loadShape("llama");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const std::string dir = folder("wide-fixture");
    const std::vector<std::pair<std::string, GgmlType>> quants{
        {"F16", GgmlType::F16},         {"BF16", GgmlType::BF16},       {"Q8_0", GgmlType::Q8_0},
        {"Q6_K", GgmlType::Q6_K},       {"Q5_K_M", GgmlType::Q5_K},     {"Q5_K_S", GgmlType::Q5_K},
        {"Q5_0", GgmlType::Q5_0},       {"Q5_1", GgmlType::Q5_1},       {"Q4_K_M", GgmlType::Q4_K},
        {"Q4_K_S", GgmlType::Q4_K},     {"IQ4_NL", GgmlType::IQ4_NL},   {"IQ4_XS", GgmlType::IQ4_XS},
        {"Q4_0", GgmlType::Q4_0},       {"Q4_1", GgmlType::Q4_1},       {"Q3_K_L", GgmlType::Q3_K},
        {"Q3_K_M", GgmlType::Q3_K},     {"IQ3_XXS", GgmlType::IQ3_XXS}, {"Q2_K", GgmlType::Q2_K},
        {"IQ2_XXS", GgmlType::IQ2_XXS}, {"UD-Q4_K_XL", GgmlType::Q4_K}};
    HubFixtureRepo repo{kWideRepo, kCommit, {}, false};
    std::map<std::string, std::uint64_t> dataOffsets; // by sha256
    for (const auto& [label, type] : quants) {
        const std::string name = "Llama-8B-" + label + ".gguf";
        ModelFileOptions options;
        options.weightType = type;
        auto written = writeSpecAsGguf(*spec, dir + "/" + name, options);
        ASSERT_TRUE(written.ok()) << written.error().message;
        // A made-up hash: the test reads none of these files whole, nor does the emulation.
        const std::string sha =
            QCryptographicHash::hash(QByteArray::fromStdString(name), QCryptographicHash::Sha256)
                .toHex()
                .toStdString();
        repo.files.push_back({name, dir + "/" + name, sha, true});
        dataOffsets[sha] = serializeGgufHeader(*written).size();
    }
    auto hub = HubEmulation::start({repo}, folder("wide-site"));
    ASSERT_TRUE(hub.ok()) << hub.error().message;
    HubClientOptions options;
    options.endpoint = hub->endpoint();
    HubClient client(options);
    const HubHeaderCache cache(folder("headers-wide"));
    auto sizing = sizeRepoQuants(client, cache, kWideRepo);
    ASSERT_TRUE(sizing.ok()) << sizing.error().message;
    ASSERT_EQ(sizing->candidates.size(), 20U);
    for (const QuantCandidate& candidate : sizing->candidates) {
        ASSERT_TRUE(candidate.model.ok()) << candidate.quant.label << ": " << candidate.model.error().message;
    }
    // Every Range request ended before its file's tensor data.
    std::uint64_t served = 0;
    for (const HubAccessLogEntry& entry : hub->accessLog()) {
        if (!entry.path.starts_with("/cdn/")) {
            continue;
        }
        const std::string sha = entry.path.substr(5);
        ASSERT_TRUE(dataOffsets.contains(sha)) << entry.path;
        ASSERT_TRUE(entry.range.starts_with("bytes=")) << entry.uri << " without Range";
        const std::uint64_t last = std::stoull(entry.range.substr(entry.range.find('-') + 1));
        EXPECT_LT(last, dataOffsets[sha]) << entry.path << " " << entry.range << ": tensor data read";
        served += entry.bodyBytes;
    }
    EXPECT_EQ(served, sizing->bytesRead);
    std::uint64_t headers = 0;
    for (const auto& [sha, offset] : dataOffsets) {
        headers += offset;
    }
    EXPECT_LE(served, headers);
    std::cout << "[ hub      ] 20 quants sized from " << served << " header bytes in "
              << hub->accessLog().size() << " requests\n";

    // The table for the seed's 8 GB card: a recommendation, from the best quality down.
    ServerSettings settings;
    settings.contextTokens = 8192;
    const QuantFitTable table = tableFor(sizing->candidates, settings);
    ASSERT_TRUE(table.recommended.has_value());
    for (std::size_t i = 0; i < *table.recommended; ++i) {
        EXPECT_NE(table.rows[i].verdict, FitVerdict::Fits)
            << table.rows[i].quant.label << " fits but ranks higher";
    }
    EXPECT_EQ(table.rows[*table.recommended].verdict, FitVerdict::Fits);

    // Asked again: every header comes from the cache, nothing over the network.
    const std::size_t requestsBefore = hub->accessLog().size();
    auto again = sizeRepoQuants(client, cache, kWideRepo);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->bytesRead, 0U);
    EXPECT_EQ(hub->accessLog().size(), requestsBefore + 2); // refs and tree only
}

} // namespace
} // namespace llamafit::test
