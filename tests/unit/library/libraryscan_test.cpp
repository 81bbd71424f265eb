// The library scan on real files in a scratch folder: plain models with their header summary,
// a corrupt file, split models (whole and with a part missing), mmproj files, the HF cache's
// symlinked snapshots (and a symlink loop), an Ollama store, duplicates, progress and cancel.

#include "core/library/libraryscan.h"

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "tests/unit/library/libraryfixtures.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stop_token>
#include <sys/stat.h>

namespace llamafit {
namespace {

namespace fs = std::filesystem;
using test::LibraryDir;

LibraryRoots folderRoot(const std::string& path, LibraryRootKind kind = LibraryRootKind::UserFolder) {
    return {{path, kind, std::string(libraryRootKindLabel(kind))}};
}

const LibraryEntry* findByName(const LibraryScanResult& result, const std::string& name) {
    for (const auto& entry : result.entries) {
        if (entry.name == name) {
            return &entry;
        }
    }
    return nullptr;
}

TEST(LibraryScan, PlainModelCarriesItsHeaderSummary) {
    LibraryDir dir;
    const std::string path = dir.path("models/tiny.gguf");
    test::writeTinyModelNamed(path, "Tiny Llama");
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 1u);
    const auto& entry = result.entries.front();
    EXPECT_FALSE(entry.error.has_value());
    EXPECT_EQ(entry.name, "tiny");
    EXPECT_EQ(entry.path, path);
    EXPECT_EQ(entry.summary.displayName, "Tiny Llama");
    EXPECT_EQ(entry.summary.architecture, "llama");
    const auto info = interpretModel(*readGgufModel(path));
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(entry.summary.parameterCount, info->parameterCount());
    EXPECT_EQ(entry.summary.activeParameterCount, info->parameterCount());
    EXPECT_EQ(entry.summary.trainingContext, info->trainingContext);
    EXPECT_EQ(entry.summary.quantisation, "F32"); // general.file_type 0 = LLAMA_FTYPE_ALL_F32
    EXPECT_EQ(entry.summary.fileBytes, fs::file_size(path));
    EXPECT_FALSE(entry.summary.moe || entry.summary.recurrent || entry.summary.slidingWindow ||
                 entry.summary.mla);
    EXPECT_EQ(result.filesDone, 1u);
    EXPECT_EQ(result.filesFound, 1u);
    EXPECT_FALSE(result.cancelled);
}

TEST(LibraryScan, CorruptFileIsAnEntryWithTheReadersErrorAndTheScanGoesOn) {
    LibraryDir dir;
    test::writeCorruptFile(dir.path("a-broken.gguf"));
    test::writeTinyModelNamed(dir.path("b-good.gguf"), "good");
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 2u);
    const auto* broken = findByName(result, "a-broken");
    ASSERT_NE(broken, nullptr);
    ASSERT_TRUE(broken->error.has_value());
    EXPECT_EQ(broken->error->code, "gguf.bad-magic");
    EXPECT_EQ(broken->error->message, readGgufModel(broken->path).error().message);
    EXPECT_EQ(broken->summary.fileBytes, fs::file_size(broken->path));
    const auto* good = findByName(result, "b-good");
    ASSERT_NE(good, nullptr);
    EXPECT_FALSE(good->error.has_value());
}

TEST(LibraryScan, SplitModelIsOneEntryWithEveryPart) {
    LibraryDir dir;
    const auto parts = test::writeSplitTinyModel(dir.path("split/Tiny-F32"), 3);
    ASSERT_EQ(parts.size(), 3u);
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 1u);
    const auto& entry = result.entries.front();
    EXPECT_FALSE(entry.error.has_value()) << entry.error->message;
    EXPECT_EQ(entry.name, "Tiny-F32");
    EXPECT_EQ(entry.path, parts[0]);
    EXPECT_EQ(entry.partPaths, parts);
    std::uint64_t total = 0;
    for (const auto& part : parts) {
        total += fs::file_size(part);
    }
    EXPECT_EQ(entry.summary.fileBytes, total);
    EXPECT_EQ(entry.summary.architecture, "llama");
    EXPECT_EQ(result.filesDone, 3u);
}

