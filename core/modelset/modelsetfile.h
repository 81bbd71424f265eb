#pragma once
// A model set file: several models, each with its own llama-server flags, that one machine is
// meant to keep resident together (llama-server's router mode with --models-preset and
// --models-max, or a llama-swap group). Read by `llamafit-cli plan --set` / `export --set`
// and planned by planModelSet() (modelsetplan.h). Values only; loadModelSetFile() reads the
// file, parseModelSetFile() is pure.
//
// Format (version 1; unknown fields are errors, so a typo does not plan without a flag):
//   { "format": "llamafit-model-set", "version": 1,       (both optional)
//     "name": "coding",                  (optional: the llama-swap group; default: file stem)
//     "machine": "rtx-3090-24gb",        (optional: a built-in profile id or a profile path;
//                                         `--machine` on the command line wins)
//     "models": [
//       { "model": "/models/qwen.gguf",  (a GGUF path, relative to the set file's folder, or a
//                                         built-in card id)
//         "name": "qwen",                (optional: the preset section / llama-swap id;
//                                         default: the file name without .gguf, or the card id)
//         "args": ["-c", "32768", "-ngl", "99"] }          (llama-server flags as words, or
//       { "model": "small.gguf", "args": {"-c": 4096, "fa": "on", "--no-mmap": true} } ] }
//                                         as an object: a key is a flag with or without its
//                                         dashes, a value a string, a number, or true for a
//                                         switch)
//
// Error codes: modelset.unreadable (the file), modelset.bad-json (not JSON, a wrong type, an
// unknown field), modelset.missing-field, modelset.bad-value (a wrong format or version, no
// models, -m among the args, an unknown flag key, a false switch), modelset.duplicate-name.

#include "core/common/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ModelSetEntry {
    std::string name;              // unique in the set
    std::string model;             // an absolute GGUF path, or a card id (not a file here)
    std::vector<std::string> args; // llama-server flags as words, without -m
    bool operator==(const ModelSetEntry&) const = default;
};

struct ModelSetFile {
    std::string name;                   // the set's own name (llama-swap group)
    std::optional<std::string> machine; // a built-in id or a profile path, as written
    std::vector<ModelSetEntry> models;  // in file order
    bool operator==(const ModelSetFile&) const = default;
};

// `baseDirectory` resolves relative model paths and profile paths (the set file's folder);
// `defaultName` names the set when it has no "name". A relative "model" that is no file under
// baseDirectory is kept as written (a card id, or loadModel's model.not-found later).
Result<ModelSetFile> parseModelSetFile(std::string_view json, const std::string& baseDirectory,
                                       const std::string& defaultName);
Result<ModelSetFile> loadModelSetFile(const std::string& path);

} // namespace llamafit
