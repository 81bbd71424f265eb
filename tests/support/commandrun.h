#pragma once
// Runs a command line through /bin/sh and returns its stdout and exit status: how the CLI
// tests drive the built llamafit-cli binary. Test support only; the caller quotes arguments
// (shellQuote) or passes fixed words.

#include <string>

namespace llamafit::test {

struct CommandRun {
    int exitCode = -1; // -1 when the command did not exit normally or could not start
    std::string out;   // everything it wrote to stdout
};

CommandRun runShellCommand(const std::string& commandLine);

// 'text' for /bin/sh, with embedded single quotes escaped.
std::string shellQuote(const std::string& text);

} // namespace llamafit::test