TEST(LibraryScan, MissingSplitPartIsAnErrorOnTheEntry) {
    LibraryDir dir;
    const auto parts = test::writeSplitTinyModel(dir.path("Tiny-F32"), 3);
    ASSERT_EQ(parts.size(), 3u);
    fs::remove(parts[1]);
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 1u);
    const auto& entry = result.entries.front();
    ASSERT_TRUE(entry.error.has_value());
    EXPECT_EQ(entry.error->code, "gguf.split-part-missing");
    EXPECT_NE(entry.error->message.find(parts[1]), std::string::npos) << entry.error->message;
    EXPECT_EQ(entry.partPaths, (std::vector<std::string>{parts[0], parts[2]}));
}

TEST(LibraryScan, ProjectorNamedMmprojIsAttachedNotListed) {
    LibraryDir dir;
    test::writeTinyModelNamed(dir.path("gemma/model-Q8_0.gguf"), "model");
    test::writeProjector(dir.path("gemma/mmproj-model-f16.gguf"));
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 1u);
    EXPECT_EQ(result.entries.front().name, "model-Q8_0");
    EXPECT_EQ(result.entries.front().mmprojPaths,
              std::vector<std::string>{dir.path("gemma/mmproj-model-f16.gguf")});
    EXPECT_EQ(result.projectorCount, 1u);
}

TEST(LibraryScan, ProjectorRecognisedByItsHeader) {
    LibraryDir dir;
    test::writeTinyModelNamed(dir.path("m/model.gguf"), "model");
    test::writeProjector(dir.path("m/vision-encoder.gguf"));
    const auto result = scanLibrary(folderRoot(dir.root()));
    ASSERT_EQ(result.entries.size(), 1u);
    EXPECT_EQ(result.entries.front().name, "model");
    EXPECT_EQ(result.entries.front().mmprojPaths,
              std::vector<std::string>{dir.path("m/vision-encoder.gguf")});
}

TEST(LibraryScan, HfCacheSnapshotsFollowSymlinksAndNameOrgRepo) {
#ifdef _WIN32
    GTEST_SKIP() << "MinGW's libstdc++ does not implement std::filesystem symlinks on Windows (ENOSYS)";
#endif
    LibraryDir dir;
    const std::string repo = dir.path("hub/models--ggml-org--tiny-GGUF/blobs/0123abcd");
    test::writeTinyModelNamed(repo, "tiny");
    test::writeText(dir.path("hub/models--ggml-org--tiny-GGUF/refs/main"), "c0ffee");
    for (const char* commit : {"c0ffee", "beef00"}) {
        const std::string snapshot =
            dir.path(std::string("hub/models--ggml-org--tiny-GGUF/snapshots/") + commit + "/tiny-F32.gguf");
        fs::create_symlink("../../blobs/0123abcd", snapshot);
    }
    // A directory symlink back to an ancestor: the walk must not loop.
    fs::create_directory_symlink("../..", dir.path("hub/models--ggml-org--tiny-GGUF/snapshots/c0ffee/loop"));
    const auto result = scanLibrary(folderRoot(dir.root() + "/hub", LibraryRootKind::HfHubCache));
    ASSERT_EQ(result.entries.size(), 1u) << "the same blob reached through two snapshots is listed once";
    const auto& entry = result.entries.front();
    EXPECT_EQ(entry.name, "ggml-org/tiny-GGUF (tiny-F32)");
    EXPECT_FALSE(entry.error.has_value());
    EXPECT_EQ(entry.summary.fileBytes, fs::file_size(repo));
    EXPECT_EQ(entry.root.kind, LibraryRootKind::HfHubCache);
}

TEST(LibraryScan, OllamaManifestsNameTheBlobs) {
    LibraryDir dir;
    const std::string model = std::string(64, 'a');
    const std::string projector = std::string(64, 'b');
    test::writeTinyModelNamed(dir.path("ollama/blobs/sha256-" + model), "tiny");
    test::writeProjector(dir.path("ollama/blobs/sha256-" + projector));
    test::writeText(dir.path("ollama/blobs/sha256-" + std::string(64, 'c')), "{\"template\": true}");
    const std::string manifest = R"({"schemaVersion":2,"layers":[
        {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
                                 model + R"(","size":1},
        {"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:)" +
                                 projector + R"(","size":1},
        {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:)" +
                                 std::string(64, 'c') + R"("}]})";
    test::writeText(dir.path("ollama/manifests/registry.ollama.ai/library/tiny/latest"), manifest);
    test::writeText(dir.path("ollama/manifests/registry.ollama.ai/someone/broken/q4"), "{not json");
    const auto result = scanLibrary(folderRoot(dir.root() + "/ollama", LibraryRootKind::Ollama));
    ASSERT_EQ(result.entries.size(), 2u);
    const auto* tiny = findByName(result, "tiny:latest");
    ASSERT_NE(tiny, nullptr);
    EXPECT_FALSE(tiny->error.has_value());
    EXPECT_EQ(tiny->path, dir.path("ollama/blobs/sha256-" + model));
    EXPECT_EQ(tiny->summary.architecture, "llama");
    EXPECT_EQ(tiny->mmprojPaths, std::vector<std::string>{dir.path("ollama/blobs/sha256-" + projector)});
    const auto* broken = findByName(result, "someone/broken:q4");
    ASSERT_NE(broken, nullptr);
    ASSERT_TRUE(broken->error.has_value());
    EXPECT_EQ(broken->error->code, "library.bad-manifest");
    EXPECT_EQ(result.filesFound, 2u);
}

