// Pieces both tools share: random inputs and the parsing of counts on the command line.
#ifndef SIMD_SYNET_TOOLS_COMMON_H
#define SIMD_SYNET_TOOLS_COMMON_H

#include <cstddef>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace simdsynet_tools {

// Standard-normal values from one fixed seed, so that two runs of a tool see the same inputs
// (values differ from NumPy's generator: a reference needs the inputs written as .npy).
inline void RandomFill(std::vector<std::vector<float>>& inputs) {
    std::mt19937 engine(0);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& input : inputs)
        for (float& v : input) v = normal(engine);
}

// A whole decimal number of at least `least`; false for anything else ("3x", "", "-1").
inline bool ParseCount(const std::string& text, size_t least, size_t& value) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != text.npos)
        return false;
    value = size_t(std::strtoul(text.c_str(), nullptr, 10));
    return value >= least;
}

}  // namespace simdsynet_tools

#endif  // SIMD_SYNET_TOOLS_COMMON_H
