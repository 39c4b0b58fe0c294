// f32 GEMM: scalar reference, 8-column B panels, and SIMD128 register tiles (XNNPACK style,
// add(mul) since baseline SIMD128 has no FMA). No allocation; callers own every buffer.
#include "kernels/gemm.h"

#include <algorithm>

#include "kernels/simd128.h"

namespace heed::kernels {
namespace {

using std::ptrdiff_t;

/// Where 8-wide rows of B come from: `b` is panel 0 at k = 0, `row` floats between k and k+1,
/// `panel` floats between consecutive panels. Packed: {p, 8, 8K}; B [K,N] in place: {b, ldb, 8}.
struct Panels {
    const float* b;
    ptrdiff_t row, panel;
};

// why: a block of panels is reused by every 4-row pass over A, so it should stay in L2
// (and the 4 rows of A in L1); ~256 KB keeps well inside this class of core's L2.
constexpr ptrdiff_t kPanelBlockFloats = 64 * 1024;

/// Writes one row of accumulators (`nc` <= 4*NV valid columns) to `c`.
template <int NV>
inline void store_row(const v128_t* acc, int nc, float* c, bool accumulate) {
    if (nc == 4 * NV) {
        for (int q = 0; q < NV; ++q) {
            v128_t v = acc[q];
            if (accumulate) v = wasm_f32x4_add(v, wasm_v128_load(c + 4 * q));
            wasm_v128_store(c + 4 * q, v);
        }
        return;
    }
    // why: the N tail happens once per row of C; a spill to the stack keeps it short and exact.
    float tmp[4 * NV];
    for (int q = 0; q < NV; ++q) wasm_v128_store(tmp + 4 * q, acc[q]);
    for (int j = 0; j < nc; ++j) c[j] = accumulate ? c[j] + tmp[j] : tmp[j];
}

/// The register tile: C[MR, nc] for MR rows of A against NP consecutive panels (nc <= 8*NP
/// columns; every panel must be readable 8 wide). MR = 4, NP = 1 is the 4x8 micro-kernel.
template <int MR, int NP>
inline void tile(int K, const float* a, int lda, Panels src, const float* bias, int nc, float* c,
                 int ldc, bool accumulate) {
    constexpr int NV = 2 * NP;  // f32x4 vectors per row
    v128_t acc[MR][NV];
    if (bias && nc == 4 * NV) {
        for (int q = 0; q < NV; ++q) acc[0][q] = wasm_v128_load(bias + 4 * q);
    } else if (bias) {
        float padded[4 * NV] = {};
        std::copy(bias, bias + nc, padded);
        for (int q = 0; q < NV; ++q) acc[0][q] = wasm_v128_load(padded + 4 * q);
    } else {
        for (int q = 0; q < NV; ++q) acc[0][q] = wasm_f32x4_splat(0.0f);
    }
    for (int r = 1; r < MR; ++r)
        for (int q = 0; q < NV; ++q) acc[r][q] = acc[0][q];

    const float* ar[MR];
    for (int r = 0; r < MR; ++r) ar[r] = a + ptrdiff_t(r) * lda;
    const float* bk = src.b;
    for (int k = 0; k < K; ++k) {
        v128_t va[MR];
        for (int r = 0; r < MR; ++r) va[r] = wasm_v128_load32_splat(ar[r] + k);
        for (int p = 0; p < NP; ++p) {
            const v128_t b0 = wasm_v128_load(bk + p * src.panel);
            const v128_t b1 = wasm_v128_load(bk + p * src.panel + 4);
            for (int r = 0; r < MR; ++r) {
                acc[r][2 * p] = wasm_f32x4_add(acc[r][2 * p], wasm_f32x4_mul(va[r], b0));
                acc[r][2 * p + 1] = wasm_f32x4_add(acc[r][2 * p + 1], wasm_f32x4_mul(va[r], b1));
            }
        }
        bk += src.row;
    }
    for (int r = 0; r < MR; ++r) store_row<NV>(acc[r], nc, c + ptrdiff_t(r) * ldc, accumulate);
}

/// All columns [0, n) of MR (< 4) rows, several panels per pass so each f32x4 add chain has
/// company: the decode-step (M = 1..3) path, which reads B exactly once, front to back.
template <int MR>
void small_m(int n, int K, const float* a, int lda, Panels src, const float* bias, float* c,
             int ldc, bool accumulate) {
    // why: measured in V8 (x64): two panels per pass for 1-2 rows and one for 3 rows beat
    // wider passes, which run out of xmm registers and spill.
    constexpr int NP = MR == 3 ? 1 : 2;
    int j = 0;
    for (; j + 8 * NP <= n; j += 8 * NP) {
        tile<MR, NP>(K, a, lda, src, bias ? bias + j : nullptr, 8 * NP, c + j, ldc, accumulate);
        src.b += NP * src.panel;
    }
    for (; j < n; j += 8) {
        tile<MR, 1>(K, a, lda, src, bias ? bias + j : nullptr, std::min(8, n - j), c + j, ldc,
                    accumulate);
        src.b += src.panel;
    }
}

/// C[M, n] over the panels of `src`: blocks of panels outermost, then 4-row passes, then
/// panels; the M % 4 leftover rows go through small_m.
void drive(int M, int n, int K, const float* a, int lda, Panels src, const float* bias, float* c,
           int ldc, bool accumulate) {
    if (M <= 0 || n <= 0) return;
    // why: with K = 0 no row of B is read and B may be an empty (null) buffer; stepping a null
    // pointer by a non-zero panel stride is undefined behaviour (UBSan), by zero it is not.
    if (K == 0) src.row = src.panel = 0;
    const int panels = (n + 7) / 8;
    const int block =
        int(std::max<ptrdiff_t>(1, kPanelBlockFloats / (ptrdiff_t(8) * std::max(K, 1))));
    for (int p0 = 0; p0 < panels; p0 += block) {
        const int j0 = 8 * p0;
        const int nb = std::min(n, 8 * (p0 + block)) - j0;  // columns in this block
        Panels blk{src.b + p0 * src.panel, src.row, src.panel};
        const float* bias_b = bias ? bias + j0 : nullptr;
        int m = 0;
        for (; m + 4 <= M; m += 4) {
            const float* am = a + ptrdiff_t(m) * lda;
            float* cm = c + ptrdiff_t(m) * ldc + j0;
            Panels p = blk;
            for (int j = 0; j < nb; j += 8, p.b += p.panel)
                tile<4, 1>(K, am, lda, p, bias_b ? bias_b + j : nullptr, std::min(8, nb - j),
                           cm + j, ldc, accumulate);
        }
        const float* am = a + ptrdiff_t(m) * lda;
        float* cm = c + ptrdiff_t(m) * ldc + j0;
        switch (M - m) {
            case 1:
                small_m<1>(nb, K, am, lda, blk, bias_b, cm, ldc, accumulate);
                break;
            case 2:
                small_m<2>(nb, K, am, lda, blk, bias_b, cm, ldc, accumulate);
                break;
            case 3:
                small_m<3>(nb, K, am, lda, blk, bias_b, cm, ldc, accumulate);
                break;
            default:
                break;
        }
    }
}

/// C[MR, NC] = rows of A · rows of B (NC = 4 or 1), k vectorised by 4 with a scalar K tail.
template <int MR, int NC>
inline void dot_tile(int K, const float* a, int lda, const float* b, int ldb, const float* bias,
                     float* c, int ldc, bool accumulate) {
    v128_t acc[MR][NC];
    for (int r = 0; r < MR; ++r)
        for (int j = 0; j < NC; ++j) acc[r][j] = wasm_f32x4_splat(0.0f);
    const int k4 = K & ~3;
    for (int k = 0; k < k4; k += 4) {
        v128_t vb[NC];
        for (int j = 0; j < NC; ++j) vb[j] = wasm_v128_load(b + ptrdiff_t(j) * ldb + k);
        for (int r = 0; r < MR; ++r) {
            const v128_t va = wasm_v128_load(a + ptrdiff_t(r) * lda + k);
            for (int j = 0; j < NC; ++j)
                acc[r][j] = wasm_f32x4_add(acc[r][j], wasm_f32x4_mul(va, vb[j]));
        }
    }
    for (int r = 0; r < MR; ++r) {
        const float* ar = a + ptrdiff_t(r) * lda;
        float* cr = c + ptrdiff_t(r) * ldc;
        float sum[NC];
        if constexpr (NC == 4) {
            wasm_v128_store(sum, sum_lanes(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        } else {
            const v128_t a = acc[r][0];
            sum[0] = wasm_f32x4_extract_lane(sum_lanes(a, a, a, a), 0);
        }
        for (int j = 0; j < NC; ++j) {
            const float* bj = b + ptrdiff_t(j) * ldb;
            float s = bias ? bias[j] + sum[j] : sum[j];
            for (int k = k4; k < K; ++k) s += ar[k] * bj[k];
            cr[j] = accumulate ? cr[j] + s : s;
        }
    }
}

template <int MR>
void dot_rows(int N, int K, const float* a, int lda, const float* b, int ldb, const float* bias,
              float* c, int ldc, bool accumulate) {
    int j = 0;
    for (; j + 4 <= N; j += 4)
        dot_tile<MR, 4>(K, a, lda, b + ptrdiff_t(j) * ldb, ldb, bias ? bias + j : nullptr, c + j,
                        ldc, accumulate);
    for (; j < N; ++j)
        dot_tile<MR, 1>(K, a, lda, b + ptrdiff_t(j) * ldb, ldb, bias ? bias + j : nullptr, c + j,
                        ldc, accumulate);
}

}  // namespace

void gemm_f32_ref(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                  bool b_transposed, const float* bias, float* c, int ldc,
                  bool accumulate) noexcept {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = bias ? bias[j] : 0.0f;
            for (int k = 0; k < K; ++k)
                s += a[ptrdiff_t(i) * lda + k] *
                     (b_transposed ? b[ptrdiff_t(j) * ldb + k] : b[ptrdiff_t(k) * ldb + j]);
            float& out = c[ptrdiff_t(i) * ldc + j];
            out = accumulate ? out + s : s;
        }
}

std::size_t packed_b_size(int K, int N) noexcept {
    return std::size_t((N + kGemmNr - 1) / kGemmNr) * kGemmNr * std::size_t(std::max(K, 0));
}

void pack_b_f32(int K, int N, const float* b, int ldb, bool b_transposed, float* packed) noexcept {
    for (int j0 = 0; j0 < N; j0 += kGemmNr) {
        const int nc = std::min(kGemmNr, N - j0);
        float* dst = packed + ptrdiff_t(j0) * K;  // panel j0/8 starts at 8*K*(j0/8)
        if (!b_transposed) {
            for (int k = 0; k < K; ++k) {
                const float* src = b + ptrdiff_t(k) * ldb + j0;
                float* d = dst + ptrdiff_t(k) * kGemmNr;
                std::copy(src, src + nc, d);
                std::fill(d + nc, d + kGemmNr, 0.0f);
            }
            continue;
        }
        int k = 0;
        if (nc == kGemmNr) {
            // why: B [N,K] is transposed 4x4 at a time, so both sides move whole vectors
            // (packing activations, e.g. attention's K, happens on every call).
            for (; k + 4 <= K; k += 4)
                for (int h = 0; h < 2; ++h) {
                    const float* src = b + ptrdiff_t(j0 + 4 * h) * ldb + k;
                    const v128_t r0 = wasm_v128_load(src), r1 = wasm_v128_load(src + ldb);
                    const v128_t r2 = wasm_v128_load(src + 2 * ptrdiff_t(ldb));
                    const v128_t r3 = wasm_v128_load(src + 3 * ptrdiff_t(ldb));
                    const v128_t lo01 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);
                    const v128_t lo23 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
                    const v128_t hi01 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
                    const v128_t hi23 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
                    float* d = dst + ptrdiff_t(k) * kGemmNr + 4 * h;
                    wasm_v128_store(d, wasm_i32x4_shuffle(lo01, lo23, 0, 1, 4, 5));
                    wasm_v128_store(d + kGemmNr, wasm_i32x4_shuffle(lo01, lo23, 2, 3, 6, 7));
                    wasm_v128_store(d + 2 * kGemmNr, wasm_i32x4_shuffle(hi01, hi23, 0, 1, 4, 5));
                    wasm_v128_store(d + 3 * kGemmNr, wasm_i32x4_shuffle(hi01, hi23, 2, 3, 6, 7));
                }
        } else {
            std::fill(dst, dst + ptrdiff_t(K) * kGemmNr, 0.0f);
        }
        for (int j = 0; j < nc; ++j) {  // the K tail, or every k of a partial panel
            const float* src = b + ptrdiff_t(j0 + j) * ldb;
            for (int kk = k; kk < K; ++kk) dst[ptrdiff_t(kk) * kGemmNr + j] = src[kk];
        }
    }
}

void gemm_f32_4x8_simd128(int M, int N, int K, const float* a, int lda, const float* packed_b,
                          const float* bias, float* c, int ldc, bool accumulate) noexcept {
    drive(M, N, K, a, lda, Panels{packed_b, kGemmNr, ptrdiff_t(kGemmNr) * K}, bias, c, ldc,
          accumulate);
}

void gemm_f32_nn_simd128(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                         const float* bias, float* c, int ldc, bool accumulate,
                         float* tail) noexcept {
    const int n8 = N - N % kGemmNr;
    drive(M, n8, K, a, lda, Panels{b, ldb, kGemmNr}, bias, c, ldc, accumulate);
    if (n8 == N || M <= 0) return;
    pack_b_f32(K, N - n8, K > 0 ? b + n8 : b, ldb, false, tail);  // why: as in drive()
    drive(M, N - n8, K, a, lda, Panels{tail, kGemmNr, ptrdiff_t(kGemmNr) * K},
          bias ? bias + n8 : nullptr, c + n8, ldc, accumulate);
}

void gemm_f32_nt_dot_simd128(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                             const float* bias, float* c, int ldc, bool accumulate) noexcept {
    int i = 0;
    for (; i + 2 <= M; i += 2)
        dot_rows<2>(N, K, a + ptrdiff_t(i) * lda, lda, b, ldb, bias, c + ptrdiff_t(i) * ldc, ldc,
                    accumulate);
    if (i < M)
        dot_rows<1>(N, K, a + ptrdiff_t(i) * lda, lda, b, ldb, bias, c + ptrdiff_t(i) * ldc, ldc,
                    accumulate);
}

}  // namespace heed::kernels
