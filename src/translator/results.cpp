// Hypotheses into Translations and step events (results.h).
#include "translator/results.h"

#include <algorithm>
#include <cmath>

namespace heed {
namespace {

Array make_array(std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return Array{std::move(shape), std::vector<float>(n, 0.0f)};
}

}  // namespace

Translation to_translation(const LoadedModel& m, const Prepared& p, const Hypothesis& h,
                           bool with_attention) {
    const ModelConfig& c = m.model.config();
    const Vocabulary& tok = m.target_tokenizer();
    Translation out;
    out.source_ids = p.ids;
    for (int id : p.ids) out.source_tokens.push_back(m.tokenizer.piece(id));
    out.target_ids = h.tokens;
    std::vector<int> text_ids;
    for (std::size_t i = 0; i < h.tokens.size(); ++i) {
        out.target_tokens.push_back(tok.piece(h.tokens[i]));
        out.token_probs.push_back(std::exp(h.logprobs[i]));
        if (h.tokens[i] != c.eos_id) text_ids.push_back(h.tokens[i]);
    }
    out.text = tok.decode(text_ids);
    out.truncated = h.tokens.empty() || h.tokens.back() != c.eos_id;
    out.score = h.score;
    if (!with_attention) return out;

    const std::size_t L = c.decoder_layers, H = c.heads, S = p.ids.size(), T = h.steps.size();
    AttentionTrace& a = out.attention;
    a.encoder_self = Array{{std::size_t(c.encoder_layers), H, S, S}, p.trace.self_attn};
    a.decoder_self = make_array({L, H, T, T});
    a.cross = make_array({L, H, T, S});
    const std::size_t D = c.d_model;
    if (c.ssru_decoder()) a.forget = make_array({L, T, D});
    for (std::size_t t = 0; t < T; ++t) {
        const StepRecord& r = h.steps[t];
        for (std::size_t l = 0; l < L; ++l)
            for (std::size_t hd = 0; hd < H; ++hd) {
                const float* self_row = r.self_attn.data() + (l * H + hd) * (t + 1);
                std::copy(self_row, self_row + t + 1,
                          a.decoder_self.data.begin() + ((l * H + hd) * T + t) * T);
                const float* cross_row = r.cross_attn.data() + (l * H + hd) * S;
                std::copy(cross_row, cross_row + S,
                          a.cross.data.begin() + ((l * H + hd) * T + t) * S);
            }
        for (std::size_t l = 0; l < L && !r.forget.empty(); ++l)
            std::copy(r.forget.begin() + l * D, r.forget.begin() + (l + 1) * D,
                      a.forget.data.begin() + (l * T + t) * D);
        StepTrace st;
        st.token = r.token;
        st.prob = r.prob;
        for (std::size_t k = 0; k < r.top_ids.size(); ++k)
            st.top.push_back(Candidate{r.top_ids[k], tok.piece(r.top_ids[k]), r.top_probs[k]});
        a.steps.push_back(std::move(st));
    }
    a.beam = h.beam;
    for (std::vector<BeamNode>& step : a.beam)
        for (BeamNode& n : step) n.piece = tok.piece(n.token);
    a.beam_winner = h.beam_node;
    out.has_attention = true;
    return out;
}

Translation finish(Translation t, const LoadedModel& m, const TranslateOptions& o,
                   const OutputLayer* output) {
    const ModelConfig& c = m.model.config();
    t.to = m.directions.target(o.to);
    t.costs =
        attention_costs(c, o.interventions, int(t.source_ids.size()), int(t.target_ids.size()));
    t.output_size = output ? int(output->ids.size()) : c.target_vocab();
    return t;
}

StepEvent step_event(const Vocabulary& tok, const ModelConfig& c,
                     const std::vector<int>& source_ids,
                     const std::vector<std::string>& source_tokens, const Array& encoder_self,
                     const SearchProgress& best) {
    StepEvent e;
    e.step = int(best.tokens.size()) - 1;
    e.target_ids = best.tokens;
    for (int id : best.tokens) e.target_tokens.push_back(tok.piece(id));
    e.prob = best.logprobs.empty() ? 0.0f : std::exp(best.logprobs.back());
    e.source_ids = &source_ids;
    e.source_tokens = &source_tokens;
    if (!best.last) return e;
    const StepRecord& r = *best.last;
    const std::size_t L = c.decoder_layers, H = c.heads, S = source_ids.size();
    for (std::size_t k = 0; k < r.top_ids.size(); ++k)
        e.top.push_back(Candidate{r.top_ids[k], tok.piece(r.top_ids[k]), r.top_probs[k]});
    e.has_attention = true;
    e.decoder_self = Array{{L, H, std::size_t(e.step) + 1}, r.self_attn};
    e.cross = Array{{L, H, S}, r.cross_attn};
    if (!r.forget.empty()) e.forget = Array{{L, std::size_t(c.d_model)}, r.forget};
    if (e.step == 0) e.encoder_self = &encoder_self;
    return e;
}

}  // namespace heed
