// The model set file (modelsetfile.h) -> ModelSetFile. Strict like the machine profile reader
// (machineprofile.cpp): an unknown field is an error, and every message names the model.
#include "core/modelset/modelsetfile.h"

#include "core/flags/flagtable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace llamafit {

namespace {

using nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr std::string_view kFormat = "llamafit-model-set";

Error badJson(const std::string& message) {
    return makeError("modelset.bad-json", message);
}
Error badValue(const std::string& message) {
    return makeError("modelset.bad-value", message);
}

std::optional<Error> checkFields(const ordered_json& object, const std::string& where,
                                 std::initializer_list<std::string_view> known) {
    if (!object.is_object()) {
        return badJson(where + " must be a JSON object");
    }
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            return badJson(where + ": unknown field '" + key + "'");
        }
    }
    return std::nullopt;
}

// A path as written, made absolute against the set file's folder when it names a file there.
std::string resolvedPath(const std::string& written, const std::string& baseDirectory) {
    const fs::path path(written);
    if (path.is_absolute() || baseDirectory.empty()) {
        return written;
    }
    std::error_code error;
    const fs::path candidate = fs::path(baseDirectory) / path;
    if (fs::is_regular_file(candidate, error)) {
        return fs::absolute(candidate, error).lexically_normal().string();
    }
    return written;
}

// The default name of a model: its file name without .gguf (what exports.cpp names a section),
// or the card id as written.
std::string defaultModelName(const std::string& model) {
    std::string name = fs::path(model).filename().string();
    if (name.size() > 5 && name.ends_with(".gguf")) {
        name.resize(name.size() - 5);
    }
    return name.empty() ? model : name;
}

// {"-c": 4096, "fa": "on", "--no-mmap": true} -> {"-c", "4096", "-fa", "on", "--no-mmap"}.
// A key without dashes is tried as the long flag, then the short one (llama-server has
// multi-letter short flags such as -ngl), so the table decides, not a guess.
Result<std::vector<std::string>> argsFromObject(const ordered_json& object, const std::string& where) {
    std::vector<std::string> words;
    for (const auto& [key, value] : object.items()) {
        std::string flag = key;
        if (!key.starts_with("-")) {
            if (findFlag("--" + key) != nullptr) {
                flag = "--" + key;
            } else if (findFlag("-" + key) != nullptr) {
                flag = "-" + key;
            } else {
                return badValue(where + ": '" + key + "' is not a llama-server flag");
            }
        }
        words.push_back(flag);
        if (value.is_string()) {
            words.push_back(value.get<std::string>());
        } else if (value.is_number_integer() || value.is_number_unsigned()) {
            words.push_back(value.dump());
        } else if (value.is_number_float()) {
            std::ostringstream text;
            text << value.get<double>();
            words.push_back(text.str());
        } else if (value.is_boolean() && value.get<bool>()) {
            // a switch: the flag alone
        } else if (value.is_boolean()) {
            return badValue(where + "." + key +
                            ": false is not a value; leave the switch out, or use its no- form");
        } else {
            return badJson(where + "." + key + " must be a string, a number or true");
        }
    }
    return words;
}

