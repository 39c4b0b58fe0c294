// Smoke test of the build itself: the matmul contract on a 2x2 case worked by hand.
#include "ops/matmul.h"
#include "test_util.h"

TEST(Matmul, TwoByTwoByHand) {
    heed::Mat a = {{1, 2}, {3, 4}};
    heed::Mat b = {{5, 6}, {7, 8}};
    heed::Mat want = {{19, 22}, {43, 50}};
    EXPECT_ALLCLOSE(heed::matmul(a, b), want);
    heed::Mat want_nt = {{17, 23}, {39, 53}};
    EXPECT_ALLCLOSE(heed::matmul_nt(a, b), want_nt);
}
