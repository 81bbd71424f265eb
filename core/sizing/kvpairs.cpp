// The default K/V pairs; see kvpairs.h.
#include "core/sizing/kvpairs.h"

#include <algorithm>

namespace llamafit {

std::vector<KvPair> defaultKvPairs() {
    return {{GgmlType::F16, GgmlType::F16},
            {GgmlType::Q8_0, GgmlType::Q8_0},
            {GgmlType::Q4_0, GgmlType::Q4_0},
            {GgmlType::F16, GgmlType::Q8_0}};
}

std::vector<KvPair> defaultKvPairsWith(const KvPair& current) {
    std::vector<KvPair> pairs = defaultKvPairs();
    if (std::find(pairs.begin(), pairs.end(), current) == pairs.end()) {
        pairs.push_back(current);
    }
    return pairs;
}

std::string kvPairName(const KvPair& pair) {
    return std::string(ggmlTypeName(pair.first)) + "/" + std::string(ggmlTypeName(pair.second));
}

} // namespace llamafit
