// `llamafit-cli rpc-server`: ggml-rpc-server in the foreground (RpcServerProcess,
// core/system/rpcserverprocess.h), serving this machine's devices to a llama-server elsewhere, or
// with --print the script that starts it on another host (core/server/rpcservercommand.h).

#include "app/cli/commands.h"

#include "app/cli/interruptnotifier.h"
#include "core/common/units.h"
#include "core/flags/flagvalues.h"
#include "core/server/rpcservercommand.h"
#include "core/system/rpcserverprocess.h"

#include <QCoreApplication>
#include <QTimer>

#include <charconv>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kRpcServerUsage =
    R"(usage: llamafit-cli rpc-server [--port N] [--device DEV,...] [--threads N] [--cache]
                               [--host ADDRESS --expose] [--rpc-server PATH | --server PATH]
       llamafit-cli rpc-server --print sh|systemd|bat [the same options]

Starts ggml-rpc-server, llama.cpp's RPC backend, in the foreground: this machine's devices
become devices of a llama-server on another host, which names this one with
'--rpc ADDRESS:PORT'. It prints the devices it serves and the free memory each reports (what
that llama-server splits layers by), then runs until Ctrl-C, which stops it.

  --port N               the port to listen on (default 50052)
  --device DEV,...       the devices to serve: CPU, Vulkan0, CUDA0, ... (default: the
                         server's own choice); 'llamafit-cli devices' lists this machine's
  --threads N            threads of the CPU device
  --cache                keep received tensors in a local file cache (ggml-rpc-server -c)
  --host ADDRESS         the address to listen on (default 127.0.0.1: this machine only).
                         Any other address needs --expose: ggml-rpc-server has no
                         authentication, and llama.cpp warns never to expose it to an open
                         network; allow only the main host to reach the port
  --rpc-server PATH      the ggml-rpc-server to run; default $LLAMAFIT_GGML_RPC_SERVER, else
                         the one beside --server's (or $LLAMAFIT_LLAMA_SERVER's) llama-server,
                         else ggml-rpc-server on the PATH. Run the same llama.cpp build on every
                         host: the RPC protocol changes between builds
  --print FORMAT         start nothing; print what starts the server on another host:
                         sh (a shell script), systemd (a user unit), bat (a Windows batch
                         file). An exposed server's script carries llama.cpp's warning

Exit status: 0 stopped by Ctrl-C (or printed), 1 the server failed (the reason is printed),
2 bad usage.
)";

Result<std::uint32_t> positiveNumber(std::string_view option, const std::string& text) {
    std::uint32_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc{} || end != text.data() + text.size() || number == 0) {
        return makeError("cli.bad-value", "bad value '" + text + "' for " + std::string(option) +
                                              ": expected a positive integer");
    }
    return number;
}

Result<RpcServerOptions> serverOptions(const CliOptions& options) {
    RpcServerOptions server;
    if (const std::optional<std::string> port = options.value("--port")) {
        Result<std::uint32_t> number = positiveNumber("--port", *port);
        if (!number || *number > 65535) {
            return number ? makeError("cli.bad-value", "--port takes 1 to 65535, not " + *port)
                          : number.error();
        }
        server.port = static_cast<std::uint16_t>(*number);
    }
    if (const std::optional<std::string> devices = options.value("--device")) {
        for (const std::string_view device : split(*devices, ",")) {
            server.devices.emplace_back(device);
        }
    }
    if (const std::optional<std::string> threads = options.value("--threads")) {
        Result<std::uint32_t> number = positiveNumber("--threads", *threads);
        if (!number) {
            return number.error();
        }
        server.threads = *number;
    }
    server.cache = options.has("--cache");
    server.host = options.value("--host").value_or("127.0.0.1");
    if (exposesRpcServer(server) && !options.has("--expose") && !options.has("--print")) {
        return makeError(
            "rpc-server.exposure-not-chosen",
            "--host " + server.host +
                " lets other machines use this ggml-rpc-server, which has no authentication; "
                "llama.cpp says: " +
                std::string(kRpcServerExposureWarning) +
                " Add --expose to listen there anyway, and let only the main host reach the port");
    }
    if (Result<std::vector<std::string>> args = rpcServerArguments(server); !args) {
        return args.error();
    }
    return server;
}

