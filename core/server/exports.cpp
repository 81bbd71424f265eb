#include "core/server/exports.h"

#include "core/flags/serverargs.h"

namespace llamafit {

namespace {

Error unrepresentable(std::string_view format, std::string_view argument, std::string_view why) {
    return makeError("export.unrepresentable", std::string(format) + " cannot hold the argument '" +
                                                   std::string(argument) + "': " + std::string(why));
}

bool isFlag(std::string_view word) {
    return word.size() > 1 && word.front() == '-' && !(word[1] >= '0' && word[1] <= '9');
}

std::string withoutDashes(std::string_view flag) {
    while (!flag.empty() && flag.front() == '-') {
        flag.remove_prefix(1);
    }
    return std::string(flag);
}

} // namespace

std::string exportModelName(const ExportSpec& spec) {
    if (!spec.name.empty()) {
        return spec.name;
    }
    std::string_view path = spec.modelPath;
    const std::size_t slash = path.find_last_of("/\\");
    if (slash != std::string_view::npos) {
        path.remove_prefix(slash + 1);
    }
    if (path.size() > 5 && path.substr(path.size() - 5) == ".gguf") {
        path.remove_suffix(5);
    }
    return path.empty() ? std::string("model") : std::string(path);
}

std::vector<std::string> exportArguments(const ExportSpec& spec) {
    auto spelling = [](FlagId id) { return std::string(flagRow(id).canonicalSpelling()); };
    std::vector<std::string> args{spelling(FlagId::Model), spec.modelPath};
    for (std::string& arg : toServerArgs(spec.settings)) {
        args.push_back(std::move(arg));
    }
    args.insert(args.end(), {spelling(FlagId::Host), spec.host});
    if (spec.port) {
        args.insert(args.end(), {spelling(FlagId::Port), std::to_string(*spec.port)});
    }
    args.insert(args.end(), spec.extraArgs.begin(), spec.extraArgs.end());
    return args;
}

std::string quotePosixArgument(std::string_view argument) {
    // Words made only of these need no quotes (POSIX XCU 2.2: none is a shell metacharacter).
    constexpr std::string_view kSafe =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:,=@%";
    if (!argument.empty() && argument.find_first_not_of(kSafe) == std::string_view::npos) {
        return std::string(argument);
    }
    std::string quoted = "'";
    for (const char c : argument) {
        if (c == '\'') {
            quoted += "'\\''"; // close, an escaped quote, reopen: nothing is special inside '...'
        } else {
            quoted += c;
        }
    }
    quoted += '\'';
    return quoted;
}

Result<std::string> quoteBatchArgument(std::string_view argument) {
    if (argument.find_first_of("\r\n") != std::string_view::npos) {
        return unrepresentable(".bat", argument, "cmd.exe cannot pass a line break");
    }
    if (argument.find('\0') != std::string_view::npos) {
        return unrepresentable(".bat", argument, "a NUL byte");
    }
    // Step 1, the C runtime's argv rules (CommandLineToArgvW, MS "Parsing C++ command-line
    // arguments"): inside "...", a quote is \" and backslashes are literal unless they precede
    // a quote, where they double.
    std::string crt;
    const bool needsQuotes = argument.empty() || argument.find_first_of(" \t\"") != std::string_view::npos;
    if (!needsQuotes) {
        crt = std::string(argument);
    } else {
        crt = "\"";
        std::size_t backslashes = 0;
        for (const char c : argument) {
            if (c == '\\') {
                ++backslashes;
                continue;
            }
            if (c == '"') {
                crt.append(backslashes * 2 + 1, '\\');
                crt += '"';
            } else {
                crt.append(backslashes, '\\');
                crt += c;
            }
            backslashes = 0;
        }
        crt.append(backslashes * 2, '\\'); // before the closing quote
        crt += '"';
    }
    // Step 2, cmd.exe: a caret before every metacharacter (quotes included, so cmd never
    // enters its own quote mode and never treats & | < > as operators). % cannot be caret-
    // escaped in a batch file: percent expansion runs before carets are read, so it doubles.
    std::string cmd;
    for (const char c : crt) {
        if (c == '%') {
            cmd += "%%";
        } else if (std::string_view("()!^\"<>&|").find(c) != std::string_view::npos) {
            cmd += '^';
            cmd += c;
        } else {
            cmd += c;
        }
    }
    return cmd;
}

Result<std::string> exportShellScript(const ExportSpec& spec) {
    std::string script = "#!/bin/sh\n"
                         "# llama-server launch exported by LlamaFit. Extra arguments to this script are\n"
                         "# passed on to llama-server.\n"
                         "exec " +
                         quotePosixArgument(spec.serverBinary);
    for (const std::string& arg : exportArguments(spec)) {
        script += " " + quotePosixArgument(arg);
    }
    script += " \"$@\"\n";
    return script;
}

Result<std::string> batchCommandLine(std::string_view program, const std::vector<std::string>& args) {
    if (program.find_first_of("\"\r\n") != std::string_view::npos) {
        return unrepresentable(".bat", program, "a program path cannot hold a quote or line break");
    }
    // The program in real quotes: cmd finds it by its quoted first word, and & ^ ( ) are
    // literal between quotes; only % still needs doubling.
    std::string line = "\"";
    for (const char c : program) {
        line += c == '%' ? std::string("%%") : std::string(1, c);
    }
    line += "\"";
    for (const std::string& arg : args) {
        Result<std::string> quoted = quoteBatchArgument(arg);
        if (!quoted) {
            return quoted.error();
        }
        line += " " + *quoted;
    }
    return line;
}

Result<std::string> exportBatchFile(const ExportSpec& spec) {
    Result<std::string> line = batchCommandLine(spec.serverBinary, exportArguments(spec));
    if (!line) {
        return line.error();
    }
    return "@echo off\r\n"
           "rem llama-server launch exported by LlamaFit (UTF-8; extra arguments are passed on).\r\n"
           "setlocal DisableDelayedExpansion\r\n"
           "chcp 65001 >nul\r\n" +
           *line + " %*\r\n";
}

Result<std::string> exportPresetIni(const ExportSpec& spec) {
    const std::string name = exportModelName(spec);
    if (name.find_first_of("]\r\n") != std::string::npos) {
        return unrepresentable("INI", name, "a section name cannot hold ']' or a line break");
    }
    std::vector<std::string> args = exportArguments(spec);
    // Host and port belong to the router (conventions §4); the section carries the rest.
    std::vector<std::pair<std::string, std::string>> entries;
    for (std::size_t i = 2; i < args.size(); ++i) {
        if (!isFlag(args[i])) {
            return unrepresentable("INI", args[i], "a value without its flag");
        }
        std::string key = withoutDashes(args[i]);
        std::string value = "true"; // a switch; common/preset.cpp reverses it for a no- key
        if (i + 1 < args.size() && !isFlag(args[i + 1])) {
            value = args[++i];
        }
        if (key == "host" || key == "port") {
            continue;
        }
        entries.emplace_back(std::move(key), std::move(value));
    }
    entries.insert(entries.begin(), {"model", spec.modelPath});
    std::string ini = "[" + name + "]\n";
    for (const auto& [key, value] : entries) {
        if (value.find_first_of(";#\r\n") != std::string::npos) {
            return unrepresentable("INI", value,
                                   "llama.cpp's preset reader ends a value at ';', '#' or a line break");
        }
        if (!value.empty() &&
            (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t')) {
            return unrepresentable("INI", value, "llama.cpp's preset reader trims spaces around a value");
        }
        ini += key + " = " + value + "\n";
    }
    return ini;
}

std::string yamlQuoted(std::string_view text) {
    // Only " and \ need escaping in a double-quoted YAML scalar of UTF-8 text.
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
        }
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

Result<std::string> llamaSwapModelEntry(const ExportSpec& spec) {
    ExportSpec swap = spec;
    swap.port.reset();
    std::string cmd = quotePosixArgument(spec.serverBinary) + " --port ${PORT}";
    for (const std::string& arg : exportArguments(swap)) {
        if (arg.find_first_of("\r\n") != std::string::npos) {
            return unrepresentable("llama-swap", arg, "cmd is one line");
        }
        if (arg.find("${") != std::string::npos) {
            return unrepresentable("llama-swap", arg, "llama-swap expands ${...} macros in cmd");
        }
        cmd += " " + quotePosixArgument(arg);
    }
    return "  " + yamlQuoted(exportModelName(spec)) + ":\n    cmd: |\n      " + cmd + "\n";
}

Result<std::string> exportLlamaSwapYaml(const ExportSpec& spec) {
    Result<std::string> entry = llamaSwapModelEntry(spec);
    if (!entry) {
        return entry.error();
    }
    return "models:\n" + *entry;
}

} // namespace llamafit
