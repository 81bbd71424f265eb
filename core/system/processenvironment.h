#pragma once
// This process's environment and OS as the pure core takes them: an EnvironmentLookup over the
// real environment (a variable set to "" reads as unset, as the core's rules expect) and the
// OsKind it was built for. One home for both, so the GUI, the CLI and the Hub client read the
// environment the same way.

#include "core/library/modellocations.h"
#include "core/machine/memorypools.h"

#include <string>

namespace llamafit {

EnvironmentLookup processEnvironment();
OsKind currentOsKind();
std::string homeDirectory();

} // namespace llamafit
