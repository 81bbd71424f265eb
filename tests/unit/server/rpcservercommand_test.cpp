// ggml-rpc-server's argv, the scripts for another host, its start banner and refusals, as
// llama.cpp 0.7.0's tools/rpc/rpc-server.cpp spells and prints them (banner and error lines
// copied from a real run of the Debian build b11669).
#include "core/common/units.h"
#include "core/server/rpcservercommand.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

// stderr of `ggml-rpc-server -p 50062 -d CPU` (b11669), backend loading lines left out.
constexpr std::string_view kBanner = "ggml_vulkan: Found 0 Vulkan devices:\n"
                                     "Starting RPC server v8.0.0\n"
                                     "  endpoint       : 127.0.0.1:50062\n"
                                     "  local cache    : n/a\n"
                                     "Devices:\n"
                                     "  CPU: AMD EPYC (24105 MiB, 24105 MiB free)\n"
                                     "  transport      : TCP\n";

TEST(RpcServerCommand, ArgumentsInTheServersOwnSpelling) {
    RpcServerOptions options;
    auto args = rpcServerArguments(options);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(*args, (std::vector<std::string>{"-H", "127.0.0.1", "-p", "50052"}));
    options.port = 50060;
    options.devices = {"Vulkan0", "CPU"};
    options.threads = 8;
    options.cache = true;
    args = rpcServerArguments(options);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(*args, (std::vector<std::string>{"-H", "127.0.0.1", "-p", "50060", "-d", "Vulkan0,CPU", "-t",
                                               "8", "-c"}));
    options.devices = {""};
    EXPECT_EQ(rpcServerArguments(options).error().code, "rpc-server.bad-option");
    options.devices = {};
    options.port = 0;
    EXPECT_EQ(rpcServerArguments(options).error().code, "rpc-server.bad-option");
}

TEST(RpcServerCommand, OnlyANonLoopbackAddressIsExposed) {
    RpcServerOptions options;
    EXPECT_FALSE(exposesRpcServer(options));
    options.host = "localhost";
    EXPECT_FALSE(exposesRpcServer(options));
    options.host = "0.0.0.0";
    EXPECT_TRUE(exposesRpcServer(options));
    EXPECT_EQ(rpcServerEndpoint(options), "127.0.0.1:50052"); // a wildcard is reached on loopback here
    EXPECT_EQ(rpcServerEndpoint(options, "192.168.1.20"), "192.168.1.20:50052");
    options.host = "10.0.0.5";
    EXPECT_EQ(rpcServerEndpoint(options), "10.0.0.5:50052");
}

TEST(RpcServerCommand, ScriptsCarryLlamaCppsWarningOnlyWhenExposed) {
    RpcServerOptions options;
    options.devices = {"CUDA0"};
    for (const auto& script :
         {rpcServerShellScript("ggml-rpc-server", options), rpcServerSystemdUnit("ggml-rpc-server", options),
          rpcServerBatchFile("ggml-rpc-server.exe", options)}) {
        ASSERT_TRUE(script.ok());
        EXPECT_EQ(script->find(kRpcServerExposureWarning), std::string::npos) << *script;
        EXPECT_NE(script->find("127.0.0.1"), std::string::npos);
        EXPECT_NE(script->find("CUDA0"), std::string::npos);
    }
    options.host = "0.0.0.0";
    for (const auto& script :
         {rpcServerShellScript("ggml-rpc-server", options), rpcServerSystemdUnit("ggml-rpc-server", options),
          rpcServerBatchFile("ggml-rpc-server.exe", options)}) {
        ASSERT_TRUE(script.ok());
        EXPECT_NE(script->find(kRpcServerExposureWarning), std::string::npos) << *script;
    }
}

TEST(RpcServerCommand, ShellScriptQuotesWhatTheShellWouldRead) {
    const auto script = rpcServerShellScript("/opt/llama cpp/ggml-rpc-server", RpcServerOptions{});
    ASSERT_TRUE(script.ok());
    EXPECT_NE(script->find("exec '/opt/llama cpp/ggml-rpc-server' -H 127.0.0.1 -p 50052\n"),
              std::string::npos)
        << *script;
}

TEST(RpcServerCommand, SystemdUnitEscapesSpecifiersAndVariables) {
    const auto unit = rpcServerSystemdUnit("/opt/50%$HOME \"x\"/ggml-rpc-server", RpcServerOptions{});
    ASSERT_TRUE(unit.ok());
    // systemd.unit(5): %% is a literal %; systemd.service(5): $$ a literal $, \" a quote.
    EXPECT_NE(unit->find("ExecStart=\"/opt/50%%$$HOME \\\"x\\\"/ggml-rpc-server\" \"-H\" \"127.0.0.1\" "
                         "\"-p\" \"50052\"\n"),
              std::string::npos)
        << *unit;
    EXPECT_NE(unit->find("[Install]\nWantedBy=default.target\n"), std::string::npos);
    EXPECT_EQ(rpcServerSystemdUnit("bad\nprogram", RpcServerOptions{}).error().code,
              "export.unrepresentable");
}

TEST(RpcServerCommand, BatchFileHasCrlfLinesAndAQuotedProgram) {
    const auto bat = rpcServerBatchFile("C:\\llama 100%\\ggml-rpc-server.exe", RpcServerOptions{});
    ASSERT_TRUE(bat.ok());
    EXPECT_EQ(bat->rfind("@echo off\r\n", 0), 0u);
    EXPECT_NE(bat->find("\"C:\\llama 100%%\\ggml-rpc-server.exe\" -H 127.0.0.1 -p 50052\r\n"),
              std::string::npos)
        << *bat;
    EXPECT_EQ(bat->find("\n\n"), std::string::npos);
}

TEST(RpcServerCommand, BannerListsTheServedDevices) {
    EXPECT_TRUE(rpcServerDevices("Starting RPC server v8.0.0\n").empty());
    const std::vector<ListedDevice> devices = rpcServerDevices(kBanner);
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].name, "CPU");
    EXPECT_EQ(devices[0].description, "AMD EPYC");
    EXPECT_EQ(devices[0].freeBytes, 24105 * kMiB);
    EXPECT_EQ(rpcServerStartFailure(kBanner, RpcServerOptions{}), std::nullopt);
}

TEST(RpcServerCommand, RefusalsAreNamed) {
    RpcServerOptions options;
    options.port = 50199;
    const auto taken =
        rpcServerStartFailure(std::string(kBanner) + "Failed to create server socket\n", options);
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(taken->code, "rpc-server.port-in-use");
    EXPECT_NE(taken->message.find("127.0.0.1:50199"), std::string::npos);
    const auto unknown = rpcServerStartFailure(
        "error: unknown device: NOPE\navailable devices:\n  CPU: AMD EPYC (1 MiB, 1 MiB free)\n", options);
    ASSERT_TRUE(unknown.has_value());
    EXPECT_EQ(unknown->code, "rpc-server.unknown-device");
    EXPECT_NE(unknown->message.find("'NOPE'"), std::string::npos);
}

} // namespace
} // namespace llamafit
