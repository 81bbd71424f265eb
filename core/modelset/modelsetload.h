#pragma once
// A model set file made ready to plan and export: every model loaded (a GGUF header or a
// built-in card, loadModel) with its llama-server flags parsed, and the export of a planned set
// built from them. The one path from a set file to planModelSet() and SetExport, shared by
// `llamafit-cli plan --set` / `export --set` and the GUI's set view. Reads the models' headers.
//
// Error codes: those of parseServerArgs and loadModel, the message starting with "model 'NAME': ";
// cli.conflicting-options (--gpu among a model's flags: the machine names the GPUs).

#include "core/common/result.h"
#include "core/flags/serverargs.h"
#include "core/machine/memorypools.h"
#include "core/model/modelsource.h"
#include "core/modelset/modelsetexport.h"
#include "core/modelset/modelsetfile.h"
#include "core/modelset/modelsetplan.h"

#include <string>
#include <vector>

namespace llamafit {

struct LoadedSetMember {
    std::string name;
    LoadedModel model;
    ParsedServerArgs args;
    CompanionModels companions; // its --lora adapters and -md draft, read with it
};

Result<std::vector<LoadedSetMember>> loadSetMembers(const ModelSetFile& file);

// What planModelSet() takes.
std::vector<SetMember> setMembers(const std::vector<LoadedSetMember>& members);

// The export of `plan` (made from `members` on `machine`): each member's file, settings and
// pass-through flags, the safe --models-max and the group that fits; the preset is named
// "<setName>.ini" in its comments.
SetExport makeSetExport(const std::string& setName, const Machine& machine,
                        const std::vector<LoadedSetMember>& members, const ModelSetPlan& plan);

} // namespace llamafit
