// llamafit-cli: LlamaFit's sizing core on the command line. Picks the subcommand and hands
// it the remaining words and the output streams; the commands live in *command.cpp.

#include "app/cli/commands.h"
#include "core/system/heaptuning.h"

#include <array>
#include <exception>
#include <iostream>
#include <string_view>

namespace {

using llamafit::CommandIo;

struct Command {
    std::string_view name;
    int (*run)(const std::vector<std::string>&, const CommandIo&);
    std::string_view summary;
};

constexpr std::array kCommands{
    Command{"inspect", llamafit::runInspectCommand,
            "show how LlamaFit reads a model (layers, heads, weights)"},
    Command{"estimate", llamafit::runEstimateCommand,
            "memory llama-server allocates for a model and its flags"},
    Command{"fit", llamafit::runFitCommand, "largest context / best K/V types / most GPU layers in a budget"},
    Command{"sweep", llamafit::runSweepCommand, "memory over contexts x K/V cache types (text, csv, json)"},
    Command{"cards", llamafit::runCardsCommand, "list the built-in model cards (usable as -m ID)"},
    Command{"devices", llamafit::runDevicesCommand,
            "GPUs, memory heaps and host memory found on this machine"},
    Command{"machines", llamafit::runMachinesCommand,
            "list the built-in machine profiles (usable as --machine ID)"},
    Command{"plan", llamafit::runPlanCommand,
            "place an estimate on a machine's memory pools; BIOS split advice; --set: several models"},
    Command{"export", llamafit::runExportCommand,
            "launch as sh/.bat script, preset INI, llama-swap entry; --set: a model set"},
    Command{"launch", llamafit::runLaunchCommand, "start llama-server, watch it live, stop on Ctrl-C"},
    Command{"bench", llamafit::runBenchCommand,
            "llama-bench with the planned settings, measured vs predicted"},
    Command{"rpc-server", llamafit::runRpcServerCommand,
            "serve this machine's devices to llama-server --rpc elsewhere; scripts for other hosts"},
    Command{"hf", llamafit::runHfCommand,
            "Hugging Face GGUF repos: search, which quant fits this machine, download"},
    Command{"engines", llamafit::runEnginesCommand,
            "the llama-server builds on this machine: build and devices"},
};

void printUsage(std::ostream& out) {
    out << "usage: llamafit-cli COMMAND [options]   (llamafit-cli COMMAND --help for its options)\n\n"
           "Predicts the memory llama-server (llama.cpp 0.7.0, build b11669) allocates.\n\n";
    for (const Command& command : kCommands) {
        out << "  " << command.name << std::string(12 - command.name.size(), ' ') << command.summary << "\n";
    }
    out << "\n  --version  print the version\n";
}

} // namespace

int main(int argc, char** argv) {
    llamafit::keepFreedHeapForReuse();
    const CommandIo io{std::cout, std::cerr};
    const std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty() || words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
        printUsage(words.empty() ? std::cerr : std::cout);
        return words.empty() ? llamafit::kExitError : llamafit::kExitOk;
    }
    if (words[0] == "--version") {
        std::cout << "llamafit-cli " << LLAMAFIT_VERSION << " (sizes for llama-server 0.7.0, build b11669)\n";
        return llamafit::kExitOk;
    }
    for (const Command& command : kCommands) {
        if (command.name == words[0]) {
            // Last resort: an exception no command turned into a named error (a bug) still ends
            // as one, with exit 2, rather than std::terminate's abort.
            try {
                return command.run(std::vector<std::string>(words.begin() + 1, words.end()), io);
            } catch (const std::exception& e) {
                std::cerr << "llamafit-cli: internal error in '" << words[0] << "': " << e.what()
                          << " [cli.internal-error]\n";
                return llamafit::kExitError;
            }
        }
    }
    std::cerr << "llamafit-cli: unknown command '" << words[0] << "' [cli.unknown-command]\n";
    printUsage(std::cerr);
    return llamafit::kExitError;
}
