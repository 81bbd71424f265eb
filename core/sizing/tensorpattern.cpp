// compileTensorPattern and its static check for catastrophic backtracking.
#include "core/sizing/tensorpattern.h"

#include "core/common/setting.h"

#include <cstddef>
#include <vector>

namespace llamafit {
namespace {

// The syntax llama.cpp uses, plus libstdc++'s extension that selects the breadth-first
// (Thompson) executor: same yes/no answer for regex_search, polynomial time.
std::regex::flag_type patternSyntax() {
#if defined(__GLIBCXX__)
    return std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
    return std::regex::ECMAScript; // untested: other standard libraries backtrack
#endif
}

// Length of the quantifier starting at pattern[at] when it is unbounded (*, +, {n,}), else 0.
std::size_t unboundedQuantifierLength(const std::string& pattern, std::size_t at) {
    if (at >= pattern.size()) {
        return 0;
    }
    if (pattern[at] == '*' || pattern[at] == '+') {
        return 1;
    }
    if (pattern[at] != '{') {
        return 0;
    }
    const std::size_t close = pattern.find('}', at);
    if (close == std::string::npos) {
        return 0;
    }
    const std::string body = pattern.substr(at + 1, close - at - 1);
    const std::size_t comma = body.find(',');
    const bool openEnded = comma != std::string::npos && comma + 1 == body.size();
    return openEnded ? close - at + 1 : 0;
}

} // namespace

bool nestsUnboundedRepetition(const std::string& pattern) {
    // Exponential backtracking on a tensor name (some 30 characters, no long runs of one
    // character) needs a group repeated without bound around a repetition of an atom that can
    // swallow most of the name: '.', a negated or ranged bracket, \w \W \S \D. "(blk\.\d+\.)*"
    // is fine, "(.*.*)*" and "(\w+)+" are not.
    std::vector<bool> groupRepeatsBroadly; // per open group
    bool previousAtomBroad = false;        // the atom a following quantifier applies to
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        const std::size_t quantifier = unboundedQuantifierLength(pattern, i);
        if (quantifier > 0) {
            if (previousAtomBroad && !groupRepeatsBroadly.empty()) {
                groupRepeatsBroadly.back() = true;
            }
            previousAtomBroad = false;
            i += quantifier - 1;
            continue;
        }
        if (c == '\\') {
            const char escaped = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
            previousAtomBroad = escaped == 'w' || escaped == 'W' || escaped == 'S' || escaped == 'D';
            ++i;
            continue;
        }
        if (c == '[') {
            // A bracket expression is one atom; ']' right after '[' or '[^' is a literal.
            std::size_t j = i + 1;
            const bool negated = j < pattern.size() && pattern[j] == '^';
            bool ranged = false;
            j += negated ? 1 : 0;
            if (j < pattern.size() && pattern[j] == ']') {
                ++j;
            }
            while (j < pattern.size() && pattern[j] != ']') {
                ranged = ranged || (pattern[j] == '-' && j + 1 < pattern.size() && pattern[j + 1] != ']');
                j += pattern[j] == '\\' ? 2 : 1;
            }
            previousAtomBroad = negated || ranged;
            i = j;
            continue;
        }
        if (c == '(') {
            groupRepeatsBroadly.push_back(false);
            previousAtomBroad = false;
            continue;
        }
        if (c == ')') {
            if (groupRepeatsBroadly.empty()) {
                continue; // unbalanced: std::regex reports it
            }
            const bool inner = groupRepeatsBroadly.back();
            groupRepeatsBroadly.pop_back();
            if (inner && unboundedQuantifierLength(pattern, i + 1) > 0) {
                return true;
            }
            if (inner && !groupRepeatsBroadly.empty()) {
                groupRepeatsBroadly.back() = true; // "((.*))*" nests just the same
            }
            previousAtomBroad = inner;
            continue;
        }
        previousAtomBroad = c == '.';
    }
    return false;
}

Result<std::regex> compileTensorPattern(const std::string& pattern) {
    std::regex compiled;
    try {
        compiled = std::regex(pattern, patternSyntax());
    } catch (const std::regex_error& e) {
        return makeError("settings.bad-value",
                         "-ot pattern " + pattern + " is not a valid regex: " + e.what(),
                         {Setting::TensorOverrides});
    }
    if (nestsUnboundedRepetition(pattern)) {
        return makeError("settings.pattern-too-expensive",
                         "-ot pattern " + pattern +
                             " repeats a group that itself repeats without bound: llama-server's regex "
                             "matcher backtracks exponentially on such a pattern and would hang while "
                             "loading the model; write it without the nested repetition",
                         {Setting::TensorOverrides});
    }
    return compiled;
}

} // namespace llamafit
