#pragma once
// Classifies a failed llama-server launch into a named reason, from what the process
// layer saw: its log (as kept), how it ended (exit code or signal) and any exec error. Used by
// core/system's ServerProcess (Failed(reason)) and by `llamafit-cli launch`, which prints
// the message; the GUI turns an allocation failure into one-click fixes. Pure function of
// the text, Qt-free. The log as given is kept in the result: nothing is summarised away.
//
// Recognised (llama.cpp b11669 messages; CUDA/Vulkan/Metal from ggml/src of the same era):
//   binary missing / not executable   the caller's exec error (ENOENT / EACCES)
//   flag rejected                     "error: invalid argument: --no-mmap" (common/arg.cpp),
//                                     "error while handling argument", "Unsupported cache type"
//   port in use                       "couldn't bind HTTP server socket, hostname: H, port: P"
//   model missing                     "failed to open GGUF file 'X' (No such file or directory)"
//   not a valid GGUF                  "invalid magic characters", other gguf_init_from_* errors
//   model load failure                "error loading model", "exiting due to model loading error"
//   allocation failure                CPU / CUDA / Vulkan / Metal out-of-memory lines (allocationfailure.h)
//   RPC host unreachable / protocol   ggml-rpc.cpp "Failed to connect to HOST:PORT", "RPC server version
//                                     mismatch: M.m.p", "RPC HELLO failed" (devicelist.h rpcFailureOf)
//   RPC host lost                     ggml-rpc.cpp "Remote RPC server crashed or returned malformed
//                                     response" (a server that went away mid-run; the log does not say
//                                     which: the process layer names it by asking the endpoints)
//   crash by signal, exit during generation, other exits
//
// Units: bytes (AllocationFailure::failedBytes).

#include "core/server/allocationfailure.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class LaunchFailureReason {
    BinaryMissing,
    BinaryNotExecutable,
    LibraryMissing, // the build's own DLLs / shared libraries (ggml, llama, a backend) are not found
    FlagRejected,
    PortInUse,
    ModelMissing,
    ModelInvalid,    // not a GGUF, or a GGUF llama.cpp cannot read
    ModelLoadFailed, // a readable GGUF that failed to load (unknown arch, missing tensor, ...)
    AllocationFailed,
    RpcHostUnreachable,  // an --rpc server not listening at start
    RpcProtocolMismatch, // an --rpc server of another llama.cpp build (or another program)
    RpcHostLost,         // an --rpc server that went away while llama-server used it
    CrashedBySignal,
    Hang, // set by the process layer (no /health answer in time); never returned here
    ExitedDuringGeneration,
    ExitedUnexpectedly,
};

// Stable kebab names for logs, JSON and tests: "allocation-failed".
std::string_view launchFailureName(LaunchFailureReason reason);

enum class ExecError {
    None,
    Missing,       // ENOENT (QProcess::FailedToStart on a missing file)
    NotExecutable, // EACCES / ENOEXEC
};

// The POSIX signal numbers LaunchOutcome::signal is compared with, spelled out because
// Windows' <csignal> has no SIGKILL and numbers SIGABRT 22.
inline constexpr int kPosixSigAbrt = 6;
inline constexpr int kPosixSigKill = 9;
inline constexpr int kPosixSigSegv = 11;
// Windows' NTSTATUS exit codes of a program the loader could not start (ntstatus.h), as
// QProcess::exitCode() gives them (the DWORD as int): a DLL not found, or a DLL of another
// build that lacks an entry point the program imports.
inline constexpr int kWindowsStatusDllNotFound = static_cast<int>(0xC0000135U);
inline constexpr int kWindowsStatusEntryPointNotFound = static_cast<int>(0xC0000139U);

// What the process layer knows when the server has died (or failed to start).
struct LaunchOutcome {
    std::string log; // stdout and stderr, in order, as kept (ServerProcess: core/server/boundedlog.h)
    ExecError execError = ExecError::None;
    std::string execMessage;     // the OS / QProcess text for the exec error
    std::optional<int> exitCode; // normal exit
    std::optional<int> signal;   // killed by this signal (POSIX number)
    bool wasReady = false;       // /health had answered 200
    bool wasGenerating = false;  // a request was in progress (a slot busy) at the end
};

struct LaunchFailure {
    LaunchFailureReason reason = LaunchFailureReason::ExitedUnexpectedly;
    std::string message;               // for people: what happened and what to do
    std::vector<std::string> evidence; // the log lines that decided, without their prefix
    std::optional<AllocationFailure> allocation;
    std::string rejectedFlag;          // FlagRejected: "--no-mmap"
    std::optional<std::uint32_t> port; // PortInUse
    // RpcHostUnreachable (from the log), RpcHostLost (set by the caller), AllocationFailed on an
    // RPC device (the host that ran out of memory).
    std::string rpcEndpoint;
    std::string log; // the log, as given
    bool operator==(const LaunchFailure&) const = default;
};

LaunchFailure classifyLaunchFailure(const LaunchOutcome& outcome);

} // namespace llamafit
