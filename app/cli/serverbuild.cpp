// buildOfServer(); see serverbuild.h.

#include "app/cli/serverbuild.h"

#include "core/server/buildcapabilities.h"
#include "core/system/programoutput.h"

#include <chrono>

namespace llamafit {

Result<std::uint32_t> buildOfServer(const std::string& program) {
    // --version prints before any backend loads: well within a second.
    Result<std::string> version =
        programOutput(program, {QStringLiteral("--version")}, std::chrono::seconds(15));
    if (!version) {
        return version.error();
    }
    if (const std::optional<std::uint32_t> build = buildNumberOfVersion(*version)) {
        return *build;
    }
    return makeError("probe.no-build",
                     program +
                         " --version names no llama.cpp build number: give the build with --llama-build");
}

} // namespace llamafit
