// Row kernels (log-softmax, layer norm, relu, gelu) in SIMD128 with scalar references beside them.
// The vector exp and erf are polynomial approximations good to a few float ulps; no allocation.
#include "kernels/rowwise.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/simd128.h"

namespace heed::kernels {
namespace {

/// e^x per lane: x = n·ln2 + r with |r| <= ln2/2, e^r by a degree-6 polynomial, 2^n built in
/// the exponent bits. Inputs below ln(FLT_MIN) (and -inf) give exactly 0; above 88, e^88.
inline v128_t exp_f32x4(v128_t x) {
    const v128_t lo = wasm_f32x4_splat(-87.33654f);  // ln of the smallest normal float
    const v128_t underflow = wasm_f32x4_lt(x, lo);
    x = wasm_f32x4_pmin(wasm_f32x4_pmax(x, lo), wasm_f32x4_splat(88.0f));
    const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504f)));
    // why: ln2 split in a short high part (exact n·hi) and a low correction, Cody-Waite style
    v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
    v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
    const v128_t r2 = wasm_f32x4_mul(r, r);
    const v128_t er =
        wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(p, r2), r), wasm_f32x4_splat(1.0f));
    const v128_t two_n =
        wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
    return wasm_v128_andnot(wasm_f32x4_mul(er, two_n), underflow);
}

/// GELU per lane: x/2 · (1 + erf(x/√2)), erf by Abramowitz-Stegun 7.1.26 (|error| <= 1.5e-7).
inline v128_t gelu_f32x4(v128_t x) {
    const v128_t z = wasm_f32x4_mul(x, wasm_f32x4_splat(0.70710678f));
    const v128_t az = wasm_f32x4_abs(z);
    const v128_t one = wasm_f32x4_splat(1.0f);
    const v128_t t =
        wasm_f32x4_div(one, wasm_f32x4_add(one, wasm_f32x4_mul(az, wasm_f32x4_splat(0.3275911f))));
    v128_t p = wasm_f32x4_splat(1.061405429f);
    p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(-1.453152027f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(1.421413741f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(-0.284496736f));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(0.254829592f));
    // tail = 1 - erf(|z|) = t·p(t)·e^{-z²}
    const v128_t tail =
        wasm_f32x4_mul(wasm_f32x4_mul(p, t), exp_f32x4(wasm_f32x4_neg(wasm_f32x4_mul(az, az))));
    // why: for z < 0, 1 + erf(z) = tail exactly, without the cancellation of 1 - (1 - tail)
    const v128_t one_plus_erf =
        wasm_v128_bitselect(tail, wasm_f32x4_sub(wasm_f32x4_splat(2.0f), tail),
                            wasm_f32x4_lt(z, wasm_f32x4_splat(0.0f)));
    return wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(0.5f), x), one_plus_erf);
}

/// m + log(sum of the whole vectors' lanes + the tail's exp(x - m)): the one place the sum ends.
float finish_log_sum(v128_t vsum, const float* x, int n, float m) {
    float sum = wasm_f32x4_extract_lane(sum_lanes(vsum, vsum, vsum, vsum), 0);
    for (int i = n & ~3; i < n; ++i) sum += std::exp(x[i] - m);
    return m + std::log(sum);
}

}  // namespace

float max_f32(const float* x, int n) noexcept {
    int i = 0;
    v128_t vmax = wasm_f32x4_splat(-std::numeric_limits<float>::infinity());
    for (; i + 4 <= n; i += 4) vmax = wasm_f32x4_max(vmax, wasm_v128_load(x + i));
    float m = hmax(vmax);
    for (; i < n; ++i) m = std::max(m, x[i]);
    return m;
}

void exp_minus_f32(const float* x, int n, float m, float* e) noexcept {
    const v128_t vm = wasm_f32x4_splat(m);
    for (int i = 0; i + 4 <= n; i += 4)
        wasm_v128_store(e + i, exp_f32x4(wasm_f32x4_sub(wasm_v128_load(x + i), vm)));
}

float log_sum_exp_f32(const float* x, int n, float m, const float* e) noexcept {
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (int i = 0; i + 4 <= n; i += 4) vsum = wasm_f32x4_add(vsum, wasm_v128_load(e + i));
    return finish_log_sum(vsum, x, n, m);
}

void subtract_f32(const float* x, int n, float s, float* y) noexcept {
    const v128_t vs = wasm_f32x4_splat(s);
    int i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_sub(wasm_v128_load(x + i), vs));
    for (; i < n; ++i) y[i] = x[i] - s;
}

void log_softmax_row_f32(const float* x, int n, float* y) noexcept {
    const float m = max_f32(x, n);
    // why: the exponentials summed as they are made (no store): exp_minus_f32 then
    // log_sum_exp_f32 give the same bits
    const v128_t vm = wasm_f32x4_splat(m);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (int i = 0; i + 4 <= n; i += 4)
        vsum = wasm_f32x4_add(vsum, exp_f32x4(wasm_f32x4_sub(wasm_v128_load(x + i), vm)));
    subtract_f32(x, n, finish_log_sum(vsum, x, n, m), y);
}

void log_softmax_row_f32_ref(const float* x, int n, float* y) {
    float m = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) m = std::max(m, x[i]);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::exp(double(x[i] - m));
    const float lse = m + float(std::log(sum));
    for (int i = 0; i < n; ++i) y[i] = x[i] - lse;
}

