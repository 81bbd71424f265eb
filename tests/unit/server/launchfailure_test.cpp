#include "core/server/launchfailure.h"

#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

#include <csignal>

namespace llamafit {
namespace {

using testdata::readServerCapture;

LaunchFailure classifyCapture(const std::string& name, int exitCode = 1) {
    LaunchOutcome outcome;
    outcome.log = readServerCapture(name);
    outcome.exitCode = exitCode;
    return classifyLaunchFailure(outcome);
}

TEST(LaunchFailureTest, ExecErrorsNameTheBinary) {
    LaunchOutcome outcome;
    outcome.execError = ExecError::Missing;
    outcome.execMessage = "execve: No such file or directory";
    EXPECT_EQ(classifyLaunchFailure(outcome).reason, LaunchFailureReason::BinaryMissing);
    outcome.execError = ExecError::NotExecutable;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::BinaryNotExecutable);
    EXPECT_NE(failure.message.find("execve"), std::string::npos);
}

TEST(LaunchFailureTest, MissingLibrariesOfTheBuildAreNamed) {
    LaunchOutcome ldSo;
    ldSo.log = "/opt/llama/llama-server: error while loading shared libraries: libggml-base.so: cannot open "
               "shared object file: No such file or directory\n";
    ldSo.exitCode = 127;
    const LaunchFailure fromLinux = classifyLaunchFailure(ldSo);
    EXPECT_EQ(fromLinux.reason, LaunchFailureReason::LibraryMissing);
    EXPECT_NE(fromLinux.message.find("libggml-base.so"), std::string::npos);
    EXPECT_EQ(launchFailureName(fromLinux.reason), "library-missing");

    LaunchOutcome windows; // no output at all: the loader ends the process before main
    windows.exitCode = static_cast<int>(0xC0000135U);
    const LaunchFailure fromWindows = classifyLaunchFailure(windows);
    EXPECT_EQ(fromWindows.reason, LaunchFailureReason::LibraryMissing);
    EXPECT_NE(fromWindows.message.find("0xC0000135"), std::string::npos);
    windows.exitCode = static_cast<int>(0xC0000139U);
    EXPECT_EQ(classifyLaunchFailure(windows).reason, LaunchFailureReason::LibraryMissing);
    windows.exitCode = 1;
    EXPECT_EQ(classifyLaunchFailure(windows).reason, LaunchFailureReason::ExitedUnexpectedly);
}

TEST(LaunchFailureTest, RejectedFlag) {
    const LaunchFailure failure = classifyCapture("fail-badflag.log");
    EXPECT_EQ(failure.reason, LaunchFailureReason::FlagRejected);
    EXPECT_EQ(failure.rejectedFlag, "--no-mmap");
    EXPECT_EQ(launchFailureName(failure.reason), "flag-rejected");
    EXPECT_EQ(failure.log, readServerCapture("fail-badflag.log"));
}

TEST(LaunchFailureTest, PortHeldByAnotherServer) {
    const LaunchFailure failure = classifyCapture("fail-portinuse.log");
    EXPECT_EQ(failure.reason, LaunchFailureReason::PortInUse);
    EXPECT_EQ(failure.port, 18045u);
    ASSERT_EQ(failure.evidence.size(), 1u);
    EXPECT_EQ(failure.evidence[0].rfind("srv         start: couldn't bind", 0), 0u);
}

TEST(LaunchFailureTest, MissingAndInvalidModel) {
    EXPECT_EQ(classifyCapture("fail-missing.log").reason, LaunchFailureReason::ModelMissing);
    const LaunchFailure junk = classifyCapture("fail-notgguf.log");
    EXPECT_EQ(junk.reason, LaunchFailureReason::ModelInvalid);
    EXPECT_NE(junk.message.find("invalid magic"), std::string::npos);
}

TEST(LaunchFailureTest, ModelLoadFailureWithoutGgufError) {
    LaunchOutcome outcome;
    outcome.log = "E llama_model_load: error loading model: unknown model architecture: 'foo'\n"
                  "E srv  llama_server: exiting due to model loading error\n";
    outcome.exitCode = 1;
    EXPECT_EQ(classifyLaunchFailure(outcome).reason, LaunchFailureReason::ModelLoadFailed);
}

TEST(LaunchFailureTest, CpuKvCacheAllocationUnderRlimit) {
    const LaunchFailure failure = classifyCapture("fail-oom-kv.log");
    EXPECT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    ASSERT_TRUE(failure.allocation.has_value());
    EXPECT_EQ(failure.allocation->bufferType, "CPU");
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::KvCache);
    EXPECT_EQ(failure.allocation->failedBytes, 512032768u); // the exact byte figure, not 488.31 MB
    EXPECT_TRUE(failure.allocation->exactBytes);
    EXPECT_NE(failure.message.find("KV cache"), std::string::npos);
}

