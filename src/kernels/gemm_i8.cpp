// int8-weight GEMM: 4-row int8 panels, int16 activations, i32x4.dot_i16x8_s register tiles
// (8 multiply-adds per instruction, against 4 for f32 mul + add), and the f32-widening
// alternative. No allocation; callers own every buffer.
#include "kernels/gemm_i8.h"

#include <algorithm>
#include <cmath>

#include "kernels/simd128.h"

namespace heed::kernels {
namespace {

using std::ptrdiff_t;

constexpr int kPanelBytesPerK = kI8PanelRows;  // a panel holds 4 bytes per k

/// Writes 4 columns (nc ≤ 4 of them valid): v · scale + bias.
inline void store4(v128_t sum, v128_t scale, const float* bias, int nc, float* c) {
    v128_t v = wasm_f32x4_mul(sum, scale);
    float tmp[4];
    if (bias) {
        if (nc == 4) {
            v = wasm_f32x4_add(v, wasm_v128_load(bias));
        } else {
            float b[4] = {};
            std::copy(bias, bias + nc, b);
            v = wasm_f32x4_add(v, wasm_v128_load(b));
        }
    }
    if (nc == 4) {
        wasm_v128_store(c, v);
        return;
    }
    wasm_v128_store(tmp, v);
    std::copy(tmp, tmp + nc, c);
}

/// The register tile: MR rows of A_q against NP consecutive panels (columns 4p.., `nc[p]` of
/// them valid). MR·NP·4 int32 accumulators: 8 for (2, 1) and (1, 2).
template <int MR, int NP>
inline void tile_i16i8(int Kp, const std::int16_t* qa, int ldq, const float* a_scales,
                       const std::int8_t* panel, ptrdiff_t panel_stride, const float* w_scales,
                       const float* bias, const int* nc, float* c, int ldc) {
    v128_t sum[MR][NP];
    for (int r = 0; r < MR; ++r)
        for (int p = 0; p < NP; ++p) sum[r][p] = wasm_f32x4_splat(0.0f);
    for (int k0 = 0; k0 < Kp; k0 += kI8Chunk) {
        const int k1 = std::min(Kp, k0 + kI8Chunk);
        v128_t acc[MR][NP][4];
        for (int r = 0; r < MR; ++r)
            for (int p = 0; p < NP; ++p)
                for (int j = 0; j < 4; ++j) acc[r][p][j] = wasm_i32x4_splat(0);
        for (int k = k0; k < k1; k += kI8Block) {
            v128_t w[NP][4];
            for (int p = 0; p < NP; ++p)
                for (int j = 0; j < 4; ++j)
                    w[p][j] = wasm_i16x8_load8x8(panel + p * panel_stride +
                                                 ptrdiff_t(k) * kPanelBytesPerK + j * kI8Block);
            for (int r = 0; r < MR; ++r) {
                const v128_t x = wasm_v128_load(qa + ptrdiff_t(r) * ldq + k);
                for (int p = 0; p < NP; ++p)
                    for (int j = 0; j < 4; ++j)
                        acc[r][p][j] =
                            wasm_i32x4_add(acc[r][p][j], wasm_i32x4_dot_i16x8(x, w[p][j]));
            }
        }
        for (int r = 0; r < MR; ++r)
            for (int p = 0; p < NP; ++p)
                sum[r][p] = wasm_f32x4_add(
                    sum[r][p], wasm_f32x4_convert_i32x4(sum_lanes<std::int32_t>(
                                   acc[r][p][0], acc[r][p][1], acc[r][p][2], acc[r][p][3])));
    }
    for (int r = 0; r < MR; ++r)
        for (int p = 0; p < NP; ++p) {
            const v128_t scale =
                wasm_f32x4_mul(wasm_f32x4_splat(a_scales[r]), wasm_v128_load(w_scales + 4 * p));
            store4(sum[r][p], scale, bias ? bias + 4 * p : nullptr, nc[p],
                   c + ptrdiff_t(r) * ldc + 4 * p);
        }
}

/// Element (n, k) of a packed W whose rows are Kp long.
inline std::int8_t packed_at(const std::int8_t* packed, int Kp, int n, int k) {
    return packed[std::size_t(n / kI8PanelRows) * kI8PanelRows * Kp +
                  std::size_t(k / kI8Block) * kI8PanelRows * kI8Block +
                  (n % kI8PanelRows) * kI8Block + k % kI8Block];
}

}  // namespace

int padded_k_i8(int K) noexcept { return (K + kI8Block - 1) / kI8Block * kI8Block; }
int packed_rows_i8(int N) noexcept { return (N + kI8PanelRows - 1) / kI8PanelRows * kI8PanelRows; }
std::size_t packed_i8_size(int N, int K) noexcept {
    return std::size_t(packed_rows_i8(N)) * std::size_t(padded_k_i8(K));
}

void pack_i8(int N, int K, const std::int8_t* w, int ldw, std::int8_t* packed) noexcept {
    const int Kp = padded_k_i8(K), Np = packed_rows_i8(N);
    for (int n = 0; n < Np; ++n) {
        std::int8_t* panel = packed + std::size_t(n / kI8PanelRows) * kI8PanelRows * Kp;
        const int j = n % kI8PanelRows;
        for (int k = 0; k < Kp; ++k)
            panel[std::size_t(k / kI8Block) * kI8PanelRows * kI8Block + j * kI8Block +
                  k % kI8Block] = (n < N && k < K) ? w[std::size_t(n) * ldw + k] : 0;
    }
}

void unpack_row_i8(int N, int K, const std::int8_t* packed, int n, std::int8_t* out) noexcept {
    const int Kp = padded_k_i8(K);
    for (int k = 0; k < K; ++k) out[k] = packed_at(packed, Kp, n, k);
}

void quantise_rows_i16_ref(int M, int K, const float* a, int lda, std::int16_t* q, int ldq,
                           float* scales) noexcept {
    const int Kp = padded_k_i8(K);
    for (int m = 0; m < M; ++m) {
        const float* row = a + std::size_t(m) * lda;
        std::int16_t* out = q + std::size_t(m) * ldq;
        float amax = 0.0f;
        for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
        const float scale = amax > 0.0f ? amax / 32767.0f : 1.0f;
        const float inv = 1.0f / scale;
        for (int k = 0; k < K; ++k) {
            const float v = std::nearbyint(row[k] * inv);  // why: round half to even
            out[k] = std::int16_t(std::clamp(v, -32767.0f, 32767.0f));
        }
        std::fill(out + K, out + Kp, std::int16_t(0));
        scales[m] = scale;
    }
}

void quantise_rows_i16(int M, int K, const float* a, int lda, std::int16_t* q, int ldq,
                       float* scales) noexcept {
    const int Kp = padded_k_i8(K);
    const v128_t lo = wasm_f32x4_splat(-32767.0f), hi = wasm_f32x4_splat(32767.0f);
    for (int m = 0; m < M; ++m) {
        const float* row = a + std::size_t(m) * lda;
        std::int16_t* out = q + std::size_t(m) * ldq;
        // why: pmax(acc, v) = acc < v ? v : acc is std::max(acc, v); the maximum is exact in any
        // order, so the lanes may be folded at the end
        v128_t acc = wasm_f32x4_splat(0.0f);
        int k = 0;
        for (; k + 4 <= K; k += 4)
            acc = wasm_f32x4_pmax(acc, wasm_f32x4_abs(wasm_v128_load(row + k)));
        float amax = hmax(acc);
        for (; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
        const float scale = amax > 0.0f ? amax / 32767.0f : 1.0f;
        const float inv = 1.0f / scale;
        const v128_t vinv = wasm_f32x4_splat(inv);
        // why: nearest is round half to even, as nearbyint; the clamp keeps the lanes in int16,
        // so the saturating narrow never saturates
        const auto round4 = [&](const float* x) {
            const v128_t v = wasm_f32x4_nearest(wasm_f32x4_mul(wasm_v128_load(x), vinv));
            return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_pmin(hi, wasm_f32x4_pmax(lo, v)));
        };
        k = 0;
        for (; k + 8 <= K; k += 8)
            wasm_v128_store(out + k, wasm_i16x8_narrow_i32x4(round4(row + k), round4(row + k + 4)));
        for (; k < K; ++k)
            out[k] = std::int16_t(std::clamp(std::nearbyint(row[k] * inv), -32767.0f, 32767.0f));
        std::fill(out + K, out + Kp, std::int16_t(0));
        scales[m] = scale;
    }
}

void gemm_i16i8_ref(int M, int N, int K, const std::int16_t* qa, int ldq, const float* a_scales,
                    const std::int8_t* packed_w, const float* w_scales, const float* bias, float* c,
                    int ldc) noexcept {
    const int Kp = padded_k_i8(K);
    for (int n = 0; n < N; ++n)
        for (int m = 0; m < M; ++m) {
            const std::int16_t* x = qa + std::size_t(m) * ldq;
            float sum = 0.0f;
            for (int k0 = 0; k0 < Kp; k0 += kI8Chunk) {
                long long dot = 0;
                for (int k = k0; k < std::min(K, k0 + kI8Chunk); ++k)
                    dot += x[k] * packed_at(packed_w, Kp, n, k);
                sum += float(dot);
            }
            const float scale = a_scales[m] * w_scales[n];
            c[std::size_t(m) * ldc + n] = sum * scale + (bias ? bias[n] : 0.0f);
        }
}

void gemm_i16i8_simd128(int M, int N, int K, const std::int16_t* qa, int ldq, const float* a_scales,
                        const std::int8_t* packed_w, const float* w_scales, const float* bias,
                        float* c, int ldc) noexcept {
    const int Kp = padded_k_i8(K), panels = packed_rows_i8(N) / kI8PanelRows;
    const ptrdiff_t stride = ptrdiff_t(kI8PanelRows) * Kp;
    const auto valid = [N](int p) { return std::min(kI8PanelRows, N - p * kI8PanelRows); };
    int m = 0;
    for (; m + 2 <= M; m += 2)
        for (int p = 0; p < panels; ++p) {
            const int nc[1] = {valid(p)};
            tile_i16i8<2, 1>(Kp, qa + ptrdiff_t(m) * ldq, ldq, a_scales + m, packed_w + p * stride,
                             stride, w_scales + 4 * p, bias ? bias + 4 * p : nullptr, nc,
                             c + ptrdiff_t(m) * ldc + 4 * p, ldc);
        }
    if (m < M) {
        int p = 0;
        for (; p + 2 <= panels; p += 2) {
            const int nc[2] = {valid(p), valid(p + 1)};
            tile_i16i8<1, 2>(Kp, qa + ptrdiff_t(m) * ldq, ldq, a_scales + m, packed_w + p * stride,
                             stride, w_scales + 4 * p, bias ? bias + 4 * p : nullptr, nc,
                             c + ptrdiff_t(m) * ldc + 4 * p, ldc);
        }
        if (p < panels) {
            const int nc[1] = {valid(p)};
            tile_i16i8<1, 1>(Kp, qa + ptrdiff_t(m) * ldq, ldq, a_scales + m, packed_w + p * stride,
                             stride, w_scales + 4 * p, bias ? bias + 4 * p : nullptr, nc,
                             c + ptrdiff_t(m) * ldc + 4 * p, ldc);
        }
    }
}

void gemm_f32i8_simd128(int M, int N, int K, const float* a, int lda, const std::int8_t* packed_w,
                        const float* w_scales, const float* bias, float* c, int ldc) noexcept {
    const int Kp = padded_k_i8(K), panels = packed_rows_i8(N) / kI8PanelRows;
    const int Kfull = K / kI8Block * kI8Block;
    for (int m = 0; m < M; ++m) {
        const float* x = a + std::size_t(m) * lda;
        float tail[kI8Block] = {};  // why: the last partial block of x, zero-padded
        std::copy(x + Kfull, x + K, tail);
        for (int p = 0; p < panels; ++p) {
            const std::int8_t* panel = packed_w + std::size_t(p) * kI8PanelRows * Kp;
            v128_t acc[4];
            for (int j = 0; j < 4; ++j) acc[j] = wasm_f32x4_splat(0.0f);
            for (int k = 0; k < Kp; k += kI8Block) {
                const float* xk = k < Kfull ? x + k : tail;
                const v128_t x0 = wasm_v128_load(xk), x1 = wasm_v128_load(xk + 4);
                for (int j = 0; j < 4; ++j) {
                    const v128_t w16 =
                        wasm_i16x8_load8x8(panel + std::size_t(k) * kI8PanelRows + j * kI8Block);
                    const v128_t w0 = wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(w16));
                    const v128_t w1 = wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(w16));
                    acc[j] = wasm_f32x4_add(
                        acc[j], wasm_f32x4_add(wasm_f32x4_mul(x0, w0), wasm_f32x4_mul(x1, w1)));
                }
            }
            const int nc = std::min(kI8PanelRows, N - p * kI8PanelRows);
            store4(sum_lanes(acc[0], acc[1], acc[2], acc[3]), wasm_v128_load(w_scales + 4 * p),
                   bias ? bias + 4 * p : nullptr, nc, c + std::size_t(m) * ldc + 4 * p);
        }
    }
}

}  // namespace heed::kernels
