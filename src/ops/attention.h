// Single-head attention: the one per-head routine (attend_head) that the model's forward pass,
// the explainer, multi-head attention and the attention lab all run, plus the four score
// functions and the masks. Not multi-head (multi_head_attention.h), not linear attention.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ops/attention_kinds.h"

namespace heed {

// Axis letters: Lq query length, Lk key/value length, Dq/Dk/Dv query/key/value dims,
// Da additive-attention hidden dim, Dh one head's dim.

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
/// finite score becomes all zeros. Does not allocate. The only softmax of the engine.
void masked_softmax_row(float* row, int n) noexcept;

// ---- the per-head routine ----------------------------------------------------------------

/// A [rows, cols] block of a row-major buffer whose rows lie `stride` floats apart: one
/// head's queries, keys or values inside a packed [L, H*Dh] projection. Does not own.
struct RowsView {
    const float* data = nullptr;
    int rows = 0, cols = 0, stride = 0;
};

/// The writable counterpart of RowsView (one head's output columns of a [Lq, H*Dv] buffer).
struct RowsSpan {
    float* data = nullptr;
    int rows = 0, cols = 0, stride = 0;
};

/// Columns [begin, begin + n) of a view or a matrix, to read or (out_) to write; no copy.
RowsView columns(const RowsView& v, int begin, int n);
RowsSpan out_columns(const RowsSpan& s, int begin, int n);
RowsView columns(const Mat& m, int begin, int n);
RowsSpan out_columns(Mat& m, int begin, int n);
/// An owned copy of a view: [rows, cols].
Mat to_mat(const RowsView& v);

/// Which (query i, key j) pairs one head may not see; the three parts combine.
struct HeadMask {
    bool causal = false;                        ///< block keys j > i + offset
    int offset = 0;                             ///< see `causal`
    const std::uint8_t* key_padding = nullptr;  ///< [Lk], 1 = blocked for every query
    const std::uint8_t* blocked = nullptr;      ///< [Lq, Lk], 1 = blocked (from mask_matrix())
    /// >= 0: a local window, keys with |c_i − j| > window blocked where the centre
    /// c_i = min(i + window_first, Lk − 1); only the band's scores and products are computed.
    int window = -1;
    int window_first = 0;  ///< see `window` (a decoder step's position)
    /// With `blocked`: compute only the visible pairs (sparse patterns). false: every score is
    /// computed, then masked — the reference the skipping paths are tested against.
    bool skip_blocked = false;
};

/// Intermediates one head keeps when a caller asks (explainer, lab); null = not kept.
struct HeadRecorder {
    float* scores = nullptr;  ///< [Lq, Lk] scale·QKᵀ (or the given scores), before the mask
    float* masked = nullptr;  ///< [Lq, Lk] the same with blocked entries -inf
};

/// One head's problem: Attention(Q, K, V) = softmax(mask(scale·QKᵀ))·V (Vaswani et al. 2017
/// §3.2.1). Lq is the output's row count, Lk the values' row count.
struct HeadAttention {
    RowsView q, k, v;    ///< [Lq, Dh], [Lk, Dh], [Lk, Dv]
    float scale = 1.0f;  ///< 1/√Dh for scaled dot-product attention
    HeadMask mask;
    const float* given_scores = nullptr;  ///< [Lq, Lk]: used instead of scale·QKᵀ (additive)
};

/// Runs one head: `probs` [Lq*Lk] (caller's scratch) receives the weights, `out` [Lq, Dv]
/// receives probs·V. Fully masked rows give zero weights and zero output. Does not allocate.
/// With a `window` or `skip_blocked` (and no `record`), each row computes only its visible
/// pairs: O(Lq·w·Dh) for a band of width w instead of O(Lq·Lk·Dh).
void attend_head(const HeadAttention& head, float* probs, const RowsSpan& out,
                 const HeadRecorder* record = nullptr) noexcept;

/// Every head of one block (§3.2.2): `all` views the packed [L, H*Dh] projections, head h
/// reads their columns h*Dh.. and writes its columns of `out` [Lq, H*Dv]. `probs` is scratch
/// for [H, Lq, Lk] floats (the heads may run on the current pool's threads at once). `trace`,
/// when not null, receives each head's weights as [H, Lq, Lk]. Does not allocate.
void attend_heads(const HeadAttention& all, int heads, float* probs, const RowsSpan& out,
                  float* trace = nullptr) noexcept;

}  // namespace heed
