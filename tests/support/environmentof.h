#pragma once
// environmentOf: an EnvironmentLookup (core/library/modellocations.h) over a fixed map, so the
// rules that read the environment are tested without touching the real one. Test code;
// header-only (the Windows build of the unit tests includes it too).

#include "core/library/modellocations.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace llamafit::test {

inline EnvironmentLookup environmentOf(std::map<std::string, std::string> variables) {
    return [variables = std::move(variables)](std::string_view name) -> std::optional<std::string> {
        const auto found = variables.find(std::string(name));
        return found == variables.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
}

} // namespace llamafit::test
