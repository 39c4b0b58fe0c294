// Single-head attention over xtensor matrices: the four score functions of the source texts,
// the masks (causal, key padding, local window, custom), and the allocation-free per-head
// primitive the model's forward pass calls. Not multi-head (multi_head_attention.h), not linear.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace heed {

// Axis letters: Lq query length, Lk key/value length, Dq/Dk/Dv query/key/value dims,
// Da additive-attention hidden dim, Dh one head's dim.

/// How a query and a key are compared (e_ij, the pre-softmax score).
enum class ScoreFunction {
    Dot,        ///< qᵀk (Luong "dot"); needs Dq == Dk
    ScaledDot,  ///< qᵀk / √Dk (Vaswani et al. 2017); needs Dq == Dk
    General,    ///< qᵀ W k, W [Dq, Dk] (Luong "general" / multiplicative)
    Additive,   ///< vᵀ tanh(W q + U k), W [Da, Dq], U [Da, Dk], v [Da] (Bahdanau)
};

/// Which (query, key) pairs are blocked before the softmax.
enum class MaskKind {
    None,         ///< every key visible
    Causal,       ///< query i sees keys j <= i + causal_offset
    KeyPadding,   ///< only the key_padding vector applies
    LocalWindow,  ///< query i sees keys with |i + causal_offset - j| <= window
    Custom,       ///< custom[i, j] == 1 blocks the pair
};

/// A mask description, materialised for given (Lq, Lk) by mask_matrix(). `key_padding`, when
/// non-empty, is applied on top of any kind (e.g. a causal mask plus padded keys), as PyTorch
/// combines attn_mask and key_padding_mask.
struct AttentionMask {
    MaskKind kind = MaskKind::None;
    int window = 0;                         ///< LocalWindow half-width (>= 0)
    std::vector<std::uint8_t> key_padding;  ///< [Lk], 1 = padded key (blocked for every query)
    xt::xtensor<std::uint8_t, 2> custom;    ///< [Lq, Lk], 1 = blocked (Custom only)
    int causal_offset = 0;  ///< query i may see keys <= i + causal_offset (incremental decoding:
                            ///< one new query over t cached keys uses offset t - 1)

    /// No mask.
    static AttentionMask none();
    /// Decoder self-attention; `offset` shifts the diagonal (see causal_offset).
    static AttentionMask causal(int offset = 0);
    /// Padded keys ([Lk], 1 = pad) are blocked for every query.
    static AttentionMask padding(std::vector<std::uint8_t> key_padding);
    /// Local attention: |i - j| <= window.
    static AttentionMask local(int window);
    /// An explicit [Lq, Lk] matrix, 1 = blocked.
    static AttentionMask blocked(xt::xtensor<std::uint8_t, 2> blocked);
};

/// Extra learned parameters for ScoreFunction::General (w [Dq, Dk]) and ::Additive
/// (w [Da, Dq], u [Da, Dk], v [Da]). Unused members may stay empty.
struct AttentionParams {
    Mat w;
    Mat u;
    Vec v;
};

/// Everything the demo shows for one attention call.
struct AttentionResult {
    Mat output;   ///< [Lq, Dv] weights·V
    Mat weights;  ///< [Lq, Lk] softmax over keys; rows sum to 1, or are all 0 if fully masked
    Mat scores;   ///< [Lq, Lk] pre-softmax scores e_ij; masked entries are -inf
};

/// [Lq, Lk] with 1 where `mask` blocks query i from key j. Throws heed::Error when the mask's
/// sizes do not fit (key_padding length != Lk, custom shape != [Lq, Lk], window < 0).
xt::xtensor<std::uint8_t, 2> mask_matrix(const AttentionMask& mask, int Lq, int Lk);

/// Attention(Q, K, V) = softmax(score(Q, K) masked) · V over q [Lq, Dq], k [Lk, Dk],
/// v [Lk, Dv]: self-attention (q, k, v from one source) and cross-attention (Lq != Lk) alike.
/// A fully masked row yields weights 0 and output 0, never NaN. `params` is required for
/// General and Additive. Throws heed::Error on mismatched shapes or missing parameters.
AttentionResult attention(const Mat& q, const Mat& k, const Mat& v, ScoreFunction score,
                          const AttentionMask& mask, const AttentionParams* params = nullptr);

/// In-place softmax of one row of `n` scores where blocked entries hold -inf; a row with no
/// finite score becomes all zeros. Does not allocate.
void masked_softmax_row(float* row, int n) noexcept;

/// Hot path: scaled dot-product attention for one head over strided slices of packed
/// [L, H*Dh] rows. probs [Lq*Lk] (caller's scratch) receives the weights, out (leading dim
/// `ldo`) receives probs·V [Lq, Dh]. `key_padding` ([Lk], 1 = pad) may be null;
/// `causal_offset` < 0 disables the causal mask, otherwise query i sees keys j <= i +
/// causal_offset. Fully masked rows give zero weights and zero output. Does not allocate.
void attend_head(const float* q, int ldq, const float* k, int ldk, const float* v, int ldv, int Lq,
                 int Lk, int Dh, float scale, const std::uint8_t* key_padding, int causal_offset,
                 float* probs, float* out, int ldo) noexcept;

}  // namespace heed
