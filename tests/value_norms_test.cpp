// The explainer's value norms ‖f(x_j)‖ (Kobayashi et al. 2020 §3) against a plain computation
// from the model file's own tensors (read and dequantised by ModelFile, multiplied here in
// double loops): the head's value projection of the block's key-side input, then its columns of
// the output projection, without the output bias. On a float model and on the int8 shipped one.
#include <cmath>

#include "model/model_file.h"
#include "test_util.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

using heed::AttentionBlock;

/// A tensor read as f32 (I8 dequantised with its per-row scales), or zeros when absent.
std::vector<float> tensor_or_zeros(const heed::ModelFile& file, const std::string& name,
                                   const std::vector<std::size_t>& shape) {
    if (file.has(name)) return file.read_f32(name, shape);
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    return std::vector<float>(n, 0.0f);
}

/// ‖(x_j·Wvᵀ + bv)[h] · Wo[:, h]ᵀ‖ for every row x_j of `xkv` [Lk, D], from the file's
/// `prefix`.v and `prefix`.o tensors (PyTorch layout W [out, in]).
std::vector<float> reference_norms(const heed::ModelFile& file, const std::string& prefix,
                                   const heed::Array& xkv, int head, int heads) {
    const std::size_t Lk = xkv.shape[0], D = xkv.shape[1], Dh = D / std::size_t(heads);
    const std::vector<float> wv = file.read_f32(prefix + ".v.weight", {D, D});
    const std::vector<float> bv = tensor_or_zeros(file, prefix + ".v.bias", {D});
    const std::vector<float> wo = file.read_f32(prefix + ".o.weight", {D, D});
    std::vector<float> norms(Lk);
    for (std::size_t j = 0; j < Lk; ++j) {
        std::vector<double> v(Dh);  // this head's value vector of key j
        for (std::size_t d = 0; d < Dh; ++d) {
            const std::size_t row = head * Dh + d;
            double sum = bv[row];
            for (std::size_t c = 0; c < D; ++c)
                sum += double(xkv.data[j * D + c]) * wv[row * D + c];
            v[d] = sum;
        }
        double squares = 0;
        for (std::size_t r = 0; r < D; ++r) {
            double f = 0;
            for (std::size_t d = 0; d < Dh; ++d) f += v[d] * wo[r * D + head * Dh + d];
            squares += f * f;
        }
        norms[j] = float(std::sqrt(squares));
    }
    return norms;
}

struct Case {
    std::string file;         // under models/
    std::string text, to;     // a sentence and its target language ("" when the model has one)
    heed::DType weight_type;  // how the file stores the projections (checks what is covered)
    double rtol;
};

void expect_norms_match(const Case& c) {
    const std::string path = HEED_MODELS_DIR "/" + c.file;
    const std::string bytes = heed::test::read_text(path);
    const heed::ModelFile file =
        heed::ModelFile::parse(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ASSERT_EQ(file.info("decoder.0.cross_attn.o.weight").dtype, c.weight_type) << c.file;
    auto tr = heed::Translator::load_file(path);
    const auto loaded = heed::load_model_file(path);  // why: config() refers into it
    const heed::ModelConfig& config = loaded->model.config();
    heed::TranslateOptions o;
    o.max_length = 20;
    o.to = c.to;
    const heed::Translation t = tr->translate({c.text}, o).at(0);
    struct Where {
        AttentionBlock block;
        std::string prefix;
        int layer;
    };
    const int last_dec = config.decoder_layers - 1, last_enc = config.encoder_layers - 1;
    for (const Where& w : {Where{AttentionBlock::Cross,
                                 "decoder." + std::to_string(last_dec) + ".cross_attn", last_dec},
                           Where{AttentionBlock::Cross, "decoder.0.cross_attn", 0},
                           Where{AttentionBlock::EncoderSelf,
                                 "encoder." + std::to_string(last_enc) + ".self_attn", last_enc}}) {
        for (int head : {0, config.heads - 1}) {
            const heed::HeadExplanation e =
                tr->explain_head(t.source_ids, t.target_ids, w.block, w.layer, head, c.to);
            ASSERT_EQ(e.value_norms.shape, std::vector<std::size_t>{e.xkv.shape[0]});
            const std::vector<float> want =
                reference_norms(file, w.prefix, e.xkv, head, config.heads);
            EXPECT_TRUE(heed::test::allclose(e.value_norms.data, want, c.rtol, 1e-5))
                << c.file << " " << w.prefix << " head " << head;
        }
    }
}

TEST(ValueNorms, FloatModelMatchesTheFilesTensors) {
    expect_norms_match({"tiny/tiny.heed", "A simple text editor", "", heed::DType::F32, 1e-4});
}

// why: the int8 kernel rounds activations to int16 per row; the reference multiplies the
// dequantised weights in double, so the two agree to about that rounding
TEST(ValueNorms, Int8ModelMatchesTheFilesTensors) {
    expect_norms_match(
        {"multi.heed", "The cat sleeps on the warm sofa.", "de", heed::DType::I8, 2e-3});
}

}  // namespace
