#pragma once
// The cases of a recorded matrix that ctest also runs against the live llama-server: every shape
// (architecture) with two settings variants, each shape taking the variants run least so far, and
// every variant at least once, so each architecture and each setting meets the real server on
// every run. The whole matrix is checked against its recordings (tests/unit/recorded) on every run
// as well, and those were made by this same pinned server (scripts/fetch-llama-server.sh installs
// only 0.7.0, b11669): run live in full it was the suite's longest part (219 CPU and 40 RPC
// servers one at a time, about six minutes on two cores) for what the recordings already prove.
// The record scripts run every case live.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace llamafit::test {

// Case: has shape.name and settingsName (IntegrationCase, RpcCase). In matrix order.
template <typename Case>
std::vector<Case> coveringLiveSample(const std::vector<Case>& matrix, std::size_t variantsPerShape = 2) {
    std::vector<std::string> shapeOrder;
    std::map<std::string, std::vector<std::size_t>> casesOfShape;
    for (std::size_t i = 0; i < matrix.size(); ++i) {
        auto& cases = casesOfShape[matrix[i].shape.name];
        if (cases.empty()) {
            shapeOrder.push_back(matrix[i].shape.name);
        }
        cases.push_back(i);
    }
    std::vector<bool> chosen(matrix.size(), false);
    std::map<std::string, std::size_t> runsOfVariant;
    const auto choose = [&](std::size_t i) {
        chosen[i] = true;
        ++runsOfVariant[matrix[i].settingsName];
    };
    for (std::size_t round = 0; round < variantsPerShape; ++round) {
        for (const std::string& shape : shapeOrder) {
            std::size_t best = matrix.size();
            for (const std::size_t i : casesOfShape[shape]) {
                if (!chosen[i] && (best == matrix.size() || runsOfVariant[matrix[i].settingsName] <
                                                                runsOfVariant[matrix[best].settingsName])) {
                    best = i;
                }
            }
            if (best != matrix.size()) {
                choose(best);
            }
        }
    }
    for (std::size_t i = 0; i < matrix.size(); ++i) {
        if (runsOfVariant[matrix[i].settingsName] == 0) {
            choose(i);
        }
    }
    std::vector<Case> sample;
    for (std::size_t i = 0; i < matrix.size(); ++i) {
        if (chosen[i]) {
            sample.push_back(matrix[i]);
        }
    }
    return sample;
}

} // namespace llamafit::test
