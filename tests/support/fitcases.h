#pragma once
// The fit cases: llama.cpp's own fit, as the real llama-fit-params 0.7.0 (b11669) prints it,
// against the replica (core/sizing/fitreplica.h). A case is a shape of tests/data/shapes, the
// flags, and the rig that runs it: the CPU-only build, the multi-backend build with lavapipe's
// Vulkan0, or the multi-backend build with two ggml-rpc-server -d CPU on 127.0.0.1 (lavapipe
// hidden; the recording names them by rpcFitEndpoints(), the live test by their real ports). One recording
// per case (tests/data/fit-recorded/b11669/<case>.txt) keeps what the tool printed and the memory it measured
// against, so the replica is checked without the tool too. Shared by tests/integration/fitparams_test.cpp
// (live) and tests/unit/recorded/fitrecorded_test.cpp. Test support only.
//
// Recording format (one "key: value" per line, after a comment line):
//   args: -t 2 -fitt 19105            the tool's flags after -m MODEL
//   host-total-bytes: 25276502016     the CPU device's total (what a CPU-only fit measures against)
//   device: Vulkan0 2048              each device and the free MiB of its breakdown row, in order
//                                     (RPC devices: RPC0, RPC1, ... in --rpc order)
//   exit: 0                           the tool's exit status
//   stdout: -c 45824 -ngl -1          its stdout (empty on failure)
//   reason: ...                       on failure: "failed to fit params to free device memory: <reason>"

#include "core/common/result.h"
#include "core/gguf/ggmltype.h"
#include "core/model/modelspec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit::test {

enum class FitRig { Cpu, Vulkan, Rpc };

struct FitCase {
    std::string name;                   // gtest name: letters, digits, underscores
    std::string shape;                  // tests/data/shapes stem
    std::optional<GgmlType> weightType; // retype the weights (lavapipe keeps tensors over 128 MiB on the CPU)
    FitRig rig = FitRig::Cpu;
    std::vector<std::string> args; // llama-fit-params flags besides -m, -t, -lv and -fitt
    // CPU and RPC rigs: -fitt = host total MiB - leaveMiB, so that the same room is left on any
    // machine (a ggml-rpc-server -d CPU reports the host's total as its free memory).
    std::optional<std::uint32_t> leaveMiB;
    // Why the replica is known to print something else here (empty: it must match). Such a case
    // is reported as skipped with this text, and fails once the two agree.
    std::string knownDifference{};
    // The seeded holdout's cases (fitholdoutcases.h): the shape rewritten to a real model's widths
    // ("qwen2/qwen2.5-7b", shapegeometry.h) and cut to its first `blocks` blocks. Empty: the shape as is.
    std::string geometry{};
    std::uint32_t blocks = 0;
};

std::vector<FitCase> fitCases();
// The endpoints the RPC cases' recordings name ("127.0.0.1:50052", "127.0.0.1:50053"), in --rpc
// order; the live test swaps in the ports its servers got.
const std::vector<std::string>& rpcFitEndpoints();
// "<shape>[-<geometry>-l<blocks>][-<type>].gguf"
std::string fitCaseModelFile(const FitCase& fitCase);
// The case's model: its shape, rewritten to its geometry and cut where it has one, retyped by
// the writer (ModelFileOptions::weightType) where it says so.
Result<ModelSpec> fitCaseSpec(const FitCase& fitCase);

struct FitDeviceRecord {
    std::string name;
    std::uint64_t freeMiB = 0;
    bool operator==(const FitDeviceRecord&) const = default;
};

struct FitRecording {
    std::vector<std::string> args;
    std::uint64_t hostTotalBytes = 0;
    std::vector<FitDeviceRecord> devices;
    int exitCode = 0;
    std::string stdoutText; // without the trailing newline
    std::string reason;
    bool operator==(const FitRecording&) const = default;
};

// Whether the tool aborted (ggml_abort: exit 134 through the shell) rather than printing a fit
// (exit 0) or its failure (exit 1). llama-fit-params 0.7.0 does so on lavapipe for many files with
// -c unset; such a run neither confirms nor refutes the replica.
inline bool toolAborted(const FitRecording& recording) {
    return recording.exitCode != 0 && recording.exitCode != 1;
}

std::string formatFitRecording(const std::string& caseName, const FitRecording& recording);
Result<FitRecording> parseFitRecording(const std::string& text);

// What the replica says for a recording: the stdout text, or the failure line, and the exit
// status llama-fit-params would have had. `modelPath` is a GGUF file of the case's shape.
struct FitReplicaAnswer {
    int exitCode = 0;
    std::string stdoutText;
    std::string reason;
};
Result<FitReplicaAnswer> replicaAnswer(const FitCase& fitCase, const FitRecording& recording);

} // namespace llamafit::test