TEST(LaunchFailureTest, CpuComputeAllocationUnderRlimit) {
    const LaunchFailure failure = classifyCapture("fail-oom-compute.log");
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::Compute);
    EXPECT_EQ(failure.allocation->failedBytes, 2049329184u);
}

TEST(LaunchFailureTest, CudaOutOfMemory) {
    LaunchOutcome outcome;
    outcome.log =
        "I load_tensors:        CUDA0 model buffer size =  4437.80 MiB\n"
        "E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc "
        "failed: out "
        "of memory\n"
        "E alloc_tensor_range: failed to allocate CUDA0 buffer of size 8589934592\n"
        "E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache\n";
    outcome.exitCode = 1;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    EXPECT_EQ(failure.allocation->bufferType, "CUDA0");
    EXPECT_EQ(failure.allocation->failedBytes, 8589934592u);
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::KvCache);
    EXPECT_EQ(failure.evidence.size(), 3u);
}

TEST(LaunchFailureTest, VulkanOutOfDeviceMemoryWithPhaseFromProgress) {
    LaunchOutcome outcome;
    outcome.log = "load_tensors:      Vulkan0 model buffer size = 20000.00 MiB\n"
                  "llama_kv_cache:      Vulkan0 KV buffer size =  8192.00 MiB\n"
                  "ggml_vulkan: Device memory allocation of size 4294967296 failed.\n"
                  "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n"
                  "ggml_gallocr_reserve_n_impl: failed to allocate Vulkan0 buffer of size 4294967296\n";
    outcome.signal = kPosixSigAbrt;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    EXPECT_EQ(failure.allocation->bufferType, "Vulkan0");
    EXPECT_EQ(failure.allocation->failedBytes, 4294967296u);
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::Compute); // after the KV line
}

TEST(LaunchFailureTest, HostBadAllocWhileCreatingTheContextIsAnAllocationFailure) {
    // What llama-server 0.7.0 printed under a 500 MiB RLIMIT_AS when its threads' malloc arenas had
    // taken the address space before the KV cache's bookkeeping was allocated.
    LaunchOutcome outcome;
    outcome.log = "llama_context:        CPU  output buffer size =     0.00 MiB\n"
                  "llama_init_from_model: failed to initialize the context: std::bad_alloc\n"
                  "common_init_: failed to create context with model '/tmp/tiny.gguf'\n"
                  "llama_server: exiting due to model loading error\n";
    outcome.exitCode = 1;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed) << failure.message;
    EXPECT_EQ(failure.allocation->bufferType, "CPU");
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::KvCache); // after the output buffer
    EXPECT_FALSE(failure.allocation->failedBytes.has_value());
}

