// A dense float array with its shape: the plain-data form in which tensors leave the engine
// (attention traces, explanations, the lab). No xtensor, no logic.
#pragma once

#include <cstddef>
#include <vector>

namespace heed {

/// A dense float array with its row-major shape, e.g. [layer][head][query][key].
struct Array {
    std::vector<std::size_t> shape;
    std::vector<float> data;
};

}  // namespace heed