int argmax_f32(const float* x, int n) noexcept {
    int i = 0;
    v128_t vmax = wasm_f32x4_splat(-std::numeric_limits<float>::infinity());
    v128_t vnan = wasm_i32x4_splat(0);
    for (; i + 4 <= n; i += 4) {
        const v128_t v = wasm_v128_load(x + i);
        vnan = wasm_v128_or(vnan, wasm_f32x4_ne(v, v));
        vmax = wasm_f32x4_max(vmax, v);
    }
    bool nan = wasm_v128_any_true(vnan);
    float m = hmax(vmax);
    for (; i < n; ++i) {
        nan |= x[i] != x[i];
        m = std::max(m, x[i]);
    }
    // why: with a NaN, "first of the largest" follows max_element's comparisons, not a value
    if (nan) return int(std::max_element(x, x + n) - x);
    // why: -0 and +0 compare equal, so the first zero is found whichever the maximum holds,
    // as max_element keeps the first of equal values
    const v128_t vm = wasm_f32x4_splat(m);
    for (i = 0; i + 4 <= n; i += 4) {
        const int hits = wasm_i32x4_bitmask(wasm_f32x4_eq(wasm_v128_load(x + i), vm));
        if (hits) return i + __builtin_ctz(unsigned(hits));
    }
    for (; i < n; ++i)
        if (x[i] == m) return i;
    return 0;  // why: unreachable: m is one of the values
}

std::size_t next_above_f32(const float* x, std::size_t begin, std::size_t end,
                           float threshold) noexcept {
    const v128_t t = wasm_f32x4_splat(threshold);
    std::size_t i = begin;
    for (; i + 4 <= end; i += 4) {
        const int above = wasm_i32x4_bitmask(wasm_f32x4_gt(wasm_v128_load(x + i), t));
        if (above) return i + std::size_t(__builtin_ctz(unsigned(above)));
    }
    for (; i < end; ++i)
        if (x[i] > threshold) return i;
    return end;
}

void layer_norm_row_f32(const float* x, int d, const float* gamma, const float* beta, float eps,
                        float* y) noexcept {
    int i = 0;
    v128_t vs = wasm_f32x4_splat(0.0f);
    for (; i + 4 <= d; i += 4) vs = wasm_f32x4_add(vs, wasm_v128_load(x + i));
    float s = wasm_f32x4_extract_lane(sum_lanes(vs, vs, vs, vs), 0);
    for (; i < d; ++i) s += x[i];
    const float mean = s / float(d);

    const v128_t vmean = wasm_f32x4_splat(mean);
    v128_t vq = wasm_f32x4_splat(0.0f);
    for (i = 0; i + 4 <= d; i += 4) {
        const v128_t c = wasm_f32x4_sub(wasm_v128_load(x + i), vmean);
        vq = wasm_f32x4_add(vq, wasm_f32x4_mul(c, c));
    }
    float q = wasm_f32x4_extract_lane(sum_lanes(vq, vq, vq, vq), 0);
    for (; i < d; ++i) q += (x[i] - mean) * (x[i] - mean);
    const float inv = 1.0f / std::sqrt(q / float(d) + eps);

    const v128_t vinv = wasm_f32x4_splat(inv);
    for (i = 0; i + 4 <= d; i += 4) {
        v128_t v = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(x + i), vmean), vinv);
        if (gamma) v = wasm_f32x4_mul(v, wasm_v128_load(gamma + i));
        if (beta) v = wasm_f32x4_add(v, wasm_v128_load(beta + i));
        wasm_v128_store(y + i, v);
    }
    for (; i < d; ++i)
        y[i] = (x[i] - mean) * inv * (gamma ? gamma[i] : 1.0f) + (beta ? beta[i] : 0.0f);
}

void layer_norm_row_f32_ref(const float* x, int d, const float* gamma, const float* beta, float eps,
                            float* y) {
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += x[i];
    mean /= d;
    for (int i = 0; i < d; ++i) var += (x[i] - mean) * (x[i] - mean);
    const double inv = 1.0 / std::sqrt(var / d + eps);
    for (int i = 0; i < d; ++i)
        y[i] = float((x[i] - mean) * inv * (gamma ? gamma[i] : 1.0f) + (beta ? beta[i] : 0.0f));
}

void relu_f32(float* x, std::size_t n) noexcept {
    const v128_t zero = wasm_f32x4_splat(0.0f);
    std::size_t i = 0;
    // why: pmax(0, v) = 0 < v ? v : 0 maps NaN and -0 to +0 exactly as the reference does
    for (; i + 4 <= n; i += 4) wasm_v128_store(x + i, wasm_f32x4_pmax(zero, wasm_v128_load(x + i)));
    for (; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void relu_f32_ref(float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gelu_f32(float* x, std::size_t n) noexcept {
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(x + i, gelu_f32x4(wasm_v128_load(x + i)));
    if (i < n) {  // why: the tail goes through the same vector code so every element agrees
        float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        std::copy(x + i, x + n, tmp);
        wasm_v128_store(tmp, gelu_f32x4(wasm_v128_load(tmp)));
        std::copy(tmp, tmp + (n - i), x + i);
    }
}

void gelu_f32_ref(float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

}  // namespace heed::kernels
