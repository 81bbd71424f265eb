#pragma once
// One case of an integration matrix (the CPU one, integrationcases.h, or the Vulkan one,
// vulkancases.h) against the real llama-server: write the shape's sparse GGUF, estimate it
// with the case's settings and devices, run the server on it (-lv 4 --no-warmup -fit off -t 2,
// the settings' flags, the no-populate shim), parse what it allocated and judge the estimate
// (servercomparison.h). Reports through gtest assertions, so call it as the last statement of
// a test body. Used by realserver_test.cpp and vulkanserver_test.cpp.
//
// Environment: LLAMAFIT_KEEP_LOGS=DIR (write NAME.log, NAME.argv or NAME.skipped there for
// scripts/record-server-runs.sh), LLAMAFIT_INTEGRATION_MAX_MIB (real memory a case may make the
// server touch; default 6144).

#include "tests/support/integrationcases.h"

#include <string>

namespace llamafit::test {

void checkCaseAgainstServer(const IntegrationCase& testCase, const std::string& server);

// The last `bytes` of a server log, for a failure message.
std::string logTail(const std::string& log, std::size_t bytes = 3000);

// LLAMAFIT_KEEP_LOGS=DIR: NAME.log (the whole log), NAME.argv (the arguments after the
// executable, the runner's --host/--port appended), or NAME.skipped (why the case did not run).
// scripts/record-server-runs.sh turns these into tests/data/recorded/.
void keepForRecording(const std::string& name, const std::string& extension, const std::string& text);

} // namespace llamafit::test