int printScript(const CommandIo& io, const std::string& format, const std::string& program,
                const RpcServerOptions& server) {
    Result<std::string> script =
        format == "sh"        ? rpcServerShellScript(program, server)
        : format == "systemd" ? rpcServerSystemdUnit(program, server)
        : format == "bat"     ? rpcServerBatchFile(program, server)
                              : Result<std::string>(makeError(
                                    "cli.bad-value", "--print takes sh, systemd or bat, not '" + format + "'"));
    if (!script) {
        return reportError(io, script.error(), false);
    }
    io.out << *script;
    return kExitOk;
}

// The server's life on the event loop: prints what it serves once it listens, its failure, and
// stops it on Ctrl-C.
int runInForeground(const CommandIo& io, const QString& program, const RpcServerOptions& server) {
    int argc = 1;
    char name[] = "llamafit-cli";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);
    RpcServerProcess process;
    int exitCode = kExitOk;
    if (exposesRpcServer(server)) {
        io.err << "WARNING: listening on " << server.host
               << ", not 127.0.0.1. llama.cpp says: " << kRpcServerExposureWarning << "\n";
    }
    QObject::connect(&process, &RpcServerProcess::stateChanged, &app, [&](RpcServerProcess::State state) {
        switch (state) {
        case RpcServerProcess::State::Listening: {
            io.out << "ggml-rpc-server listening on " << rpcServerEndpoint(server, server.host) << " (pid "
                   << process.processId() << ")\n";
            for (const ListedDevice& device : process.devices()) {
                io.out << "  " << device.name << ": " << device.description << ", " << device.freeBytes / kMiB
                       << " MiB free of " << device.totalBytes / kMiB << " MiB\n";
            }
            io.out << "On the main host: llama-server ... --rpc " << rpcServerEndpoint(server) << std::endl;
            break;
        }
        case RpcServerProcess::State::Stopped:
            QCoreApplication::exit(exitCode);
            break;
        case RpcServerProcess::State::Failed:
            io.err << "llamafit-cli: " << process.failure().message << " [" << process.failure().code
                   << "]\n";
            QCoreApplication::exit(1);
            break;
        default:
            break;
        }
    });
    InterruptNotifier interrupts([&] {
        io.out << "interrupted: stopping ggml-rpc-server" << std::endl;
        process.stop();
    });
    QTimer::singleShot(0, &app, [&] { process.start(program, server); });
    return QCoreApplication::exec();
}

} // namespace

int runRpcServerCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--port", true},
                                                        {"--device", true},
                                                        {"--threads", true},
                                                        {"--cache"},
                                                        {"--host", true},
                                                        {"--expose"},
                                                        {"--rpc-server", true},
                                                        {"--server", true},
                                                        {"--print", true},
                                                        {"--help"},
                                                        {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (const std::optional<int> ended =
            endOnHelpOrStrayArgument(*options, "rpc-server", kRpcServerUsage, io)) {
        return *ended;
    }
    Result<RpcServerOptions> server = serverOptions(*options);
    if (!server) {
        return reportError(io, server.error(), false);
    }
    if (const std::optional<std::string> format = options->value("--print")) {
        // On another host the program is that host's: the name, unless a path was given.
        return printScript(io, *format, options->value("--rpc-server").value_or("ggml-rpc-server"), *server);
    }
    const QString program =
        options->has("--rpc-server")
            ? QString::fromStdString(*options->value("--rpc-server"))
            : defaultRpcServerProgram(QString::fromStdString(options->value("--server").value_or("")));
    return runInForeground(io, program, *server);
}

} // namespace llamafit
