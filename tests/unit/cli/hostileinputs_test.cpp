// Issue 13's hostile inputs, kept as a test: malformed GGUF headers, well-formed files with one
// hostile key, every file llama.cpp's loader refuses (tests/support/refusedmodels.h), hostile
// file names and hostile flags, each run through the built llamafit-cli's inspect, estimate, fit
// and sweep. Every run must end by itself (a 30 s `timeout` around it: exit 124 is a hang), exit
// 0, 1 (fit: nothing fits) or 2 (never a signal), write JSON where --json was asked, and either
// answer or name its error; each case also says which of the two it must do. The summary line
// ("hostile inputs: N runs ...") is the figure the closing note reports.

#include "core/model/loaderchecks.h"
#include "tests/support/commandrun.h"
#include "tests/support/ggufedit.h"
#include "tests/support/ggufwriter.h"
#include "tests/support/modelfiles.h"
#include "tests/support/refusedmodels.h"
#include "tests/unit/cli/clirun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace llamafit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::CliRun;

constexpr int kTimeoutSeconds = 30;
constexpr int kTimedOut = 124; // coreutils timeout

// What a case must come to. `code` empty: the command must answer (exit 0, or 1 for fit); else
// it must refuse with an error code starting with `code`. `mayEitherWay`: a header corrupted at
// random may still parse -- then only "no crash, no hang, valid output" is asserted.
struct Expectation {
    std::string code;
    bool mayEitherWay = false;
};

struct HostileFile {
    std::string name;
    fs::path path;
    Expectation expected;
};

struct HostileFlags {
    std::string name;
    std::vector<std::string> flags;
    Expectation expected;
};

