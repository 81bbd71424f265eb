// buildToSizeFor(); see serverbuild.h.

#include "app/cli/serverbuild.h"

#include "core/server/buildcapabilities.h"
#include "core/sizing/llamabuild.h"
#include "core/system/programoutput.h"

#include <chrono>

namespace llamafit {

std::uint32_t buildToSizeFor(const std::string& program, std::ostream& notes) {
    // --version prints before any backend loads: well within a second.
    const Result<std::string> version =
        programOutput(program, {QStringLiteral("--version")}, std::chrono::seconds(15));
    std::string why;
    if (!version) {
        why = version.error().message;
    } else if (const std::optional<std::uint32_t> build = buildNumberOfVersion(*version)) {
        return *build;
    } else {
        why = program + " --version names no llama.cpp build number: give the build with --llama-build";
    }
    notes << "llamafit-cli: note: sizing for llama.cpp b" << kReferenceLlamaBuild << " (" << why << ")\n";
    return kReferenceLlamaBuild;
}

} // namespace llamafit
