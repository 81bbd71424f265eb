// Shared command-line plumbing of llamafit-cli; see commandline.h.

#include "app/cli/commandline.h"
#include "app/cli/jsonoutput.h"

#include "core/common/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace llamafit {

std::optional<std::string> CliOptions::value(std::string_view name) const {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
}

Result<CliOptions> splitCliOptions(const std::vector<std::string>& args,
                                   const std::vector<CliOptionSpec>& specs) {
    CliOptions options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        const std::size_t equals = word.find('=');
        const std::string_view name = std::string_view(word).substr(0, equals);
        const auto spec =
            std::find_if(specs.begin(), specs.end(), [&](const CliOptionSpec& s) { return s.name == name; });
        if (spec == specs.end()) {
            options.rest.push_back(word);
            continue;
        }
        std::string value;
        if (equals != std::string::npos) {
            value = word.substr(equals + 1);
        } else if (spec->takesValue) {
            if (i + 1 >= args.size()) {
                return makeError("cli.missing-value", std::string(name) + " needs a value");
            }
            value = args[++i];
        }
        options.values[std::string(name)] = value;
    }
    return options;
}

int reportError(const CommandIo& io, const Error& error, bool json) {
    io.err << "llamafit-cli: " << error.message << " [" << error.code << "]\n";
    if (json) {
        nlohmann::ordered_json object;
        object["error"] = {{"code", error.code}, {"message", error.message}};
        printJson(io.out, object);
    }
    return kExitError;
}

std::optional<int> endOnHelpOrStrayArgument(const CliOptions& options, std::string_view command,
                                            std::string_view usage, const CommandIo& io) {
    if (options.has("--help") || options.has("-h")) {
        io.out << usage;
        return kExitOk;
    }
    if (!options.rest.empty()) {
        return reportError(io,
                           makeError("cli.unexpected-argument",
                                     std::string(command) + " takes no '" + options.rest.front() + "'"),
                           options.has("--json"));
    }
    return std::nullopt;
}

std::string llamaServerProgram(const CliOptions& options) {
    const char* fromEnvironment = std::getenv("LLAMAFIT_LLAMA_SERVER");
    return options.value("--server")
        .value_or(fromEnvironment != nullptr && *fromEnvironment != 0 ? fromEnvironment : "llama-server");
}

Result<std::vector<std::uint32_t>> parseNumberList(std::string_view option, std::string_view text) {
    std::vector<std::uint32_t> numbers;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string_view part = text.substr(start, end - start);
        std::uint32_t number = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), number);
        if (part.empty() || ec != std::errc{} || ptr != part.data() + part.size() || number == 0) {
            return makeError("cli.bad-value", "bad value '" + std::string(text) + "' for " +
                                                  std::string(option) +
                                                  ": expected positive integers separated by commas");
        }
        numbers.push_back(number);
        start = end + 1;
    }
    return numbers;
}

Result<std::uint64_t> parseMiB(std::string_view option, std::string_view text) {
    std::uint64_t mib = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), mib);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || mib == 0 ||
        mib > UINT64_MAX / kMiB) {
        return makeError("cli.bad-value", "bad value '" + std::string(text) + "' for " + std::string(option) +
                                              ": expected a positive number of MiB");
    }
    return mib * kMiB;
}

std::string formatMiB(std::uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", toMiB(bytes));
    return buffer;
}

std::string mibWithUnit(std::uint64_t bytes) {
    return formatMiB(bytes) + " MiB";
}

std::string formatSignedMiB(std::int64_t bytes) {
    const std::string magnitude = formatMiB(static_cast<std::uint64_t>(bytes < 0 ? -bytes : bytes));
    return bytes < 0 ? "-" + magnitude : magnitude;
}

std::string formatGiB(std::uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", toGiB(bytes));
    return buffer;
}

std::string joinArgs(const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& arg : args) {
        text += (text.empty() ? "" : " ") + arg;
    }
    return text;
}

} // namespace llamafit
