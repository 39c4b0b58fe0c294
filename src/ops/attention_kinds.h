// The names of attention's variants, plain enums without tensors: the score functions, the
// mask kinds and the kernels of linear attention. Shared by ops/ (attention.h, linear_head.h),
// the model's surgery options (model/interventions.h) and the lab's plain-data façade.
#pragma once

namespace heed {

/// How a query and a key are compared (e_ij, the pre-softmax score).
enum class ScoreFunction {
    Dot,        ///< qᵀk (Luong et al. 2015 §3.1 "dot"); needs Dq == Dk
    ScaledDot,  ///< qᵀk / √Dk (Vaswani et al. 2017 §3.2.1); needs Dq == Dk
    General,    ///< qᵀ W k, W [Dq, Dk] (Luong et al. 2015 §3.1 "general")
    Additive,  ///< vᵀ tanh(W q + U k), W [Da, Dq], U [Da, Dk], v [Da] (Bahdanau et al. 2015 §3.1)
};

/// Which (query, key) pairs are blocked before the softmax.
enum class MaskKind {
    None,         ///< every key visible
    Causal,       ///< query i sees keys j <= i + causal_offset
    KeyPadding,   ///< only the key_padding vector applies
    LocalWindow,  ///< query i sees keys with |i + causal_offset - j| <= window
    Custom,       ///< custom[i, j] == 1 blocks the pair
};

/// Which feature map φ replaces exp(scale·qᵀk) in kernelised (linear) attention.
enum class LinearKind {
    None,   ///< softmax attention as trained (no linear attention)
    Favor,  ///< FAVOR+ positive random features (Choromanski et al. 2021 §3, Lemma 1)
    Elu,    ///< φ(x) = elu(x) + 1 (Katharopoulos et al. 2020 §3.2.1)
};

}  // namespace heed
