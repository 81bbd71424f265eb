#include "tests/support/ggufedit.h"

#include <algorithm>

namespace llamafit::test {

void setMetadataKey(GgufFile& file, const std::string& key, GgufValue value) {
    auto it = std::find_if(file.metadata.begin(), file.metadata.end(),
                           [&](const auto& entry) { return entry.first == key; });
    if (it == file.metadata.end()) {
        file.metadata.emplace_back(key, std::move(value));
    } else {
        it->second = std::move(value);
    }
}

void removeMetadataKey(GgufFile& file, const std::string& key) {
    std::erase_if(file.metadata, [&](const auto& entry) { return entry.first == key; });
}

} // namespace llamafit::test
