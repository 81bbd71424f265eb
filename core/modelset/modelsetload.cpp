// A set file's models loaded, and a planned set's export; see modelsetload.h.
#include "core/modelset/modelsetload.h"

namespace llamafit {

namespace {

Error aboutModel(const std::string& name, Error error) {
    error.message = "model '" + name + "': " + error.message;
    return error;
}

} // namespace

Result<std::vector<LoadedSetMember>> loadSetMembers(const ModelSetFile& file) {
    std::vector<LoadedSetMember> members;
    for (const ModelSetEntry& entry : file.models) {
        Result<ParsedServerArgs> args = parseServerArgs(entry.args);
        if (!args) {
            return aboutModel(entry.name, args.error());
        }
        if (!args->gpus.empty()) {
            return aboutModel(entry.name,
                              makeError("cli.conflicting-options",
                                        "--gpu/--gpu-igpu and the machine both describe the GPUs: "
                                        "the machine profile names its GPUs"));
        }
        Result<LoadedModel> model = loadModel(entry.model);
        if (!model) {
            return aboutModel(entry.name, model.error());
        }
        Result<CompanionModels> companions = loadCompanionModels(args->settings);
        if (!companions) {
            return aboutModel(entry.name, companions.error());
        }
        members.push_back(
            LoadedSetMember{entry.name, std::move(*model), std::move(*args), std::move(*companions)});
    }
    return members;
}

std::vector<SetMember> setMembers(const std::vector<LoadedSetMember>& members) {
    std::vector<SetMember> planned;
    for (const LoadedSetMember& member : members) {
        planned.push_back(SetMember{member.name, member.model.info, member.args.settings, member.companions});
    }
    return planned;
}

SetExport makeSetExport(const std::string& setName, const Machine& machine,
                        const std::vector<LoadedSetMember>& members, const ModelSetPlan& plan) {
    SetExport set;
    set.setName = setName;
    set.machineName = machine.name;
    set.presetFileName = setName + ".ini";
    set.safeModelsMax = plan.safeModelsMax;
    set.loadableModelsMax = plan.loadableModelsMax;
    set.fittingGroup = plan.largestFittingSet;
    for (const LoadedSetMember& member : members) {
        set.members.push_back(SetExportMember{member.name, member.model.path, member.args.settings,
                                              passThroughWords(member.args)});
    }
    return set;
}

} // namespace llamafit
