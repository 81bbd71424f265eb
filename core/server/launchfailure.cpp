#include "core/server/launchfailure.h"

#include "core/server/devicelist.h"
#include "core/server/logformats.h"
#include "core/server/logscanner.h"
#include "core/sizing/rpcdevices.h"

#include <csignal>
#include <cstring>
#include <utility>

namespace llamafit {

#ifndef _WIN32
static_assert(kPosixSigAbrt == SIGABRT && kPosixSigKill == SIGKILL && kPosixSigSegv == SIGSEGV);
#endif

namespace {

using logformats::contains;

} // namespace

std::string_view launchFailureName(LaunchFailureReason reason) {
    switch (reason) {
    case LaunchFailureReason::BinaryMissing:
        return "binary-missing";
    case LaunchFailureReason::BinaryNotExecutable:
        return "binary-not-executable";
    case LaunchFailureReason::LibraryMissing:
        return "library-missing";
    case LaunchFailureReason::FlagRejected:
        return "flag-rejected";
    case LaunchFailureReason::PortInUse:
        return "port-in-use";
    case LaunchFailureReason::ModelMissing:
        return "model-missing";
    case LaunchFailureReason::ModelInvalid:
        return "model-invalid";
    case LaunchFailureReason::ModelLoadFailed:
        return "model-load-failed";
    case LaunchFailureReason::AllocationFailed:
        return "allocation-failed";
    case LaunchFailureReason::RpcHostUnreachable:
        return "rpc-host-unreachable";
    case LaunchFailureReason::RpcProtocolMismatch:
        return "rpc-protocol-mismatch";
    case LaunchFailureReason::RpcHostLost:
        return "rpc-host-lost";
    case LaunchFailureReason::CrashedBySignal:
        return "crashed-by-signal";
    case LaunchFailureReason::Hang:
        return "hang";
    case LaunchFailureReason::ExitedDuringGeneration:
        return "exited-during-generation";
    case LaunchFailureReason::ExitedUnexpectedly:
        return "exited-unexpectedly";
    }
    return "unknown";
}

LaunchFailure classifyLaunchFailure(const LaunchOutcome& outcome) {
    LaunchFailure result;
    result.log = outcome.log;
    const auto set = [&result](LaunchFailureReason reason, std::string message) {
        result.reason = reason;
        result.message = std::move(message);
        return result;
    };
    if (outcome.execError == ExecError::Missing) {
        return set(LaunchFailureReason::BinaryMissing, "llama-server was not found: " + outcome.execMessage);
    }
    if (outcome.execError == ExecError::NotExecutable) {
        return set(LaunchFailureReason::BinaryNotExecutable,
                   "llama-server is not executable: " + outcome.execMessage);
    }
    const std::vector<std::string_view> lines = splitLogLines(outcome.log);
    const auto firstLine = [&lines, &result](std::initializer_list<std::string_view> parts) {
        for (const std::string_view line : lines) {
            for (const std::string_view part : parts) {
                if (contains(line, part)) {
                    result.evidence.emplace_back(line);
                    return std::optional<std::string_view>(line);
                }
            }
        }
        return std::optional<std::string_view>();
    };
    // The build's libraries beside llama-server (libggml*, libllama, a backend) not found: on
    // Linux ld.so prints "error while loading shared libraries: NAME: cannot open shared object
    // file" and exits 127; Windows' loader ends the process with STATUS_DLL_NOT_FOUND, or
    // STATUS_ENTRYPOINT_NOT_FOUND where a DLL of another build is found first on the PATH.
    if (auto line = firstLine({"error while loading shared libraries"})) {
        return set(LaunchFailureReason::LibraryMissing,
                   "llama-server cannot start: a library of its build is missing: " + std::string(*line));
    }
    if (outcome.exitCode == kWindowsStatusDllNotFound) {
        return set(LaunchFailureReason::LibraryMissing,
                   "llama-server cannot start: a DLL it needs is missing (STATUS_DLL_NOT_FOUND, 0xC0000135): "
                   "keep the build's ggml*.dll and llama.dll in the folder of llama-server.exe");
    }
    if (outcome.exitCode == kWindowsStatusEntryPointNotFound) {
        return set(
            LaunchFailureReason::LibraryMissing,
            "llama-server cannot start: a DLL of another llama.cpp build was found first "
            "(STATUS_ENTRYPOINT_NOT_FOUND, 0xC0000139): keep the build's own DLLs beside llama-server.exe");
    }
    // common/arg.cpp: "error: invalid argument: %s" for an unknown flag; a bad value throws
    // and prints "error while handling argument ..." or the backend's own message.
    if (auto line = firstLine({"error: invalid argument:"})) {
        LogScanner s(line->substr(line->find("invalid argument:") + std::strlen("invalid argument:")));
        s.word(result.rejectedFlag);
        return set(LaunchFailureReason::FlagRejected,
                   "this llama-server does not accept " + result.rejectedFlag + ": " + std::string(*line));
    }
    if (auto line = firstLine({"error while handling argument", "Unsupported cache type"})) {
        return set(LaunchFailureReason::FlagRejected,
                   "llama-server rejected a flag value: " + std::string(*line));
    }
    // tools/server/server.cpp: "couldn't bind HTTP server socket, hostname: %s, port: %d"
    if (auto line = firstLine({"couldn't bind HTTP server socket"})) {
        if (auto s = LogScanner::after(*line, "port:")) {
            std::uint32_t port = 0;
            if (s->unsignedNumber(port)) {
                result.port = port;
            }
        }
        return set(LaunchFailureReason::PortInUse,
                   "the port is in use (or the address cannot be bound): " + std::string(*line));
    }
    // ggml-rpc.cpp aborts the process when an --rpc server cannot be used (devicelist.h).
    if (std::optional<Error> rpc = rpcFailureOf(outcome.log)) {
        if (auto line = firstLine({"Failed to connect to "})) {
            LogScanner s(
                line->substr(line->find("Failed to connect to ") + std::strlen("Failed to connect to ")));
            s.word(result.rpcEndpoint);
            return set(LaunchFailureReason::RpcHostUnreachable, rpc->message);
        }
        firstLine({"RPC server version mismatch", "RPC HELLO failed", "RPC handshake failed"});
        return set(LaunchFailureReason::RpcProtocolMismatch, rpc->message);
    }
    if (firstLine({"Remote RPC server crashed or returned malformed response"})) {
        return set(LaunchFailureReason::RpcHostLost,
                   "an RPC server stopped answering while llama-server used it (the host went away, its "
                   "ggml-rpc-server was stopped or crashed, or the network dropped): llama-server cannot "
                   "continue without it");
    }
    std::vector<std::string> allocationEvidence;
    if (auto allocation = findAllocationFailure(outcome.log, outcome.wasReady, &allocationEvidence)) {
        result.allocation = allocation;
        result.evidence = std::move(allocationEvidence);
        std::string message =
            "out of memory allocating the " + std::string(allocationPhaseName(allocation->phase));
        if (const std::optional<std::string> endpoint = rpcEndpointOf(allocation->bufferType)) {
            // An RPC device's buffer lives on another host: name the host, which is where memory
            // must be freed (ggml-rpc.cpp logs "... endpoint: HOST:PORT ... -> failed" first).
            result.rpcEndpoint = *endpoint;
            message += " on the RPC host " + *endpoint + " (" + allocation->bufferType +
                       "): its ggml-rpc-server has less memory free than that buffer";
        } else if (!allocation->bufferType.empty()) {
            message += " on " + allocation->bufferType;
        }
        if (allocation->failedBytes) {
            message +=
                " (" + std::to_string((*allocation->failedBytes + (1u << 19)) >> 20) + " MiB requested)";
        }
        return set(LaunchFailureReason::AllocationFailed, std::move(message));
    }
    // gguf/gguf.cpp: "failed to open GGUF file '%s' (%s)"; "invalid magic characters".
    if (auto line = firstLine({"failed to open GGUF file"})) {
        if (contains(*line, "No such file") || contains(*line, "cannot find")) {
            return set(LaunchFailureReason::ModelMissing,
                       "the model file does not exist: " + std::string(*line));
        }
        return set(LaunchFailureReason::ModelInvalid,
                   "the model file cannot be opened: " + std::string(*line));
    }
    if (auto line = firstLine({"invalid magic characters", "gguf_init_from_"})) {
        return set(LaunchFailureReason::ModelInvalid,
                   "the model file is not a valid GGUF: " + std::string(*line));
    }
    if (auto line = firstLine(
            {"error loading model", "exiting due to model loading error", "failed to load model"})) {
        return set(LaunchFailureReason::ModelLoadFailed,
                   "llama.cpp could not load the model: " + std::string(*line));
    }
    if (outcome.signal) {
        const int signal = *outcome.signal;
        std::string name = "signal " + std::to_string(signal);
        if (signal == kPosixSigKill) {
            name += " (SIGKILL: killed, e.g. by the kernel's OOM killer)";
        } else if (signal == kPosixSigSegv) {
            name += " (SIGSEGV)";
        } else if (signal == kPosixSigAbrt) {
            name += " (SIGABRT: an assertion or abort in llama.cpp; see the last error lines)";
        }
        return set(LaunchFailureReason::CrashedBySignal,
                   std::string("llama-server was killed by ") + name +
                       (outcome.wasGenerating ? " while generating" : ""));
    }
    const std::string exit =
        outcome.exitCode ? "exit code " + std::to_string(*outcome.exitCode) : "no exit code";
    if (outcome.wasGenerating) {
        return set(LaunchFailureReason::ExitedDuringGeneration,
                   "llama-server exited while generating (" + exit + ")");
    }
    return set(LaunchFailureReason::ExitedUnexpectedly, "llama-server exited (" + exit + ")");
}

} // namespace llamafit
