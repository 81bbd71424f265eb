#include "tests/unit/recorded/recordedrun.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace llamafit::test {
namespace {

bool takeField(const std::string& line, const std::string& key, std::string& value) {
    if (line.rfind(key, 0) != 0) {
        return false;
    }
    value = line.substr(key.size());
    return true;
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream stream(text);
    for (std::string word; stream >> word;) {
        result.push_back(word);
    }
    return result;
}

} // namespace

Result<RecordedRun> readRecordedRun(const std::string& path) {
    std::ifstream file(path);
    if (!file) {
        return makeError("test.read-failed", "cannot read " + path);
    }
    RecordedRun run;
    run.caseName = std::filesystem::path(path).stem().string();
    std::string line;
    std::string value;
    bool inLog = false;
    bool sawArgv = false;
    while (std::getline(file, line)) {
        if (inLog) {
            run.log += line + "\n";
        } else if (line == "log:") {
            inLog = true;
        } else if (takeField(line, "server: ", value)) {
            run.serverVersion = value;
        } else if (takeField(line, "not recorded: ", value)) {
            run.notRecorded = value;
        } else if (takeField(line, "argv: ", value)) {
            run.argv = words(value);
            if (!run.argv.empty() && run.argv.front() == "llama-server") {
                run.argv.erase(run.argv.begin());
            }
            sawArgv = true;
        }
    }
    if (run.serverVersion.empty()) {
        return makeError("test.bad-recording", path + " has no \"server: \" line");
    }
    if (!run.notRecorded && (!sawArgv || !inLog)) {
        return makeError("test.bad-recording",
                         path + " has neither \"not recorded: \" nor \"argv: \" and \"log:\"");
    }
    return run;
}

std::vector<std::string> recordedRunFiles(const std::string& directory) {
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".txt") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace llamafit::test
