// The masks of attention surgery: local window, global tokens, seeded random blocks.
#include "model/interventions.h"

#include <algorithm>
#include <cstdlib>

#include "core/splitmix64.h"

namespace heed {

std::vector<std::uint8_t> key_mask(const Interventions& iv, int first, int Lq, int Lk, bool cross) {
    if (!iv.masks_keys()) return {};
    const SparsePattern& sp = iv.sparse;
    const int window = iv.window >= 0 ? iv.window : 0;
    std::vector<std::uint8_t> m(std::size_t(Lq) * Lk, 1);
    const int block = sp.block > 0 ? sp.block : 1;
    const int key_blocks = (Lk + block - 1) / block;
    for (int i = 0; i < Lq; ++i) {
        const int pos = first + i;
        // why: past the source's end a cross-attention window stays on the last source keys
        const int centre = cross ? std::min(pos, Lk - 1) : pos;
        std::uint8_t* row = m.data() + std::size_t(i) * Lk;
        for (int j = 0; j < Lk; ++j) row[j] = std::abs(centre - j) > window;
        if (!sp.enabled) continue;
        if (!cross && (pos == 0 || pos == Lk - 1)) {  // global query
            for (int j = 0; j < Lk; ++j) row[j] = 0;
            continue;
        }
        row[0] = row[Lk - 1] = 0;  // global keys
        for (int r = 0; r < sp.random_blocks && key_blocks > 0; ++r) {
            // why: a hash of (seed, query block, draw) alone, so a one-query decoder step sees
            // the same pattern as the whole matrix would
            const std::uint64_t h = splitmix64(
                splitmix64(sp.seed) ^ splitmix64(std::uint64_t(pos / block) * 1000003u + r));
            const int kb = int(h % std::uint64_t(key_blocks));
            for (int j = kb * block; j < std::min(Lk, (kb + 1) * block); ++j) row[j] = 0;
        }
    }
    return m;
}

}  // namespace heed
