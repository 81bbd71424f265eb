// `llamafit-cli cards`: the built-in model cards, usable anywhere -m takes a model.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/texttable.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"

#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kCardsUsage = R"(usage: llamafit-cli cards [--json]

Lists the built-in model cards: metadata-only descriptions of real models (their GGUF keys and
tensor table), so 'estimate -m ID' works without downloading the file.

  --json                 machine-readable output
)";

// The first clause of a card's source, short enough for a table row (--json has it all).
std::string shortSource(const std::string& source) {
    constexpr std::size_t kMaxChars = 60;
    std::string text = source.substr(0, source.find(" ("));
    if (text.size() > kMaxChars) {
        text = text.substr(0, kMaxChars - 3) + "...";
    }
    return text;
}

} // namespace

int runCardsCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"}, {"--help"}, {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = options->has("--json");
    if (const auto exitCode = endOnHelpOrStrayArgument(*options, "cards", kCardsUsage, io)) {
        return *exitCode;
    }
    // A card that does not parse is a build mistake; say so instead of hiding it.
    for (const Error& error : builtinModelCardErrors()) {
        io.err << "llamafit-cli: built-in card skipped: " << error.message << " [" << error.code << "]\n";
    }

    Json list = Json::array();
    TextTable table({"id", "name", "architecture", "weights GiB", "training ctx", "source"},
                    {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Left,
                     TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Left});
    for (const ModelSpec& card : builtinModelCards()) {
        Result<ModelInfo> info = interpretModel(card.file);
        if (!info) {
            io.err << "llamafit-cli: card " << card.id << ": " << info.error().message << " ["
                   << info.error().code << "]\n";
            continue;
        }
        list.push_back({{"id", card.id},
                        {"name", card.displayName},
                        {"architecture", info->architecture},
                        {"weight_bytes", info->weightBytes()},
                        {"training_context", info->trainingContext},
                        {"source", card.source}});
        table.addRow({card.id, card.displayName, info->architecture, formatGiB(info->weightBytes()),
                      std::to_string(info->trainingContext), shortSource(card.source)});
    }
    if (json) {
        Json object;
        object["cards"] = std::move(list);
        printJson(io.out, object);
    } else {
        table.print(io.out, "");
    }
    return kExitOk;
}

} // namespace llamafit
