// Runs the built llamafit-cli (path from CMake: LLAMAFIT_CLI_PATH) and checks its stdout,
// stderr and exit status: the stable JSON fields of `estimate`, the known Qwen3.5-35B-A3B
// numbers, errors, `cards`, `sweep --format csv`, `fit`, `inspect`, and that a card and the
// same card written as a GGUF file give the same estimate.

#include "core/common/units.h"
#include "core/model/modelspec.h"
#include "tests/support/modelfiles.h"

#include "tests/support/commandrun.h"
#include "tests/support/liveserverskip.h"
#include "tests/unit/cli/clirun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace llamafit {
namespace {

using Json = nlohmann::json;

std::filesystem::path scratchPath(const std::string& suffix) {
    static std::atomic<int> counter{0};
    return std::filesystem::temp_directory_path() /
           ("llamafit_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix);
}

using test::CliRun;
using test::runCli;

Json parseJson(const CliRun& run) {
    const Json json = Json::parse(run.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << "not JSON:\n" << run.out << "\nstderr:\n" << run.err;
    return json;
}

constexpr const char* kQwen35 = "qwen3.5-35b-a3b-q6_k";
const char* const kByteFields[] = {"model_bytes",   "kv_bytes",       "rs_bytes",   "output_bytes",
                                   "compute_bytes", "overhead_bytes", "total_bytes"};

TEST(CliBinary, EstimateJsonHasTheStableFieldsAndTheMeasuredQwen35Numbers) {
    const CliRun run =
        runCli({"estimate", "--json", "-m", kQwen35, "-c", "65536", "-ctk", "q8_0", "-ctv", "q8_0"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    ASSERT_TRUE(json.is_object());

    for (const char* field : kByteFields) {
        ASSERT_TRUE(json["totals"][field].is_number_unsigned()) << field;
    }
    for (const char* field : {"n_ctx", "n_ctx_seq", "n_seq_max", "n_batch", "n_ubatch"}) {
        EXPECT_TRUE(json["context"][field].is_number_unsigned()) << field;
    }
    EXPECT_TRUE(json["context"]["kv_unified"].is_boolean());
    EXPECT_TRUE(json["context"]["flash_attn"].is_string());
    EXPECT_EQ(json["model"]["id"], kQwen35);
    EXPECT_EQ(json["model"]["architecture"], "qwen35moe");
    EXPECT_TRUE(json["notes"].is_array());
    EXPECT_TRUE(json["ignored_flags"].is_array());
    EXPECT_TRUE(json["totals"]["note"].is_string());

    // llama-cpp-memory.md section 2.2 / 7, measured on llama-server 0.7.0: 680.00 MiB of q8_0 KV
    // at 65536 cells, and the RS buffer of 4 auto slots is 251.25 MiB.
    EXPECT_EQ(json["totals"]["kv_bytes"].get<std::uint64_t>(), 680 * kMiB);
    EXPECT_EQ(json["totals"]["rs_bytes"].get<std::uint64_t>(), 1005 * kMiB / 4);
    EXPECT_EQ(json["context"]["n_ctx"], 65536);

    std::uint64_t sum = 0;
    for (const char* field :
         {"model_bytes", "kv_bytes", "rs_bytes", "output_bytes", "compute_bytes", "overhead_bytes"}) {
        sum += json["totals"][field].get<std::uint64_t>();
    }
    EXPECT_EQ(sum, json["totals"]["total_bytes"].get<std::uint64_t>());

    ASSERT_TRUE(json["devices"].is_array());
    ASSERT_FALSE(json["devices"].empty());
    for (const char* field : kByteFields) {
        std::uint64_t deviceSum = 0;
        for (const Json& device : json["devices"]) {
            ASSERT_TRUE(device["name"].is_string());
            ASSERT_TRUE(device["buffers"].is_array());
            deviceSum += device[field].get<std::uint64_t>();
        }
        EXPECT_EQ(deviceSum, json["totals"][field].get<std::uint64_t>()) << field;
    }
    for (const Json& device : json["devices"]) {
        for (const Json& buffer : device["buffers"]) {
            EXPECT_TRUE(buffer["buffer_type"].is_string());
            EXPECT_TRUE(buffer["component"].is_string());
            EXPECT_TRUE(buffer["bytes"].is_number_unsigned());
            EXPECT_TRUE(buffer["rule"].is_string());
        }
    }

    std::uint64_t kvSum = 0;
    ASSERT_TRUE(json["kv_caches"].is_array());
    for (const Json& kv : json["kv_caches"]) {
        for (const char* field : {"cells", "layers", "streams", "k_bytes", "v_bytes"}) {
            ASSERT_TRUE(kv[field].is_number_unsigned()) << field;
        }
        EXPECT_TRUE(kv["swa"].is_boolean());
        EXPECT_EQ(kv["type_k"], "q8_0");
        EXPECT_EQ(kv["type_v"], "q8_0");
        kvSum += kv["k_bytes"].get<std::uint64_t>() + kv["v_bytes"].get<std::uint64_t>();
    }
    EXPECT_EQ(kvSum, json["totals"]["kv_bytes"].get<std::uint64_t>());
    for (const char* field : {"cells", "layers", "r_bytes", "s_bytes"}) {
        ASSERT_TRUE(json["rs"][field].is_number_unsigned()) << field;
    }
    EXPECT_EQ(json["rs"]["r_bytes"].get<std::uint64_t>() + json["rs"]["s_bytes"].get<std::uint64_t>(),
              json["totals"]["rs_bytes"].get<std::uint64_t>());
}

// --llama-build: the JSON and the text say which build they sized; the engine builds an older
// build's graph (its inputs, its mask) and the compute differs.
TEST(CliBinary, EstimateSaysWhichLlamaBuildItSized) {
    const CliRun current = runCli({"estimate", "--json", "-m", kQwen35, "-c", "8192"});
    ASSERT_EQ(current.exitCode, 0) << current.err;
    const Json currentJson = parseJson(current);
    EXPECT_EQ(currentJson["llama_build"], 11669);
    EXPECT_EQ(currentJson["sized_for"], "b11669");

    const CliRun older =
        runCli({"estimate", "--json", "-m", kQwen35, "-c", "8192", "--llama-build", "b8183"});
    ASSERT_EQ(older.exitCode, 0) << older.err;
    const Json olderJson = parseJson(older);
    EXPECT_EQ(olderJson["llama_build"], 8183);
    EXPECT_EQ(olderJson["sized_for"], "b8183");
    EXPECT_EQ(olderJson["compute_sizing"], "graph");
    // b8183 has no mixed token/embedding input, and under flash attention an f32 KQ mask cast to f16
    // (llamabuild.h): its compute is its own.
    EXPECT_NE(olderJson["totals"]["compute_bytes"].get<std::uint64_t>(),
              currentJson["totals"]["compute_bytes"].get<std::uint64_t>());

    const CliRun text = runCli({"estimate", "-m", kQwen35, "--llama-build", "8183"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("Sized for llama.cpp b8183\n"), std::string::npos) << text.out;

    const CliRun bad = runCli({"estimate", "-m", kQwen35, "--llama-build", "0.7.0"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("'0.7.0' is not a llama.cpp build"), std::string::npos) << bad.err;
}

// --server PATH: the sizing commands size for the build that llama-server's --version names.
TEST(CliBinary, EstimateSizesForTheBuildOfTheServerItIsGiven) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const Result<std::string> server = test::findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    const CliRun run = runCli({"estimate", "--json", "-m", kQwen35, "--server", *server});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(parseJson(run)["llama_build"], 11669);

    // An explicit --llama-build wins over the server's.
    const CliRun chosen =
        runCli({"estimate", "--json", "-m", kQwen35, "--server", *server, "--llama-build", "b8183"});
    ASSERT_EQ(chosen.exitCode, 0) << chosen.err;
    EXPECT_EQ(parseJson(chosen)["llama_build"], 8183);

    const std::string missing = (std::filesystem::temp_directory_path() / "no-such-llama-server").string();
    // A server that cannot say: the reference build, and a note that says why.
    const CliRun absent = runCli({"estimate", "--json", "-m", kQwen35, "--server", missing});
    ASSERT_EQ(absent.exitCode, 0) << absent.err;
    EXPECT_EQ(parseJson(absent)["llama_build"], 11669);
    EXPECT_NE(absent.err.find("note: sizing for llama.cpp b11669 (" + missing + " does not start"),
              std::string::npos)
        << absent.err;
}

TEST(CliBinary, EstimateTextShowsTheTableInMiB) {
    const CliRun run = runCli({"estimate", "-m", kQwen35, "-c", "65536", "-ctk", "q8_0", "-ctv", "q8_0",
                               "--port", "18080", "--no-warmup"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.out.find("680.00"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("251.25"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("n_ctx = 65536"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("Flags not affecting memory: --port 18080 --no-warmup"), std::string::npos)
        << run.out;
}

TEST(CliBinary, MissingModelFileExitsTwoAndNamesIt) {
    const CliRun run = runCli({"estimate", "-m", "/nonexistent"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("/nonexistent"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(CliBinary, JsonErrorObject) {
    const CliRun run = runCli({"estimate", "--json", "-m", "/nonexistent"});
    EXPECT_EQ(run.exitCode, 2);
    const Json json = parseJson(run);
    EXPECT_EQ(json["error"]["code"], "model.not-found");
    EXPECT_NE(json["error"]["message"].get<std::string>().find("/nonexistent"), std::string::npos);
}

// The preamble every sizing command shares (app/cli/sizingcommand.h): --help prints the
// command's usage, a model that cannot be loaded is one stderr line plus, with --json, the
// error object on stdout, and a CLI option without its value is reported as text only.
TEST(CliBinary, SizingCommandsShareHelpAndErrorReports) {
    for (const std::string command : {"inspect", "estimate", "fit", "sweep", "plan"}) {
        SCOPED_TRACE(command);
        CliRun run = runCli({command, "--help"});
        EXPECT_EQ(run.exitCode, 0);
        EXPECT_EQ(run.out.rfind("usage: llamafit-cli " + command + " ", 0), 0u) << run.out;

        run = runCli({command, "--json", "-m", "/nonexistent"});
        EXPECT_EQ(run.exitCode, 2);
        EXPECT_EQ(parseJson(run)["error"]["code"], "model.not-found");
        EXPECT_EQ(run.err.rfind("llamafit-cli: ", 0), 0u) << run.err;
        EXPECT_NE(run.err.find(" [model.not-found]\n"), std::string::npos) << run.err;
    }
    for (const auto& [command, option] : std::vector<std::pair<std::string, std::string>>{
             {"fit", "--budget-mib"}, {"sweep", "--contexts"}, {"plan", "--machine"}}) {
        const CliRun run = runCli({command, "--json", "-m", kQwen35, option});
        EXPECT_EQ(run.exitCode, 2) << command;
        EXPECT_TRUE(run.out.empty()) << command << ": " << run.out;
        EXPECT_NE(run.err.find(option + " needs a value [cli.missing-value]"), std::string::npos) << run.err;
    }
    const CliRun run = runCli({"inspect", "--json", kQwen35, "second"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(parseJson(run)["error"]["code"], "cli.unexpected-argument");
}

TEST(CliBinary, FlagErrorsExitTwoAndNameTheFlag) {
    CliRun run = runCli({"estimate", "--json", "-m", kQwen35, "--frobnicate"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(parseJson(run)["error"]["code"], "args.unknown-flag");
    EXPECT_NE(run.err.find("--frobnicate"), std::string::npos) << run.err;

    run = runCli({"estimate", "-m", kQwen35, "-ctk", "q4_K"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("q4_K"), std::string::npos) << run.err;

    run = runCli({"estimate", "-m", kQwen35, "-c"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("args.missing-value"), std::string::npos) << run.err;
}

TEST(CliBinary, CardsListsTheRequiredCards) {
    const CliRun text = runCli({"cards"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    const CliRun json = runCli({"cards", "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    std::vector<std::string> ids;
    const Json cards = parseJson(json)["cards"]; // a copy: a range-for over a temporary's member dangles
    for (const Json& card : cards) {
        ids.push_back(card["id"]);
        EXPECT_GT(card["weight_bytes"].get<std::uint64_t>(), 0u);
        EXPECT_GT(card["training_context"].get<std::uint64_t>(), 0u);
    }
    for (const char* id :
         {"qwen3.5-35b-a3b-q6_k", "llama-3-8b-q4_k_m", "qwen2.5-32b-q4_k_m", "qwen3.5-4b-q4_k_m"}) {
        EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
        EXPECT_NE(text.out.find(id), std::string::npos) << id;
    }
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::stringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        result.push_back(line);
    }
    return result;
}

TEST(CliBinary, SweepCsvHasAHeaderAndOneRowPerContext) {
    const CliRun run =
        runCli({"sweep", "--format", "csv", "-m", "llama-3-8b-q4_k_m", "--contexts", "4096,6000,8192"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::vector<std::string> rows = lines(run.out);
    ASSERT_EQ(rows.size(), 4u) << run.out;
    EXPECT_EQ(rows[0].rfind("context,total_bytes_f16_f16,kv_bytes_f16_f16", 0), 0u) << rows[0];
    const auto columns = std::count(rows[0].begin(), rows[0].end(), ',');
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_EQ(std::count(rows[i].begin(), rows[i].end(), ','), columns) << rows[i];
    }
    EXPECT_EQ(rows[1].rfind("4096,", 0), 0u);
    EXPECT_EQ(rows[2].rfind("6000,", 0), 0u);
    EXPECT_EQ(rows[3].rfind("8192,", 0), 0u);
}

TEST(CliBinary, SweepDefaultContextsArePowersOfTwoUpToTrainingContext) {
    const CliRun inspect = runCli({"inspect", "--json", "llama-3-8b-q4_k_m"});
    ASSERT_EQ(inspect.exitCode, 0) << inspect.err;
    const std::uint64_t training = parseJson(inspect)["training_context"];
    std::size_t expectedRows = 0;
    for (std::uint64_t c = 4096; c <= training; c *= 2) {
        ++expectedRows;
    }
    const CliRun run = runCli({"sweep", "--format=csv", "-m", "llama-3-8b-q4_k_m"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(lines(run.out).size(), 1 + std::max<std::size_t>(expectedRows, 1)) << run.out;
}

TEST(CliBinary, InspectCountsLayersByKind) {
    const CliRun run = runCli({"inspect", "--json", kQwen35});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    const Json& counts = json["layer_counts"];
    // Qwen3.5-35B-A3B: full_attention_interval 4 over 40 layers -> 10 attend, 30 are recurrent.
    EXPECT_EQ(counts["full"], 10);
    EXPECT_EQ(counts["recurrent"], 30);
    const std::uint64_t sum = counts["full"].get<std::uint64_t>() + counts["swa"].get<std::uint64_t>() +
                              counts["chunked"].get<std::uint64_t>() +
                              counts["recurrent"].get<std::uint64_t>() +
                              counts["hybrid"].get<std::uint64_t>() + counts["none"].get<std::uint64_t>();
    EXPECT_EQ(sum, json["trunk_layers"].get<std::uint64_t>());
    EXPECT_EQ(json["layers"].size(), json["block_count"].get<std::size_t>());
    EXPECT_GT(json["weights"]["total_bytes"].get<std::uint64_t>(), 0u);
}

TEST(CliBinary, FitAnswersAndDoesNotFitIsNotAnError) {
    CliRun run = runCli({"fit", "--json", "-m", "llama-3-8b-q4_k_m", "--budget-mib", "1"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    Json json = parseJson(run);
    ASSERT_FALSE(json["largest_context"].empty());
    for (const Json& fit : json["largest_context"]) {
        EXPECT_FALSE(fit["fits"].get<bool>());
        // The solver's numbers (FitFailure, BudgetOverrun), worded in English by the CLI.
        const std::string reason = fit["reason"].get<std::string>();
        EXPECT_EQ(reason.rfind("does not fit even at 256 tokens: CPU needs ", 0), 0u) << reason;
        EXPECT_NE(reason.find(" MiB of 1.00 MiB"), std::string::npos) << reason;
    }

    run = runCli({"fit", "--json", "-m", "llama-3-8b-q4_k_m", "--budget-mib", "16384", "--types", "q8_0"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    json = parseJson(run);
    ASSERT_EQ(json["largest_context"].size(), 1u);
    const Json& fit = json["largest_context"][0];
    ASSERT_TRUE(fit["fits"].get<bool>()) << fit.dump();
    // The answer is consistent with `estimate` at that context.
    const CliRun check =
        runCli({"estimate", "--json", "-m", "llama-3-8b-q4_k_m", "-c",
                std::to_string(fit["context_tokens"].get<std::uint32_t>()), "-ctk", "q8_0", "-ctv", "q8_0"});
    ASSERT_EQ(check.exitCode, 0) << check.err;
    EXPECT_LE(parseJson(check)["totals"]["total_bytes"].get<std::uint64_t>(), 16384 * kMiB);

    run = runCli({"fit", "-m", "llama-3-8b-q4_k_m"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("--budget-mib"), std::string::npos) << run.err;
}

TEST(CliBinary, EstimateWithGpuListsTheDevice) {
    const CliRun run =
        runCli({"estimate", "--json", "-m", "llama-3-8b-q4_k_m", "-c", "8192", "--gpu", "cuda=8192"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    bool found = false;
    for (const Json& device : json["devices"]) {
        found = found || device["name"] == "CUDA0";
    }
    EXPECT_TRUE(found) << json["devices"].dump();
}

TEST(CliBinary, EstimateWithRpcServersPutsThemBeforeTheLocalGpu) {
    CliRun run = runCli({"estimate", "--json", "-m", "llama-3-8b-q4_k_m", "-c", "8192", "--gpu", "cuda=8192",
                         "--rpc", "127.0.0.1:50052", "--gpu", "rpc:127.0.0.1:50052=24105"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    std::vector<std::string> names;
    for (const Json& device : json["devices"]) {
        names.push_back(device["name"].get<std::string>());
    }
    EXPECT_EQ(names, (std::vector<std::string>{"CPU", "RPC0[127.0.0.1:50052]", "CUDA0"}));

    // The planning form --rpc HOST:PORT=FREE_MiB is the same plan.
    CliRun inline_ = runCli({"estimate", "--json", "-m", "llama-3-8b-q4_k_m", "-c", "8192", "--gpu",
                             "cuda=8192", "--rpc", "127.0.0.1:50052=24105"});
    ASSERT_EQ(inline_.exitCode, 0) << inline_.err;
    EXPECT_EQ(parseJson(inline_)["devices"], json["devices"]);

    // --rpc without the server's free memory is asked live; with no llama-server to ask, a named
    // error that says how to plan offline.
    run = runCli({"estimate", "-m", "llama-3-8b-q4_k_m", "--rpc", "127.0.0.1:50052", "--server",
                  "/nonexistent/llama-server"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("[rpc.no-server]"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--rpc 127.0.0.1:50052=FREE_MiB"), std::string::npos) << run.err;
    run = runCli({"estimate", "-m", "llama-3-8b-q4_k_m", "--rpc", "127.0.0.1:50052=lots"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("FREE_MiB"), std::string::npos) << run.err;
}

TEST(CliBinary, PlanWithRpcServersGivesEachHostItsPoolAndTheNetworkFloor) {
    const CliRun run =
        runCli({"plan", "--json", "-m", "llama-3-8b-q4_k_m", "-c", "8192", "-ngl", "all", "--machine",
                "rtx-4060-8gb", "--rpc", "127.0.0.1:50052=3000,127.0.0.1:50053=2000"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    std::vector<std::string> rpcPools;
    for (const Json& pool : json["pools"]) {
        if (pool["kind"] == "rpc-host") {
            rpcPools.push_back(pool["name"].get<std::string>());
            EXPECT_GT(pool["llama_at_load_bytes"].get<std::uint64_t>(), 0u) << pool.dump();
        }
    }
    EXPECT_EQ(rpcPools,
              (std::vector<std::string>{"RPC server 127.0.0.1:50052", "RPC server 127.0.0.1:50053"}));
    std::vector<std::string> devices;
    for (const Json& device : json["estimate"]["devices"]) {
        devices.push_back(device["name"].get<std::string>());
    }
    EXPECT_EQ(devices,
              (std::vector<std::string>{"CPU", "RPC0[127.0.0.1:50052]", "RPC0[127.0.0.1:50053]", "CUDA0"}));
    // llama-3-8B: n_embd 4096 -> 16 KiB rows; the two servers' split crosses twice, through this host.
    const Json& traffic = json["rpc_traffic"];
    ASSERT_TRUE(traffic.is_object()) << json.dump();
    EXPECT_EQ(traffic["crossings"][0]["what"], "embeddings");
    EXPECT_EQ(traffic["crossings"][1]["network_hops"], 2);
    EXPECT_EQ(traffic["network_bytes_per_token"], 4 * 16384);
    ASSERT_EQ(traffic["links"].size(), 3u);
    EXPECT_LT(traffic["links"][0]["decode_tokens_per_second"].get<double>(),
              json["decode"]["tokens_per_second"].get<double>());

    // Without --rpc there is no traffic; any other --gpu still conflicts with --machine.
    EXPECT_TRUE(parseJson(runCli(
        {"plan", "--json", "-m", "llama-3-8b-q4_k_m", "--machine", "rtx-4060-8gb"}))["rpc_traffic"]
                    .is_null());
    EXPECT_EQ(runCli({"plan", "-m", "llama-3-8b-q4_k_m", "--machine", "rtx-4060-8gb", "--gpu", "cuda=8192"})
                  .exitCode,
              2);
}

TEST(CliBinary, FitOverSeveralDevicesFindsTheSplitThatFitsWhereTheDefaultDoesNot) {
    // Qwen2.5-32B over a 12000 MiB RPC server and an 8 GiB card: by free memory the card gets 40 %
    // of the layers and the output layer, more than it holds at any context.
    const CliRun run = runCli({"fit", "--json", "-m", "qwen2.5-32b-q4_k_m", "-ngl", "all", "-np", "1",
                               "--types", "f16", "--rpc", "127.0.0.1:50052=12000", "--gpu", "cuda=8192"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json split = parseJson(run)["best_split"];
    ASSERT_TRUE(split.is_object());
    EXPECT_TRUE(split["fits"].get<bool>());
    EXPECT_TRUE(split["default_split_context_tokens"].is_null());
    EXPECT_GE(split["context_tokens"].get<int>(), 256);
    ASSERT_EQ(split["tensor_split"].size(), 2u);
    EXPECT_EQ(split["tensor_split"][0].get<double>() + split["tensor_split"][1].get<double>(), 65.0);
    EXPECT_TRUE(
        parseJson(runCli({"fit", "--json", "-m", "qwen2.5-32b-q4_k_m", "--gpu", "cuda=8192"}))["best_split"]
            .is_null()); // one device: nothing to split
}

TEST(CliBinary, CardAndTheSameCardWrittenAsGgufEstimateTheSame) {
    Result<ModelSpec> card = findBuiltinModelCard("llama-3-8b-q4_k_m");
    ASSERT_TRUE(card.ok());
    const std::filesystem::path path = scratchPath(".gguf");
    ASSERT_TRUE(test::writeSpecAsGguf(*card, path.string()).ok());
    const std::vector<std::string> flags{"-c", "8192", "-np", "2"};
    std::vector<std::string> fromFile{"estimate", "--json", "-m", path.string()};
    std::vector<std::string> fromCard{"estimate", "--json", "-m", "llama-3-8b-q4_k_m"};
    fromFile.insert(fromFile.end(), flags.begin(), flags.end());
    fromCard.insert(fromCard.end(), flags.begin(), flags.end());
    const CliRun fileRun = runCli(fromFile);
    const CliRun cardRun = runCli(fromCard);
    std::filesystem::remove(path);
    ASSERT_EQ(fileRun.exitCode, 0) << fileRun.err;
    ASSERT_EQ(cardRun.exitCode, 0) << cardRun.err;
    EXPECT_EQ(parseJson(fileRun)["totals"], parseJson(cardRun)["totals"]);
    EXPECT_EQ(parseJson(fileRun)["model"]["path"], path.string());
}

// Invalid UTF-8 reaches the JSON from the file name and from passed-through flags (llama.cpp
// accepts both); it is written as U+FFFD, never an abort from the JSON library.
TEST(CliBinary, InvalidUtf8InFileNamesAndFlagsStaysValidJson) {
    Result<ModelSpec> card = findBuiltinModelCard("llama-3-8b-q4_k_m");
    ASSERT_TRUE(card.ok());
    const std::filesystem::path path = scratchPath("_\xff\xfe.gguf");
    ASSERT_TRUE(test::writeSpecAsGguf(*card, path.string()).ok());
    const CliRun run =
        runCli({"estimate", "--json", "-m", path.string(), "-c", "4096", "--alias", "bad\xc3("});
    std::filesystem::remove(path);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Json json = parseJson(run);
    const std::string modelPath = json["model"]["path"].get<std::string>();
    EXPECT_NE(modelPath.find("\xef\xbf\xbd\xef\xbf\xbd.gguf"), std::string::npos) << modelPath;
    EXPECT_NE(run.out.find("bad\xef\xbf\xbd("), std::string::npos) << run.out;
}

// A pattern llama-server's backtracking matcher would hang on is refused at once, by name.
TEST(CliBinary, ExponentialOverridePatternIsRefusedNotRun) {
    const CliRun run = runCli({"estimate", "--json", "-m", kQwen35, "-c", "4096", "-ot", "(.*.*)*Q=CPU"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(parseJson(run)["error"]["code"], "settings.pattern-too-expensive");
}

// Network access (issue 13 item 8): an export on a non-loopback host needs --expose, and then
// names LlamaFit's key file (made user-only in the data folder), never the key.
TEST(CliBinary, ExportOnANetworkHostNeedsExposeAndNamesTheKeyFile) {
    const std::filesystem::path dataHome = scratchPath("-data");
    std::filesystem::create_directories(dataHome);
    const std::vector<std::string> environment{"XDG_DATA_HOME=" + dataHome.string()};
    const std::filesystem::path keyFile = dataHome / "LlamaFit" / "llama-server-api-key";

    const CliRun refused =
        runCli({"export", "--format", "sh", "-m", "llama-3-8b-q4_k_m", "--host", "0.0.0.0"}, environment);
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.err.find("launch.exposure-not-chosen"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(keyFile));

    const CliRun exposed =
        runCli({"export", "--format", "sh", "-m", "llama-3-8b-q4_k_m", "--host", "0.0.0.0", "--expose"},
               environment);
    ASSERT_EQ(exposed.exitCode, 0) << exposed.err;
    ASSERT_TRUE(std::filesystem::exists(keyFile));
    EXPECT_EQ(std::filesystem::status(keyFile).permissions() &
                  (std::filesystem::perms::group_all | std::filesystem::perms::others_all),
              std::filesystem::perms::none);
    std::ifstream file(keyFile);
    std::string key;
    std::getline(file, key);
    EXPECT_FALSE(key.empty());
    EXPECT_NE(exposed.out.find("--api-key-file " + keyFile.string()), std::string::npos) << exposed.out;
    EXPECT_EQ(exposed.out.find(key), std::string::npos) << "the script must name the file, not the key";
    std::filesystem::remove_all(dataHome);
}

TEST(CliBinary, VersionHelpAndUnknownCommand) {
    CliRun run = runCli({"--version"});
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_EQ(run.out.rfind("llamafit-cli ", 0), 0u) << run.out;
    for (const char* command : {"inspect", "estimate", "fit", "sweep", "cards"}) {
        run = runCli({command, "--help"});
        EXPECT_EQ(run.exitCode, 0) << command;
        EXPECT_NE(run.out.find(std::string("llamafit-cli ") + command), std::string::npos) << command;
    }
    run = runCli({"frobnicate"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("frobnicate"), std::string::npos);
}

} // namespace
} // namespace llamafit
