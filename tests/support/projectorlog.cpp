// The projector's log lines and shapes; see projectorlog.h.
#include "tests/support/projectorlog.h"

#include "tests/support/modelfiles.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace llamafit::test {

ProjectorLogLines projectorLogLines(const std::string& log) {
    ProjectorLogLines lines;
    std::istringstream stream(log);
    for (std::string line; std::getline(stream, line);) {
        double mib = 0;
        int side = 0;
        if (const auto at = line.find("load_hparams: model size:");
            at != std::string::npos &&
            std::sscanf(line.c_str() + at, "load_hparams: model size: %lf", &mib) == 1) {
            lines.weightMiB = mib;
        } else if (const auto warm = line.find("warmup with image size = ");
                   warm != std::string::npos &&
                   std::sscanf(line.c_str() + warm, "warmup with image size = %d", &side) == 1) {
            lines.warmupSide = side;
        } else if (const auto reserve = line.find("reserve_compute_meta:");
                   reserve != std::string::npos && line.find("compute buffer size =") != std::string::npos) {
            // Not its "graph splits = N, nodes = M" line.
            const auto equals = line.find("= ", reserve);
            if (equals != std::string::npos && std::sscanf(line.c_str() + equals, "= %lf", &mib) == 1) {
                lines.computeMiB = mib;
            }
        } else if (line.find("mismatch between text model") != std::string::npos) {
            lines.widthMismatch = true;
        }
    }
    return lines;
}

Result<ProjectorInfo> projectorShape(const std::string& path) {
    const std::string stem = std::filesystem::path(path).stem().string();
    const auto spec = loadModelSpecFile(shapesDirectory() + "/mmproj/" + stem + ".json");
    if (!spec) {
        return spec.error();
    }
    const auto file = ggufFileForSpec(*spec);
    if (!file) {
        return file.error();
    }
    return interpretProjector(*file, path);
}

} // namespace llamafit::test
