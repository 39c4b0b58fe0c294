// Matrix products: shape checks and dispatch to kernels/. (Placeholder scalar loops until the
// SIMD GEMM lands; the public contract in matmul.h is final.)
#include "ops/matmul.h"

#include <cstring>

namespace heed {

PackedLinear::PackedLinear(const float* w, const float* bias, int out_features, int in_features)
    : in_(in_features), out_(out_features), packed_(w, w + std::size_t(out_features) * in_features),
      bias_(bias ? std::vector<float>(bias, bias + out_features)
                 : std::vector<float>(std::size_t(out_features), 0.0f)) {}

void PackedLinear::apply(const float* x, int rows, float* y) const {
    matmul_raw(x, in_, packed_.data(), in_, true, y, out_, rows, out_, in_);
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < out_; ++o) y[std::size_t(r) * out_ + o] += bias_[o];
}

Mat PackedLinear::operator()(const Mat& x) const {
    Mat y = Mat::from_shape({x.shape(0), std::size_t(out_)});
    apply(x.data(), int(x.shape(0)), y.data());
    return y;
}

void matmul_raw(const float* a, int lda, const float* b, int ldb, bool b_transposed, float* c,
                int ldc, int M, int N, int K) {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0;
            for (int k = 0; k < K; ++k)
                s += a[std::size_t(i) * lda + k] *
                     (b_transposed ? b[std::size_t(j) * ldb + k] : b[std::size_t(k) * ldb + j]);
            c[std::size_t(i) * ldc + j] = s;
        }
}

Mat matmul(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(1)});
    matmul_raw(a.data(), int(a.shape(1)), b.data(), int(b.shape(1)), false, c.data(),
               int(b.shape(1)), int(a.shape(0)), int(b.shape(1)), int(a.shape(1)));
    return c;
}

Mat matmul_nt(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(0)});
    matmul_raw(a.data(), int(a.shape(1)), b.data(), int(b.shape(1)), true, c.data(),
               int(b.shape(0)), int(a.shape(0)), int(b.shape(0)), int(a.shape(1)));
    return c;
}

}  // namespace heed