TEST(LaunchFailureTest, MetalWeightsAllocation) {
    LaunchOutcome outcome;
    outcome.log = "ggml_backend_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, size = "
                  "  512.50 MiB\n"
                  "llama_model_load: error loading model: unable to allocate Metal buffer\n";
    outcome.exitCode = 1;
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    ASSERT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    EXPECT_EQ(failure.allocation->bufferType, "Metal");
    EXPECT_EQ(failure.allocation->phase, AllocationPhase::ModelLoad);
    EXPECT_EQ(failure.allocation->failedBytes, 537395200u); // 512.5 MiB
    EXPECT_FALSE(failure.allocation->exactBytes);
}

TEST(LaunchFailureTest, SignalsAndExitsAfterReady) {
    LaunchOutcome outcome;
    outcome.log = readServerCapture("run-np2-generate.log");
    outcome.wasReady = true;
    outcome.signal = kPosixSigKill;
    outcome.wasGenerating = true;
    LaunchFailure failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::CrashedBySignal);
    EXPECT_NE(failure.message.find("SIGKILL"), std::string::npos);
    EXPECT_EQ(failure.log, outcome.log);
    outcome.signal.reset();
    outcome.exitCode = 134;
    EXPECT_EQ(classifyLaunchFailure(outcome).reason, LaunchFailureReason::ExitedDuringGeneration);
    outcome.wasGenerating = false;
    EXPECT_EQ(classifyLaunchFailure(outcome).reason, LaunchFailureReason::ExitedUnexpectedly);
}

TEST(LaunchFailureTest, AllocationDuringGenerationIsRuntime) {
    const std::optional<AllocationFailure> failure = findAllocationFailure(
        "sched_reserve:        CPU compute buffer size =     1.64 MiB\n"
        "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 100\n",
        true);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->phase, AllocationPhase::Runtime);
    EXPECT_FALSE(findAllocationFailure(readServerCapture("run-np2-generate.log"), true).has_value());
}

TEST(LaunchFailureTest, RpcServersThatCannotBeUsed) {
    // ggml-rpc.cpp aborts llama-server 0.7.0 (SIGABRT) with these lines.
    LaunchOutcome outcome;
    outcome.signal = kPosixSigAbrt;
    outcome.log = "load_backend: loaded RPC backend\n./src/ggml-rpc/ggml-rpc.cpp:650: Failed to connect to "
                  "127.0.0.1:50069\n[Inferior 1 (process 9741) detached]\n";
    LaunchFailure failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::RpcHostUnreachable);
    EXPECT_EQ(failure.rpcEndpoint, "127.0.0.1:50069");
    EXPECT_EQ(launchFailureName(failure.reason), "rpc-host-unreachable");

    outcome.log = "RPC server version mismatch: 2.0.0\n";
    failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::RpcProtocolMismatch);
    EXPECT_NE(failure.message.find("same llama.cpp build"), std::string::npos);

    outcome.log =
        "srv  update_slots: ...\n./src/ggml-rpc/ggml-rpc.cpp:509: Remote RPC server crashed or returned "
        "malformed response\n";
    outcome.wasGenerating = true;
    failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::RpcHostLost);
    EXPECT_TRUE(failure.rpcEndpoint.empty()); // the log does not say which: the process layer asks
    EXPECT_EQ(failure.evidence.size(), 1u);
}

TEST(LaunchFailureTest, AnRpcHostOutOfMemoryIsNamedByItsEndpoint) {
    LaunchOutcome outcome;
    outcome.exitCode = 1;
    outcome.log = readServerCapture("fail-oom-rpc-host.log");
    const LaunchFailure failure = classifyLaunchFailure(outcome);
    EXPECT_EQ(failure.reason, LaunchFailureReason::AllocationFailed);
    EXPECT_EQ(failure.rpcEndpoint, "127.0.0.1:50152");
    EXPECT_NE(failure.message.find("on the RPC host 127.0.0.1:50152 (RPC0[127.0.0.1:50152])"),
              std::string::npos)
        << failure.message;
    ASSERT_TRUE(failure.allocation.has_value());
    EXPECT_EQ(failure.allocation->failedBytes, 4617396224u);
}

} // namespace
} // namespace llamafit
