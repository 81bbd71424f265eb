#pragma once
// One RPC case (rpccases.h) against the real thing: one ggml-rpc-server per endpoint of its
// settings on 127.0.0.1 (free ports, -d CPU), then llama-server --rpc on the case's sparse GGUF
// (-lv 4 --no-warmup -fit off -t 2); what it allocated per server is judged against
// estimateMemory(model, settings, the RPC devices with the free memory the log lists): model, KV,
// RS and output per buffer type (so per server) to print precision, compute within 5 % (printed as
// "[ compute  ]" lines). Reports through gtest assertions, so call it as the last statement of a
// test body. Used by rpcserver_test.cpp (the RPC matrix) and holdoutserver_test.cpp (the holdout).
//
// Environment: LLAMAFIT_GPU_LLAMA_SERVER / LLAMAFIT_RPC_SERVER (default: the GPU rig of
// scripts/fetch-llama-server.sh), LLAMAFIT_KEEP_LOGS=DIR (every log and argv, the servers' ports
// replaced by the recorded endpoints, for scripts/record-rpc-runs.sh and record-server-runs.sh).

#include "tests/support/rpccases.h"

namespace llamafit::test {

void checkRpcCaseAgainstServer(const RpcCase& testCase);

} // namespace llamafit::test