TEST(LibraryScan, SameFileThroughTwoRootsIsListedOnce) {
#ifdef _WIN32
    GTEST_SKIP() << "MinGW's libstdc++ does not implement std::filesystem symlinks on Windows (ENOSYS)";
#endif
    LibraryDir dir;
    test::writeTinyModelNamed(dir.path("real/tiny.gguf"), "tiny");
    fs::create_directory_symlink(dir.root() + "/real", dir.root() + "/alias");
    LibraryRoots roots = folderRoot(dir.root() + "/real");
    roots.push_back(folderRoot(dir.root() + "/alias").front());
    const auto result = scanLibrary(roots);
    EXPECT_EQ(result.entries.size(), 1u);
}

TEST(LibraryScan, MissingRootIsNotAnError) {
    LibraryDir dir;
    const auto result = scanLibrary(folderRoot(dir.root() + "/nothing-here"));
    EXPECT_TRUE(result.entries.empty());
    EXPECT_TRUE(result.errors.empty());
}

TEST(LibraryScan, UnreadableFolderIsRecordedAndSkipped) {
    LibraryDir dir;
    test::writeTinyModelNamed(dir.path("open/tiny.gguf"), "tiny");
    test::writeTinyModelNamed(dir.path("locked/hidden.gguf"), "hidden");
    ::chmod(dir.path("locked").c_str(), 0);
    std::error_code probe;
    if (fs::directory_iterator(dir.root() + "/locked", probe); !probe) {
        ::chmod(dir.path("locked").c_str(), 0700);
        GTEST_SKIP() << "a mode-000 folder is still readable here (root, or Windows, where the mode only "
                        "sets read-only)";
    }
    const auto result = scanLibrary(folderRoot(dir.root()));
    ::chmod(dir.path("locked").c_str(), 0700);
    ASSERT_EQ(result.entries.size(), 1u);
    EXPECT_EQ(result.entries.front().name, "tiny");
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors.front().code, "library.unreadable-folder");
}

TEST(LibraryScan, ProgressCountsEveryFileAndBatchesArriveInOrder) {
    LibraryDir dir;
    for (int i = 0; i < 4; ++i) {
        test::writeTinyModelNamed(dir.path("f" + std::to_string(i) + "/m.gguf"), "m");
    }
    std::vector<LibraryScanProgress> progress;
    std::size_t batched = 0;
    LibraryScanCallbacks callbacks;
    callbacks.progress = [&progress](const LibraryScanProgress& p) { progress.push_back(p); };
    callbacks.entries = [&batched](std::vector<LibraryEntry> batch) { batched += batch.size(); };
    const auto result = scanLibrary(folderRoot(dir.root()), {}, callbacks);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back().filesDone, 4u);
    EXPECT_EQ(progress.back().filesFound, 4u);
    EXPECT_EQ(progress.back().currentPath, dir.path("f3/m.gguf"));
    EXPECT_EQ(batched, 4u);
    EXPECT_EQ(result.entries.size(), 4u);
}

TEST(LibraryScan, CancelStopsTheScanAndKeepsWhatWasFound) {
    LibraryDir dir;
    for (int i = 0; i < 6; ++i) {
        test::writeTinyModelNamed(dir.path("m" + std::to_string(i) + ".gguf"), "m");
    }
    std::stop_source stop;
    LibraryScanCallbacks callbacks;
    callbacks.progress = [&stop](const LibraryScanProgress& p) {
        if (p.filesDone == 2) {
            stop.request_stop();
        }
    };
    const auto result = scanLibrary(folderRoot(dir.root()), stop.get_token(), callbacks);
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.filesDone, 2u);
    EXPECT_EQ(result.filesFound, 6u);
    EXPECT_EQ(result.entries.size(), 2u);
}

} // namespace
} // namespace llamafit
