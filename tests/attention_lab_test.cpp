// The attention lab's façade (translator/attention_lab.h) does what is asked and no more:
// positions without their L² similarity unless it is wanted, and a matrix over the lab's size
// is refused with a message (a 50,000-row input would otherwise ask for gigabytes of weights),
// and so is a mask integer past its bound.
#include "translator/attention_lab.h"

#include <string>

#include "core/error.h"
#include "test_util.h"

namespace heed {
namespace {

using test::error_of;

Array matrix(std::size_t rows, std::size_t cols) {
    return Array{{rows, cols}, std::vector<float>(rows * cols, 0.5f)};
}

TEST(AttentionLab, PositionsAloneLeaveTheSimilarityUncomputed) {
    const LabPositions alone = lab_positions(4096, 64, false);
    EXPECT_EQ(alone.positions.shape, (std::vector<std::size_t>{4096, 64}));
    EXPECT_TRUE(alone.similarity.data.empty());
    const LabPositions both = lab_positions(8, 4, true);
    EXPECT_EQ(both.similarity.shape, (std::vector<std::size_t>{8, 8}));
    EXPECT_NEAR(both.similarity.data[0], 1.0f, 1e-6f);  // a position is itself
}

TEST(AttentionLab, AMatrixOverTheLabsSizeIsRefused) {
    const Array big = matrix(50000, 2), small = matrix(3, 2);
    std::string e = error_of([&] { lab_linear_attention(big, small, small, false); });
    EXPECT_NE(e.find("q is [50000, 2]: the lab takes at most 4096 rows and columns"),
              std::string::npos)
        << e;
    e = error_of([&] { lab_linear_attention(small, big, big, true); });
    EXPECT_NE(e.find(" is [50000, 2]: the lab takes"), std::string::npos) << e;
    LabInputs in;
    in.q = small;
    in.k = big;
    in.v = big;
    e = error_of([&] { lab_attention(in); });
    EXPECT_NE(e.find("at most 4096 rows"), std::string::npos) << e;
    e = error_of([&] { lab_positions(4097, 8, false); });
    EXPECT_NE(e.find("at most 4096"), std::string::npos) << e;
    EXPECT_EQ(lab_linear_attention(matrix(4096, 2), small, small, false).output.shape[0], 4096u);
}

TEST(AttentionLab, AMaskOffsetOrWindowPastItsBoundIsRefused) {
    LabInputs in;
    in.q = in.k = in.v = matrix(3, 2);
    in.mask.kind = MaskKind::Causal;
    in.mask.offset = kLabMaskInt;
    EXPECT_EQ(lab_attention(in).weights.shape[0], 3u);  // at the bound: every key is seen
    in.mask.offset = kLabMaskInt + 1;
    std::string e = error_of([&] { lab_attention(in); });
    EXPECT_NE(e.find("mask.offset must be an integer in -16777216..16777216"), std::string::npos)
        << e;
    in.mask.offset = 0;
    in.mask.kind = MaskKind::LocalWindow;
    in.mask.window = -kLabMaskInt - 1;
    e = error_of([&] { lab_attention(in); });
    EXPECT_NE(e.find("mask.window must be an integer"), std::string::npos) << e;
}

}  // namespace
}  // namespace heed
