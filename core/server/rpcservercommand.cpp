// ggml-rpc-server's argv, remote scripts and start banner; see rpcservercommand.h.

#include "core/server/rpcservercommand.h"

#include "core/server/exports.h"
#include "core/server/exposure.h"

namespace llamafit {

namespace {

// The warning as comment lines of a script (`prefix` is the format's comment marker).
std::string warningComment(const RpcServerOptions& options, std::string_view prefix,
                           std::string_view lineEnd) {
    if (!exposesRpcServer(options)) {
        return {};
    }
    return std::string(prefix) + "WARNING: bound to " + options.host +
           ", not 127.0.0.1. llama.cpp says:" + std::string(lineEnd) + std::string(prefix) +
           std::string(kRpcServerExposureWarning) + std::string(lineEnd) + std::string(prefix) +
           "Anyone who reaches this port can use the server: allow only the main host (firewall)." +
           std::string(lineEnd);
}

// One ExecStart word (systemd.service(5), "Command lines"): double quotes with C-style escapes for
// \ and ", and the unit-file specifier and variable characters doubled (systemd.unit(5),
// "Specifiers": %% is a literal %; systemd.service(5): $$ is a literal $).
Result<std::string> quoteSystemdArgument(std::string_view argument) {
    if (argument.find_first_of("\r\n") != std::string_view::npos ||
        argument.find('\0') != std::string_view::npos) {
        return makeError("export.unrepresentable", "a systemd unit cannot carry the argument '" +
                                                       std::string(argument) +
                                                       "' (a line break or NUL byte)");
    }
    std::string quoted = "\"";
    for (const char c : argument) {
        if (c == '\\' || c == '"') {
            quoted += '\\';
            quoted += c;
        } else if (c == '%' || c == '$') {
            quoted += c;
            quoted += c;
        } else {
            quoted += c;
        }
    }
    return quoted + "\"";
}

} // namespace

Result<std::vector<std::string>> rpcServerArguments(const RpcServerOptions& options) {
    if (options.port == 0) {
        return makeError("rpc-server.bad-option", "ggml-rpc-server needs a port from 1 to 65535");
    }
    std::vector<std::string> args{"-H", options.host.empty() ? "127.0.0.1" : options.host, "-p",
                                  std::to_string(options.port)};
    if (!options.devices.empty()) {
        std::string list;
        for (const std::string& device : options.devices) {
            if (device.empty() || device.find(',') != std::string::npos) {
                return makeError("rpc-server.bad-option",
                                 "'" + device +
                                     "' is not a device name (ggml-rpc-server -d takes names such as "
                                     "CPU, Vulkan0 or CUDA0, separated by commas)");
            }
            list += (list.empty() ? "" : ",") + device;
        }
        args.insert(args.end(), {"-d", list});
    }
    if (options.threads) {
        args.insert(args.end(), {"-t", std::to_string(*options.threads)});
    }
    if (options.cache) {
        args.emplace_back("-c");
    }
    return args;
}

bool exposesRpcServer(const RpcServerOptions& options) {
    return !options.host.empty() && !isLoopbackHost(options.host);
}

std::string rpcServerEndpoint(const RpcServerOptions& options, std::string_view reachableHost) {
    const std::string host =
        !reachableHost.empty() ? std::string(reachableHost) : reachableAddress(options.host);
    return host + ":" + std::to_string(options.port);
}

Result<std::string> rpcServerShellScript(std::string_view program, const RpcServerOptions& options) {
    Result<std::vector<std::string>> args = rpcServerArguments(options);
    if (!args) {
        return args.error();
    }
    std::string script =
        "#!/bin/sh\n"
        "# ggml-rpc-server for llama.cpp's RPC backend, exported by LlamaFit. Run the same\n"
        "# llama.cpp build as the main host's llama-server: the RPC protocol changes between builds.\n" +
        warningComment(options, "# ", "\n") + "exec " + quotePosixArgument(program);
    for (const std::string& arg : *args) {
        script += " " + quotePosixArgument(arg);
    }
    return script + "\n";
}

Result<std::string> rpcServerSystemdUnit(std::string_view program, const RpcServerOptions& options) {
    Result<std::vector<std::string>> args = rpcServerArguments(options);
    if (!args) {
        return args.error();
    }
    Result<std::string> quotedProgram = quoteSystemdArgument(program);
    if (!quotedProgram) {
        return quotedProgram.error();
    }
    std::string command = *quotedProgram;
    for (const std::string& arg : *args) {
        Result<std::string> quoted = quoteSystemdArgument(arg);
        if (!quoted) {
            return quoted.error();
        }
        command += " " + *quoted;
    }
    // A user unit: it runs as the user who owns the GPU session (render/video group access), and
    // -c's cache lands in that user's ~/.cache/llama.cpp/rpc.
    return "# ggml-rpc-server for llama.cpp's RPC backend, exported by LlamaFit.\n"
           "# Install: ~/.config/systemd/user/ggml-rpc-server.service, then\n"
           "#   systemctl --user daemon-reload && systemctl --user enable --now ggml-rpc-server\n"
           "# Run the same llama.cpp build as the main host's llama-server.\n" +
           warningComment(options, "# ", "\n") +
           "[Unit]\n"
           "Description=ggml-rpc-server (llama.cpp RPC backend) on " +
           rpcServerEndpoint(options, options.host) +
           "\n"
           "After=network-online.target\n"
           "\n"
           "[Service]\n"
           "ExecStart=" +
           command +
           "\n"
           "Restart=on-failure\n"
           "\n"
           "[Install]\n"
           "WantedBy=default.target\n";
}

Result<std::string> rpcServerBatchFile(std::string_view program, const RpcServerOptions& options) {
    Result<std::vector<std::string>> args = rpcServerArguments(options);
    if (!args) {
        return args.error();
    }
    Result<std::string> line = batchCommandLine(program, *args);
    if (!line) {
        return line.error();
    }
    return "@echo off\r\n"
           "rem ggml-rpc-server for llama.cpp's RPC backend, exported by LlamaFit. Run the same\r\n"
           "rem llama.cpp build as the main host's llama-server.\r\n" +
           warningComment(options, "rem ", "\r\n") +
           "setlocal DisableDelayedExpansion\r\n"
           "chcp 65001 >nul\r\n" +
           *line + "\r\n";
}

std::vector<ListedDevice> rpcServerDevices(std::string_view output) {
    return devicesListedAfter(output, "\nDevices:").value_or(std::vector<ListedDevice>{});
}

std::optional<Error> rpcServerStartFailure(std::string_view output, const RpcServerOptions& options) {
    if (output.find("Failed to create server socket") != std::string_view::npos) {
        return makeError("rpc-server.port-in-use",
                         "ggml-rpc-server could not listen on " + rpcServerEndpoint(options, options.host) +
                             ": another program holds the port (pick another with --port) or the address is "
                             "not this machine's");
    }
    constexpr std::string_view kUnknownDevice = "error: unknown device: ";
    if (const std::size_t at = output.find(kUnknownDevice); at != std::string_view::npos) {
        const std::size_t start = at + kUnknownDevice.size();
        const std::size_t end = output.find_first_of("\r\n", start);
        const std::string device(output.substr(start, end == std::string_view::npos ? end : end - start));
        return makeError("rpc-server.unknown-device",
                         "ggml-rpc-server has no device '" + device +
                             "': 'llamafit-cli devices' or 'ggml-rpc-server --help' lists the names (CPU, "
                             "Vulkan0, CUDA0, ...)");
    }
    return std::nullopt;
}

} // namespace llamafit