class Scratch {
  public:
    Scratch() {
        static std::atomic<int> counter{0};
        m_root = fs::temp_directory_path() /
                 ("llamafit_hostile_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(m_root);
    }
    ~Scratch() {
        std::error_code ignored;
        fs::remove_all(m_root, ignored);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    fs::path path(const std::string& name) const { return m_root / name; }

  private:
    fs::path m_root;
};

std::vector<std::uint8_t> readBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

template <typename T> void patch(std::vector<std::uint8_t>& bytes, std::size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

// GGUF v3 layout (ggml/src/gguf.cpp): magic, u32 version, u64 tensor count, u64 key count, then
// the first key's u64 length -- the offsets the header cases corrupt.
constexpr std::size_t kVersionAt = 4;
constexpr std::size_t kTensorCountAt = 8;
constexpr std::size_t kKeyCountAt = 16;
constexpr std::size_t kFirstKeyLengthAt = 24;

std::vector<HostileFile> malformedHeaders(const Scratch& scratch, const fs::path& good,
                                          std::uint64_t headerBytes) {
    const std::vector<std::uint8_t> original = readBytes(good);
    std::vector<HostileFile> files;
    const auto variant = [&](const std::string& name, Expectation expected,
                             const std::function<void(std::vector<std::uint8_t>&)>& change) {
        std::vector<std::uint8_t> bytes = original;
        change(bytes);
        const fs::path path = scratch.path("header-" + name + ".gguf");
        writeBytes(path, bytes);
        files.push_back({"header " + name, path, std::move(expected)});
    };
    const auto cutAt = [&](std::size_t size) {
        return [size](std::vector<std::uint8_t>& bytes) { bytes.resize(size); };
    };
    variant("empty", {"gguf.truncated"}, cutAt(0));
    variant("magic_only", {"gguf.truncated"}, cutAt(4));
    variant("cut_in_counts", {"gguf.truncated"}, cutAt(20));
    variant("cut_in_first_key", {"gguf."}, cutAt(kFirstKeyLengthAt + 12));
    variant("cut_in_half_header", {"gguf."}, cutAt(headerBytes / 2));
    variant("cut_before_data", {"gguf."}, cutAt(headerBytes - 1));
    variant("cut_in_data", {"gguf.tensor-out-of-bounds"},
            cutAt(headerBytes + (original.size() - headerBytes) / 2));
    variant("ggml_magic", {"gguf.bad-magic"}, [](auto& b) { std::memcpy(b.data(), "GGML", 4); });
    variant("version_1", {"gguf.unsupported-version"},
            [](auto& b) { patch<std::uint32_t>(b, kVersionAt, 1); });
    variant("version_max", {"gguf.unsupported-version"},
            [](auto& b) { patch<std::uint32_t>(b, kVersionAt, 0xffffffffu); });
    variant("tensor_count_2e62", {"gguf."},
            [](auto& b) { patch<std::uint64_t>(b, kTensorCountAt, std::uint64_t{1} << 62); });
    variant("key_count_2e62", {"gguf."},
            [](auto& b) { patch<std::uint64_t>(b, kKeyCountAt, std::uint64_t{1} << 62); });
    variant("key_count_one_more", {"gguf."}, [&](auto& b) {
        std::uint64_t keys = 0;
        std::memcpy(&keys, b.data() + kKeyCountAt, sizeof keys);
        patch<std::uint64_t>(b, kKeyCountAt, keys + 1);
    });
    variant("first_key_length_2e60", {"gguf."},
            [](auto& b) { patch<std::uint64_t>(b, kFirstKeyLengthAt, std::uint64_t{1} << 60); });
    variant("first_key_length_0", {"gguf."}, [](auto& b) { patch<std::uint64_t>(b, kFirstKeyLengthAt, 0); });
    // Seeded corruption of the header region: 16 files, 8 random bytes each.
    std::mt19937_64 random(13);
    for (int i = 0; i < 16; ++i) {
        variant("random_bytes_" + std::to_string(i), {"", true}, [&](auto& b) {
            for (int flip = 0; flip < 8; ++flip) {
                b[random() % headerBytes] = static_cast<std::uint8_t>(random());
            }
        });
    }
    return files;
}

std::vector<HostileFile> hostileKeys(const Scratch& scratch, const GgufFile& tiny) {
    std::vector<HostileFile> files;
    const auto variant = [&](const std::string& name, Expectation expected,
                             const std::function<void(GgufFile&)>& change) {
        GgufFile file = tiny;
        change(file);
        file.rebuildIndex();
        const fs::path path = scratch.path("key-" + name + ".gguf");
        EXPECT_EQ(test::writeGguf(path.string(), file), "") << name;
        files.push_back({"key " + name, path, std::move(expected)});
    };
    const auto u32 = [](std::uint64_t value) { return GgufValue::fromUint(value); };
    // llama.cpp loads these: the name is only printed, an absent window is unused by llama.
    variant("name_invalid_utf8", {}, [](GgufFile& f) {
        test::setMetadataKey(f, "general.name", GgufValue::fromString("bad\xff\xfe"));
    });
    variant("name_64k", {}, [](GgufFile& f) {
        test::setMetadataKey(f, "general.name", GgufValue::fromString(std::string(65536, 'n')));
    });
    variant("sliding_window_max", {}, [&](GgufFile& f) {
        test::setMetadataKey(f, "llama.attention.sliding_window", u32(0xffffffffu));
    });
    // An architecture llama.cpp does not know: LlamaFit keeps generic rules and warns, but the
    // keys it needs are under another prefix here, so it names the first missing one.
    variant("architecture_invalid_utf8", {"model."}, [](GgufFile& f) {
        test::setMetadataKey(f, "general.architecture", GgufValue::fromString("ll\xc3(ama"));
    });
    variant("no_architecture", {"model.missing-architecture"}, [](GgufFile& f) {
        std::erase_if(f.metadata, [](const auto& entry) { return entry.first == "general.architecture"; });
    });
    variant("block_count_0", {"model."},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.block_count", u32(0)); });
    variant("block_count_max", {"model."},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.block_count", u32(0xffffffffu)); });
    variant("embedding_length_0", {"model."},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.embedding_length", u32(0)); });
    variant("head_count_0", {"model."},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.attention.head_count", u32(0)); });
    variant("head_count_kv_above_heads", {"model."},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.attention.head_count_kv", u32(8)); });
    variant("context_length_string", {"model.wrong-key-type"}, [](GgufFile& f) {
        test::setMetadataKey(f, "llama.context_length", GgufValue::fromString("2048"));
    });
    variant("head_count_float", {"model."}, [](GgufFile& f) {
        test::setMetadataKey(f, "llama.attention.head_count", GgufValue::fromFloat(4.0));
    });
    variant("rope_dimensions_above_head", {"model.bad-rope-dimensions"},
            [&](GgufFile& f) { test::setMetadataKey(f, "llama.rope.dimension_count", u32(1000)); });
    variant("tokens_empty", {"model.missing-vocabulary"}, [](GgufFile& f) {
        GgufArray empty(GgufValueType::String);
        test::setMetadataKey(f, "tokenizer.ggml.tokens", GgufValue::fromArray(std::move(empty)));
    });
    // gguf.cpp packs the data itself and refuses other offsets ("has offset X, expected Y").
    variant("tensor_data_gap", {"gguf.unexpected-tensor-offset"}, [](GgufFile& f) {
        for (std::size_t i = 1; i < f.tensors.size(); ++i) {
            f.tensors[i].dataOffset += f.alignment;
        }
    });
    variant("tensor_table_reordered", {"gguf.unexpected-tensor-offset"},
            [](GgufFile& f) { std::swap(f.tensors[0], f.tensors[1]); });
    variant("alignment_0", {"gguf.bad-alignment"},
            [&](GgufFile& f) { test::setMetadataKey(f, "general.alignment", u32(0)); });
    variant("alignment_3", {"gguf.bad-alignment"},
            [&](GgufFile& f) { test::setMetadataKey(f, "general.alignment", u32(3)); });
    return files;
}

std::vector<HostileFile> refusedModels(const Scratch& scratch) {
    std::vector<HostileFile> files;
    auto models = test::loaderRefusedModels();
    EXPECT_TRUE(models.ok()) << models.error().message;
    if (!models) {
        return files;
    }
    for (const test::RefusedModel& model : *models) {
        const fs::path path = scratch.path("refused-" + model.name + ".gguf");
        EXPECT_EQ(test::writeGguf(path.string(), model.file), "") << model.name;
        files.push_back({"refused " + model.name, path, {model.expectedCode}});
    }
    return files;
}

std::vector<HostileFlags> hostileFlags() {
    return {
        {"ctx_not_a_number", {"-c", "abc"}, {"args."}},
        {"ctx_negative", {"-c", "-1"}, {"args."}},
        {"ctx_1e99", {"-c", "1e99"}, {"args."}},
        {"ctx_2e40", {"-c", "1099511627776"}, {"args."}},
        {"tensor_split_1e308", {"-ts", "1e308,1"}, {"args."}},
        {"tensor_split_nan", {"-ts", "nan,1"}, {"args."}},
        {"override_exponential", {"-ot", "(.*.*)*Q=CPU"}, {"settings.pattern-too-expensive"}},
        {"override_bad_regex", {"-ot", "([=CPU"}, {"settings.bad-value"}},
        {"cache_type_unknown", {"-ctk", "q3_xyz"}, {"args."}},
        {"alias_invalid_utf8", {"-c", "512", "--alias", "bad\xc3("}, {}},
        {"slots_zero", {"-np", "0"}, {"args.bad-value"}},
        {"slots_negative_is_auto", {"-c", "512", "-np", "-3"}, {}}, // llama-server: 4 slots, unified KV
        {"threads_not_a_number", {"-t", "abc"}, {"args.bad-value"}},
        {"ubatch_0", {"-c", "512", "-ub", "0"}, {"", true}},
        {"ngl_minus_5", {"-c", "512", "-ngl", "-5"}, {"", true}},
        {"threads_huge", {"-c", "512", "-t", "99999999999999999999"}, {"args.bad-value"}},
        {"predict_with_suffix", {"-c", "512", "-n", "64tokens"}, {}}, // std::stoi reads 64
    };
}

// One command on one input: the invariants every run must keep, then the case's expectation.
// Returns true when it answered, false when it refused.
bool checkRun(const std::string& label, const CliRun& run, bool json, const Expectation& expected, bool fit) {
    SCOPED_TRACE(label);
    EXPECT_NE(run.exitCode, kTimedOut) << "hung";
    const bool normalExit = run.exitCode == 0 || run.exitCode == 2 || (fit && run.exitCode == 1);
    EXPECT_TRUE(normalExit) << "exit " << run.exitCode << " (a signal or a crash)\n" << run.err;
    const bool answered = run.exitCode == 0 || run.exitCode == 1;
    std::string code;
    if (json && !run.out.empty()) {
        const Json parsed = Json::parse(run.out, nullptr, false);
        EXPECT_FALSE(parsed.is_discarded()) << "not JSON:\n" << run.out.substr(0, 400);
        if (parsed.is_object() && parsed.contains("error") && parsed["error"].contains("code")) {
            code = parsed["error"]["code"].get<std::string>();
        }
    }
    if (!answered && code.empty()) {
        // Without JSON a refusal is one stderr line: "llamafit-cli: <message> [<code>]".
        const auto open = run.err.rfind('[');
        const auto close = run.err.rfind(']');
        if (open != std::string::npos && close != std::string::npos && open < close) {
            code = run.err.substr(open + 1, close - open - 1);
        }
    }
    if (!answered) {
        EXPECT_FALSE(code.empty()) << "a refusal without a named error:\n" << run.err;
    }
    if (expected.mayEitherWay) {
        return answered;
    }
    if (expected.code.empty()) {
        EXPECT_TRUE(answered) << "refused: " << run.err;
    } else {
        EXPECT_FALSE(answered) << "accepted, expected " << expected.code << ":\n" << run.out.substr(0, 400);
        EXPECT_EQ(code.rfind(expected.code, 0), 0u)
            << "code '" << code << "', expected " << expected.code << "\n"
            << run.err;
    }
    return answered;
}

struct Command {
    std::string name;
    std::vector<std::string> args; // before -m MODEL
    std::vector<std::string> tail; // after the model and the case's flags
    bool json = true;
    bool fit = false;
};

const std::vector<Command>& sizingCommands() {
    static const std::vector<Command> commands{
        {"estimate", {"estimate", "--json"}, {}},
        {"fit", {"fit", "--json"}, {"--budget-mib", "4096"}, true, true},
        {"sweep", {"sweep", "--format", "json"}, {"--contexts", "512,1024"}},
    };
    return commands;
}

TEST(HostileInputs, NoInputCrashesOrHangsAnyCommandAndEachRefusalIsNamed) {
    Scratch scratch;
    const fs::path good = scratch.path("good.gguf");
    Result<GgufFile> tiny = test::writeTinyModel(good.string());
    ASSERT_TRUE(tiny.ok()) << tiny.error().message;

    const std::uint64_t headerBytes = test::serializeGgufHeader(*tiny).size();
    std::vector<HostileFile> files = malformedHeaders(scratch, good, headerBytes);
    for (const std::vector<HostileFile>& more : {hostileKeys(scratch, *tiny), refusedModels(scratch)}) {
        files.insert(files.end(), more.begin(), more.end());
    }
    // Hostile names of a good file: invalid UTF-8, a newline, a leading dash, 200 bytes.
    for (const std::string& name : {std::string("bad\xff\xfe.gguf"), std::string("new\nline.gguf"),
                                    std::string("-dash.gguf"), std::string(200, 'x') + ".gguf"}) {
        const fs::path path = scratch.path(name);
        fs::copy_file(good, path);
        files.push_back({"name " + std::to_string(files.size()), path, {}});
    }
    files.push_back({"a directory", scratch.path(""), {"gguf.open-failed"}});
    files.push_back({"no such file", scratch.path("missing.gguf"), {"model.not-found"}});

    int runs = 0;
    int refusals = 0;
    std::vector<std::string> acceptedAtRandom;
    for (const HostileFile& file : files) {
        const CliRun inspected =
            test::runCli({"inspect", "--json", "-m", file.path.string()}, {}, kTimeoutSeconds);
        ++runs;
        const bool answered = checkRun(file.name + " / inspect", inspected, true, file.expected, false);
        refusals += answered ? 0 : 1;
        if (answered && file.expected.mayEitherWay) {
            acceptedAtRandom.push_back(file.name);
        }
        for (const Command& command : sizingCommands()) {
            std::vector<std::string> args = command.args;
            args.insert(args.end(), {"-m", file.path.string(), "-c", "512"});
            args.insert(args.end(), command.tail.begin(), command.tail.end());
            const CliRun run = test::runCli(args, {}, kTimeoutSeconds);
            ++runs;
            refusals +=
                checkRun(file.name + " / " + command.name, run, command.json, file.expected, command.fit) ? 0
                                                                                                          : 1;
        }
    }
    for (const HostileFlags& flags : hostileFlags()) {
        for (const Command& command : sizingCommands()) {
            std::vector<std::string> args = command.args;
            args.insert(args.end(), {"-m", good.string()});
            args.insert(args.end(), flags.flags.begin(), flags.flags.end());
            args.insert(args.end(), command.tail.begin(), command.tail.end());
            const CliRun run = test::runCli(args, {}, kTimeoutSeconds);
            ++runs;
            refusals += checkRun("flags " + flags.name + " / " + command.name, run, command.json,
                                 flags.expected, command.fit)
                            ? 0
                            : 1;
        }
    }
    std::string accepted;
    for (const std::string& name : acceptedAtRandom) {
        accepted += " " + name;
    }
    std::cout << "hostile inputs: " << runs << " runs over " << files.size() << " files and "
              << hostileFlags().size() << " flag sets; " << refusals << " named refusals, "
              << (runs - refusals) << " answers; randomly corrupted headers that still parse:"
              << (accepted.empty() ? " none" : accepted) << "\n";
    EXPECT_GE(runs, 149);
}

} // namespace
} // namespace llamafit
