// The exported model set loaded by the real llama-server 0.7.0 in router mode: three tiny
// generated models planned on a built-in machine, written as a --models-preset INI
// (core/modelset/modelsetexport.h), and the router started with it and the plan's --models-max.
// GET /models must list every model with the flags of its section. Loading is not required: the
// Debian build's bundled dynamic loader makes the router's children fail to re-exec
// ("ld-linux-x86-64.so.2: unrecognized option '--host'", measured), so they stay "unloaded".
#include "core/flags/serverargs.h"
#include "core/machine/machineprofile.h"
#include "core/model/modelsource.h"
#include "core/modelset/modelsetexport.h"
#include "core/modelset/modelsetplan.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <set>

namespace llamafit {
namespace {

// GET `path` from 127.0.0.1:port with HTTP/1.1 and Connection: close; the whole response.
// The router's socket listens before it logs "listening on" (cpp-httplib binds and listens in
// bind_to_port, llama.cpp tools/server/server-http.cpp), so one connect suffices.
std::string getLoopback(std::uint16_t port, const std::string& path) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return {};
    }
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        const std::string request =
            "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size())) {
            char buffer[4096];
            for (ssize_t got = 0; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
                response.append(buffer, static_cast<std::size_t>(got));
            }
        }
    }
    ::close(fd);
    return response;
}

// The port of "listening on http://127.0.0.1:PORT" once the log has the whole line.
std::optional<std::uint16_t> listeningPort(std::string_view log) {
    constexpr std::string_view kLine = "listening on http://127.0.0.1:";
    const std::size_t at = log.find(kLine);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t start = at + kLine.size();
    const std::size_t end = log.find('\n', start);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    std::uint16_t port = 0;
    const auto [next, ec] = std::from_chars(log.data() + start, log.data() + end, port);
    return ec == std::errc{} ? std::optional<std::uint16_t>(port) : std::nullopt;
}

struct Model {
    std::string name;
    std::vector<std::string> args;
    std::string presetLine; // how the router shows the section's context (status.preset)
};

TEST(ModelSetRouter, TheExportedPresetListsEveryModel) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const Result<std::string> server = test::findLlamaServer();
    ASSERT_TRUE(server) << server.error().message;
    std::string error;
    const std::string& scratch = test::scratchDirectory(error);
    ASSERT_FALSE(scratch.empty()) << error;
    const std::string folder = scratch + "/modelset";
    std::filesystem::create_directories(folder);

    const std::vector<Model> models{{"alpha", {"-c", "512", "-np", "1"}, "ctx-size = 512"},
                                    {"beta", {"-c", "256"}, "ctx-size = 256"},
                                    {"gamma", {"-c", "1024", "--no-warmup"}, "ctx-size = 1024"}};
    std::vector<SetMember> members;
    SetExport set;
    set.setName = "router-test";
    set.presetFileName = folder + "/router-test.ini";
    for (const Model& model : models) {
        const std::string path = folder + "/" + model.name + ".gguf";
        ASSERT_TRUE(test::writeTinyModel(path));
        const Result<LoadedModel> loaded = loadModel(path);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const Result<ParsedServerArgs> args = parseServerArgs(model.args);
        ASSERT_TRUE(args) << args.error().message;
        members.push_back(SetMember{model.name, loaded->info, args->settings, {}});
        set.members.push_back(SetExportMember{model.name, path, args->settings, passThroughWords(*args)});
    }
    const Result<Machine> machine = findBuiltinMachine("rtx-3090-24gb");
    ASSERT_TRUE(machine) << machine.error().message;
    const Result<ModelSetPlan> plan = planModelSet(members, *machine);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->safeModelsMax, models.size()); // three tiny models fit on 24 GB together
    set.machineName = machine->name;
    set.safeModelsMax = plan->safeModelsMax;
    set.fittingGroup = plan->largestFittingSet;
    const Result<std::string> ini = exportSetPresetIni(set);
    ASSERT_TRUE(ini) << ini.error().message;
    std::ofstream(set.presetFileName) << *ini;

    test::ServerRunOptions options;
    options.executable = *server;
    options.args = {"--models-preset", set.presetFileName, "--models-max",
                    std::to_string(exportedModelsMax(set))};
    options.timeout = std::chrono::seconds(60);
    std::string response;
    options.stopWhen = [&response](std::string_view log) {
        const std::optional<std::uint16_t> port = listeningPort(log);
        if (port && response.empty()) {
            response = getLoopback(*port, "/models");
        }
        return port.has_value();
    };
    const Result<test::ServerRunResult> run = test::runLlamaServer(options);
    ASSERT_TRUE(run) << run.error().message;
    ASSERT_TRUE(run->stopConditionMet) << run->log;
    const std::size_t body = response.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos) << response;
    EXPECT_TRUE(response.starts_with("HTTP/1.1 200")) << response;
    const nlohmann::json json = nlohmann::json::parse(response.substr(body + 4), nullptr, false);
    ASSERT_TRUE(json.is_object() && json.contains("data") && json["data"].is_array()) << response;
    std::set<std::string> listed;
    for (const nlohmann::json& entry : json["data"]) {
        const std::string id = entry.value("id", "");
        listed.insert(id);
        const auto model =
            std::find_if(models.begin(), models.end(), [&](const Model& m) { return m.name == id; });
        ASSERT_NE(model, models.end()) << "the router lists a model the set does not have: " << id;
        // The router read the section's flags: it shows them normalised in status.preset.
        const std::string preset = entry["status"].value("preset", "");
        EXPECT_NE(preset.find(model->presetLine), std::string::npos) << preset;
        EXPECT_NE(preset.find("model = " + folder + "/" + id + ".gguf"), std::string::npos) << preset;
    }
    EXPECT_EQ(listed, (std::set<std::string>{"alpha", "beta", "gamma"})) << response;
}

} // namespace
} // namespace llamafit
