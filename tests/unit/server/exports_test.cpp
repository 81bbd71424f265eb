#include "core/server/exports.h"

#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#ifndef _WIN32
#include <unistd.h>
#endif

namespace llamafit {
namespace {

namespace fs = std::filesystem;

const std::string kNastyPath = "/tmp/my models/it's \"q8\" 100% ^&! ünï €.gguf";

ExportSpec nastySpec() {
    ExportSpec spec;
    spec.modelPath = kNastyPath;
    spec.settings.contextTokens = 8192;
    spec.settings.parallelSlots = 2;
    spec.settings.cacheTypeV = GgmlType::Q8_0;
    spec.settings.flashAttention = FlashAttention::On;
    spec.settings.swaFull = true;
    spec.port = 18123;
    spec.extraArgs = {"--alias", "a b'c\"d$e`f\\g"};
    return spec;
}

#ifndef _WIN32
std::string readFile(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}
#endif

TEST(ExportsTest, ArgumentsComeFromToServerArgs) {
    const ExportSpec spec = nastySpec();
    const std::vector<std::string> args = exportArguments(spec);
    ASSERT_GE(args.size(), 2u);
    EXPECT_EQ(args[0], "-m");
    EXPECT_EQ(args[1], kNastyPath);
    // The settings survive the round trip through llama-server's own flag parser.
    const Result<ParsedServerArgs> parsed = parseServerArgs(args);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->settings, spec.settings);
    EXPECT_EQ(parsed->model, kNastyPath);
}

TEST(ExportsTest, ShellScriptDeliversEveryArgumentIntact) {
#ifdef _WIN32
    GTEST_SKIP() << "runs the exported script with a POSIX sh, which Windows does not have";
#else
    // Run the exported script for real with `sh`, llama-server replaced by a script that
    // prints its argv one per line (NUL-separated, so a newline inside an argument shows too).
    const fs::path dir = fs::temp_directory_path() / ("llamafit-export-" + std::to_string(::getpid()));
    fs::create_directories(dir / "bin dir");
    const fs::path fake = dir / "bin dir" / "llama 'server\"";
    std::ofstream(fake) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n";
    fs::permissions(fake, fs::perms::owner_all);

    ExportSpec spec = nastySpec();
    spec.serverBinary = fake.string();
    spec.extraArgs.push_back("line\nbreak");
    const Result<std::string> script = exportShellScript(spec);
    ASSERT_TRUE(script.ok());
    std::ofstream(dir / "run.sh") << *script;
    const fs::path output = dir / "argv.bin";
    const std::string command =
        "sh '" + (dir / "run.sh").string() + "' extra' 'arg > '" + output.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);

    std::vector<std::string> received;
    std::istringstream stream(readFile(output));
    for (std::string arg; std::getline(stream, arg, '\0');) {
        received.push_back(arg);
    }
    std::vector<std::string> expected = exportArguments(spec);
    expected.push_back("extra arg");
    EXPECT_EQ(received, expected);
    fs::remove_all(dir);
#endif
}

TEST(ExportsTest, PosixQuoting) {
    EXPECT_EQ(quotePosixArgument("-c"), "-c");
    EXPECT_EQ(quotePosixArgument(""), "''");
    EXPECT_EQ(quotePosixArgument("it's"), "'it'\\''s'");
    EXPECT_EQ(quotePosixArgument("$HOME"), "'$HOME'");
}

TEST(ExportsTest, BatchQuotingEscapesCmdAndCrtRules) {
    EXPECT_EQ(*quoteBatchArgument("-c"), "-c");
    EXPECT_EQ(*quoteBatchArgument("a b"), "^\"a b^\"");
    EXPECT_EQ(*quoteBatchArgument("100%"), "100%%");
    EXPECT_EQ(*quoteBatchArgument("a&b|c"), "a^&b^|c");
    EXPECT_EQ(*quoteBatchArgument("x!^"), "x^!^^");
    // CRT: a quote inside a quoted argument is \", and backslashes before it double.
    EXPECT_EQ(*quoteBatchArgument("say \"hi\\\" now"), "^\"say \\^\"hi\\\\\\^\" now^\"");
    // Trailing backslashes double before the closing quote: "C:\dir \" would eat it.
    EXPECT_EQ(*quoteBatchArgument("C:\\my dir\\"), "^\"C:\\my dir\\\\^\"");
    EXPECT_EQ(*quoteBatchArgument(""), "^\"^\"");
    EXPECT_EQ(*quoteBatchArgument("ünï €"), "^\"ünï €^\"");
    EXPECT_EQ(quoteBatchArgument("a\nb").error().code, "export.unrepresentable");
}

TEST(ExportsTest, BatchFileIsUtf8WithCrlf) {
    ExportSpec spec = nastySpec();
    spec.serverBinary = "C:\\Program Files (x86)\\llama 100%\\llama-server.exe";
    const Result<std::string> bat = exportBatchFile(spec);
    ASSERT_TRUE(bat.ok()) << bat.error().message;
    EXPECT_NE(bat->find("chcp 65001"), std::string::npos);
    EXPECT_NE(bat->find("DisableDelayedExpansion"), std::string::npos);
    EXPECT_NE(bat->find("\"C:\\Program Files (x86)\\llama 100%%\\llama-server.exe\" -m "), std::string::npos);
    EXPECT_NE(bat->find("ünï €"), std::string::npos);
    EXPECT_EQ(bat->find('\n'), bat->find("\r\n") + 1); // every line ends in CRLF
    EXPECT_EQ(bat->substr(bat->size() - 5), " %*\r\n");
}

TEST(ExportsTest, PresetIniSection) {
    ExportSpec spec = nastySpec();
    spec.modelPath = "/models/ünï model.gguf";
    spec.extraArgs.clear();
    spec.settings.kvUnified = false;
    const Result<std::string> ini = exportPresetIni(spec);
    ASSERT_TRUE(ini.ok()) << ini.error().message;
    EXPECT_EQ(*ini, "[ünï model]\n"
                    "model = /models/ünï model.gguf\n"
                    "c = 8192\n"
                    "np = 2\n"
                    "no-kvu = true\n"
                    "ctv = q8_0\n"
                    "fa = on\n"
                    "swa-full = true\n");
    // llama.cpp's preset reader ends a value at ';' or '#': such a path cannot be written.
    spec.modelPath = "/models/a;b.gguf";
    EXPECT_EQ(exportPresetIni(spec).error().code, "export.unrepresentable");
}

TEST(ExportsTest, LlamaSwapEntry) {
    ExportSpec spec = nastySpec();
    spec.extraArgs.clear();
    spec.name = "my \"model\"";
    const Result<std::string> yaml = exportLlamaSwapYaml(spec);
    ASSERT_TRUE(yaml.ok()) << yaml.error().message;
    EXPECT_EQ(
        yaml->rfind("models:\n  \"my \\\"model\\\"\":\n    cmd: |\n      llama-server --port ${PORT} -m ", 0),
        0u);
    EXPECT_NE(yaml->find(quotePosixArgument(kNastyPath)), std::string::npos);
    EXPECT_EQ(yaml->find("18123"), std::string::npos); // llama-swap owns the port
    spec.modelPath = "/m/${HOME}.gguf";
    EXPECT_EQ(exportLlamaSwapYaml(spec).error().code, "export.unrepresentable");
}

} // namespace
} // namespace llamafit