Result<ModelSetEntry> parseEntry(const ordered_json& object, std::size_t index,
                                 const std::string& baseDirectory) {
    const std::string where = "models[" + std::to_string(index) + "]";
    if (std::optional<Error> error = checkFields(object, where, {"model", "name", "args"})) {
        return *error;
    }
    if (!object.contains("model")) {
        return makeError("modelset.missing-field", where + " has no \"model\" (a GGUF path or a card id)");
    }
    if (!object.at("model").is_string() || object.at("model").get<std::string>().empty()) {
        return badJson(where + ".model must be a non-empty string");
    }
    ModelSetEntry entry;
    entry.model = resolvedPath(object.at("model").get<std::string>(), baseDirectory);
    if (object.contains("name")) {
        if (!object.at("name").is_string() || object.at("name").get<std::string>().empty()) {
            return badJson(where + ".name must be a non-empty string");
        }
        entry.name = object.at("name").get<std::string>();
    } else {
        entry.name = defaultModelName(object.at("model").get<std::string>());
    }
    const std::string named = where + " ('" + entry.name + "')";
    if (object.contains("args")) {
        const ordered_json& args = object.at("args");
        if (args.is_array()) {
            for (const ordered_json& word : args) {
                if (!word.is_string()) {
                    return badJson(named + ".args must hold strings only (\"-c\", \"8192\")");
                }
                entry.args.push_back(word.get<std::string>());
            }
        } else if (args.is_object()) {
            Result<std::vector<std::string>> words = argsFromObject(args, named + ".args");
            if (!words) {
                return words.error();
            }
            entry.args = std::move(*words);
        } else {
            return badJson(named + ".args must be an array of words or an object of flags");
        }
    }
    for (const std::string& word : entry.args) {
        const FlagRow* row = findFlag(flagName(word));
        if (row != nullptr && row->id == FlagId::Model) {
            return badValue(named + ".args: the model goes in \"model\", not " + word);
        }
    }
    return entry;
}

} // namespace

Result<ModelSetFile> parseModelSetFile(std::string_view json, const std::string& baseDirectory,
                                       const std::string& defaultName) {
    const ordered_json root = ordered_json::parse(json, nullptr, false);
    if (root.is_discarded()) {
        return badJson("the model set is not JSON");
    }
    if (std::optional<Error> error =
            checkFields(root, "the model set", {"format", "version", "name", "machine", "models"})) {
        return *error;
    }
    if (root.contains("format") && root.at("format") != kFormat) {
        return badValue("\"format\" must be \"" + std::string(kFormat) + "\", not " +
                        root.at("format").dump());
    }
    if (root.contains("version") && root.at("version") != 1) {
        return badValue("\"version\" must be 1, not " + root.at("version").dump());
    }
    ModelSetFile set;
    set.name = defaultName;
    if (root.contains("name")) {
        if (!root.at("name").is_string() || root.at("name").get<std::string>().empty()) {
            return badJson("\"name\" must be a non-empty string");
        }
        set.name = root.at("name").get<std::string>();
    }
    if (root.contains("machine")) {
        if (!root.at("machine").is_string()) {
            return badJson("\"machine\" must be a string (a built-in profile id or a profile path)");
        }
        set.machine = resolvedPath(root.at("machine").get<std::string>(), baseDirectory);
    }
    if (!root.contains("models")) {
        return makeError("modelset.missing-field", "the model set has no \"models\" list");
    }
    if (!root.at("models").is_array()) {
        return badJson("\"models\" must be an array");
    }
    if (root.at("models").empty()) {
        return badValue("\"models\" is empty: a set needs at least one model");
    }
    for (std::size_t i = 0; i < root.at("models").size(); ++i) {
        Result<ModelSetEntry> entry = parseEntry(root.at("models").at(i), i, baseDirectory);
        if (!entry) {
            return entry.error();
        }
        for (const ModelSetEntry& other : set.models) {
            if (other.name == entry->name) {
                return makeError("modelset.duplicate-name",
                                 "two models are named '" + entry->name +
                                     "': the router and llama-swap need one name each (set \"name\")");
            }
        }
        set.models.push_back(std::move(*entry));
    }
    return set;
}

Result<ModelSetFile> loadModelSetFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError("modelset.unreadable", "cannot read the model set file '" + path + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) {
        return makeError("modelset.unreadable", "cannot read the model set file '" + path + "'");
    }
    const fs::path file(path);
    std::error_code error;
    const fs::path folder = fs::absolute(file, error).parent_path();
    return parseModelSetFile(text.str(), folder.string(), file.stem().string());
}

} // namespace llamafit
