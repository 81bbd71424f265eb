// --types parsing for fit/sweep; see kvpairs.h.

#include "app/cli/kvpairs.h"

#include "core/sizing/estimator.h"

#include <algorithm>

namespace llamafit {

namespace {

Result<GgmlType> cacheType(std::string_view option, std::string_view name) {
    const std::optional<GgmlType> type = ggmlTypeFromName(name);
    const std::vector<GgmlType>& allowed = allowedCacheTypes();
    if (!type || std::find(allowed.begin(), allowed.end(), *type) == allowed.end()) {
        return makeError("cli.bad-value",
                         "bad cache type '" + std::string(name) + "' in " + std::string(option) +
                             " (llama-server accepts f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, "
                             "q5_0, q5_1)");
    }
    return *type;
}

} // namespace

Result<std::vector<KvPair>> parseKvPairs(std::string_view option, std::string_view text) {
    std::vector<KvPair> pairs;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string_view item = text.substr(start, end - start);
        const std::size_t slash = item.find('/');
        Result<GgmlType> k = cacheType(option, item.substr(0, slash));
        if (!k) {
            return k.error();
        }
        Result<GgmlType> v = slash == std::string_view::npos ? k : cacheType(option, item.substr(slash + 1));
        if (!v) {
            return v.error();
        }
        pairs.emplace_back(*k, *v);
        start = end + 1;
    }
    return pairs;
}

} // namespace llamafit
