// The `heed` command-line tool: translate, info, bench, convert. Printing only; the command line
// is read through its table (args.h, cli.json) and all work goes through translator/translator.h
// (and marian/marian_model.h for --marian). npx heed (web/cli/heed.mjs) mirrors this file.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/attention_file.h"
#include "cli/line_reader.h"
#include "cli/read_file.h"
#include "core/error.h"
#include "marian/marian_model.h"
#include "translator/sentence_splitter.h"
#include "translator/translator.h"

namespace {

using heed::Error;
using heed::cli::Args;
using nlohmann::json;

json tensor_json(const heed::Array& a) { return json{{"shape", a.shape}, {"data", a.data}}; }

/// How the translation was made, for its trace: the attention surgery applied.
json interventions_json(const heed::Interventions& iv) {
    json ablate = json::array();
    for (const heed::HeadAblation& a : iv.ablations)
        ablate.push_back({{"block", heed::block_name(a.block)},
                          {"layer", a.layer},
                          {"head", a.head},
                          {"mean", a.mean}});
    return {{"temperature", iv.temperature},
            {"window", iv.window},
            {"noPositions", iv.no_positions},
            {"ablate", ablate},
            {"sparse",
             {{"enabled", iv.sparse.enabled},
              {"randomBlocks", iv.sparse.random_blocks},
              {"block", iv.sparse.block},
              {"seed", iv.sparse.seed}}},
            {"linear",
             {{"kind", heed::cli::linear_kind_name(iv.linear.kind)},
              {"features", iv.linear.features},
              {"seed", iv.linear.seed}}}};
}

/// The attention costs of one translation (model/attention_cost.h), as npm's result.costs.
json costs_json(const std::vector<heed::AttentionCost>& costs) {
    json out = json::array();
    for (const heed::AttentionCost& c : costs)
        out.push_back({{"block", heed::block_name(c.block)},
                       {"layer", c.layer},
                       {"macs", c.macs},
                       {"stateBytes", c.state_bytes}});
    return out;
}

json translation_json(const std::string& source, const heed::Translation& t) {
    json j = {{"source", source},
              {"text", t.text},
              {"sourceTokens", t.source_tokens},
              {"targetTokens", t.target_tokens},
              {"sourceIds", t.source_ids},
              {"targetIds", t.target_ids},
              {"tokenProbs", t.token_probs},
              {"score", t.score}};
    if (t.has_attention) {
        json steps = json::array();
        for (const heed::StepTrace& s : t.attention.steps) {
            json top = json::array();
            for (const heed::Candidate& c : s.top)
                top.push_back({{"id", c.id}, {"piece", c.piece}, {"prob", c.prob}});
            steps.push_back({{"token", s.token}, {"prob", s.prob}, {"top", top}});
        }
        j["attention"] = {{"encoderSelf", tensor_json(t.attention.encoder_self)},
                          {"decoderSelf", tensor_json(t.attention.decoder_self)},
                          {"cross", tensor_json(t.attention.cross)},
                          {"steps", steps}};
    }
    return j;
}

/// Says on stderr when the model caps --max-length (its positions end there).
void note_caps(const Args& a, const heed::Translator& tr) {
    const int positions = json::parse(tr.config_json()).at("max_positions").get<int>();
    if (a.options.max_length > positions)
        std::cerr << "heed: note: --max-length " << a.options.max_length << " is capped at "
                  << positions << ", the model's max_positions\n";
}

/// Translates one input (Translator::translate_texts: sentence by sentence), prints the
/// joined translation (one line per input, flushed) and appends each sentence to the attention
/// file. Returns false when a sentence was refused (the line stays empty, the error goes to
/// stderr); a sentence cut at the length limit is translated and noted on stderr.
bool translate_one(const Args& a, const heed::Translator& tr, const std::string& text,
                   const std::string& where, heed::cli::AttentionFile* attention) {
    try {
        heed::TextTranslation r = std::move(tr.translate_texts({text}, a.options)[0]);
        if (!r.ok) throw Error(r.error);
        const std::size_t n = r.sentences.size();
        const auto in = [&](std::size_t i) {
            return n == 1
                       ? where
                       : where + ", sentence " + std::to_string(i + 1) + " of " + std::to_string(n);
        };
        std::string out = r.text;
        for (char& c : out)
            if (c == '\n' || c == '\r' || c == '\v' || c == '\f') c = ' ';  // one line per input
        std::cout << out;
        if (a.ids)
            for (std::size_t i = 0, k = 0; i < n; ++i)
                for (int id : r.sentences[i].target_ids) std::cout << (k++ == 0 ? '\t' : ' ') << id;
        std::cout << "\n" << std::flush;
        for (std::size_t i = 0; i < n; ++i) {
            const heed::Translation& done = r.sentences[i];
            if (done.truncated)
                std::cerr << "heed: note: " << in(i) << ": decoding stopped at the length limit ("
                          << done.target_ids.size() << " pieces) before </s>; the translation "
                          << "may be cut (see --max-length)\n";
            if (a.costs) {
                std::cerr << "costs of " << in(i) << " (block layer: multiply-adds, state bytes):";
                for (const heed::AttentionCost& c : done.costs)
                    std::cerr << "\n  " << heed::block_name(c.block) << " " << c.layer << ": "
                              << std::fixed << std::setprecision(0) << c.macs << ", "
                              << c.state_bytes;
                std::cerr << "\n" << std::defaultfloat << std::flush;
            }
            if (!attention) continue;
            const heed::TextSpan& s = r.spans[i];
            json j = translation_json(n == 1 ? text : text.substr(s.begin, s.end - s.begin), done);
            j["interventions"] = interventions_json(a.options.interventions);
            j["costs"] = costs_json(done.costs);
            if (n > 1) {
                j["sentence"] = i;
                j["sentences"] = n;
            }
            attention->add(j);
        }
        return true;
    } catch (const Error& e) {
        std::cout << "\n" << std::flush;  // why: keep output lines aligned with input lines
        std::cerr << "heed: error: "
                  << (std::string(e.what()).rfind(where, 0) == 0 ? "" : where + ": ") << e.what()
                  << "\n";
        return false;
    }
}

/// The TEXT arguments, or stdin read and translated line by line as it arrives.
int run_translate(const Args& a, const heed::Translator& tr) {
    note_caps(a, tr);
    std::unique_ptr<heed::cli::AttentionFile> attention;
    if (!a.attention_out.empty())
        attention = std::make_unique<heed::cli::AttentionFile>(a.attention_out);
    int failures = 0;
    for (std::size_t i = 0; i < a.texts.size(); ++i)
        failures +=
            !translate_one(a, tr, a.texts[i], "text " + std::to_string(i + 1), attention.get());
    if (a.texts.empty()) {
        std::string line;
        for (std::size_t n = 1;; ++n) {
            const heed::cli::LineStatus status =
                heed::cli::read_line(std::cin, line, heed::kMaxTextBytes);
            if (status == heed::cli::LineStatus::End) break;
            const std::string where = "line " + std::to_string(n);
            if (status == heed::cli::LineStatus::TooLong) {
                ++failures;
                std::cout << "\n" << std::flush;
                std::cerr << "heed: error: " << where << ": text is too long (more than "
                          << heed::kMaxTextBytes << " bytes)\n";
                continue;
            }
            failures += !translate_one(a, tr, line, where, attention.get());
        }
    }
    if (attention) attention->close();
    return failures ? 1 : 0;
}

int run_info(const heed::Translator& tr) {
    std::string names;
    for (const std::string& d : tr.directions()) names += (names.empty() ? "" : ", ") + d;
    std::cout << "directions: " << (names.empty() ? "(not named by the model)" : names) << "\n";
    json info = {{"directions", tr.directions()},
                 {"config", json::parse(tr.config_json())},
                 {"parameters", tr.parameter_count()},
                 {"weight_bytes", tr.weight_bytes()},
                 {"compute", tr.int8_weights() ? "int8" : "f32"},
                 {"shortlists", tr.shortlist_languages()},
                 {"metadata", json::parse(tr.metadata_json())}};
    std::cout << info.dump(2) << "\n";
    return 0;
}

int run_bench(const heed::Translator& tr) {
    const heed::cli::BenchSet bench = heed::cli::bench_set();
    const std::vector<std::string>& sentences = bench.sentences;
    std::size_t words = 0;
    for (const std::string& s : sentences) {
        std::istringstream in(s);
        for (std::string w; in >> w;) ++words;
    }
    heed::TranslateOptions with_shortlist;
    with_shortlist.shortlist = true;
    bool has_shortlist = true;
    try {
        tr.check_against_model(with_shortlist);
    } catch (const heed::Error&) {
        has_shortlist = false;  // why: the shortlist rows are printed only for models with one
    }
    for (const heed::cli::BenchMode& m : bench.modes) {
        if (m.shortlist && !has_shortlist) continue;
        heed::TranslateOptions o;
        o.beam_size = m.beam;
        o.shortlist = m.shortlist;
        o.threads = m.threads;
        auto run = [&] {
            if (m.batched)
                tr.translate(sentences, o);
            else
                for (const std::string& s : sentences) tr.translate({s}, o);
        };
        run();  // warm-up
        int reps = 0;
        auto t0 = std::chrono::steady_clock::now();
        double secs = 0;
        do {
            run();
            ++reps;
            secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } while (secs < 2.0);
        const double n = double(reps) * sentences.size();
        std::printf("%-34s %8.1f sentences/s %9.1f words/s  (%zu sentences, %zu words, x%d)\n",
                    m.name.c_str(), n / secs, double(reps) * words / secs, sentences.size(), words,
                    reps);
    }
    return 0;
}

/// The Heed model file of the --marian bundle (marian/marian_model.h).
std::vector<std::uint8_t> heed_file_of_marian(const Args& a) {
    heed::MarianBundle b;
    b.model = heed::cli::read_file(a.marian, heed::kMaxModelBytes, "Marian model");
    for (const std::string& v : a.vocabs)
        b.vocabs.push_back(heed::cli::read_file(v, heed::kMaxModelBytes, "vocabulary"));
    if (!a.marian_shortlist.empty())
        b.shortlist = heed::cli::read_file(a.marian_shortlist, heed::kMaxModelBytes, "shortlist");
    if (!a.from.empty()) b.source_language = a.from;
    if (!a.options.to.empty()) b.target_language = a.options.to;
    heed::MarianSummary summary;
    std::vector<std::uint8_t> file = heed::heed_file_from_marian(b, &summary);
    std::cerr << "heed: Marian model " << a.marian << ": " << summary.weights << " weights, "
              << (summary.decoder == "ssru" ? "SSRU decoder" : "self-attention decoder")
              << (summary.shortlist ? ", lexical shortlist" : "") << "\n";
    return file;
}

/// `heed convert`: the file written whole to a temporary name, then renamed over `out`, so
/// a failure never leaves a partial model behind.
int write_converted(const std::vector<std::uint8_t>& file, const std::string& out) {
    const std::string tmp = out + ".part";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f ||
            !f.write(reinterpret_cast<const char*>(file.data()), std::streamsize(file.size())))
            throw Error("cannot write '" + tmp + "'");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, out, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw Error("cannot write '" + out + "'");
    }
    std::cout << "wrote " << out << " (" << file.size() << " bytes)\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    try {
        args = heed::cli::parse_args(argc, argv);
        heed::check_options(args.options);  // why: once, before any input is read
    } catch (const Error& e) {
        std::cerr << "heed: " << e.what() << "\n" << heed::cli::usage();
        return 2;
    }
    try {
        std::unique_ptr<heed::Translator> tr;
        if (!args.marian.empty()) {
            const std::vector<std::uint8_t> file = heed_file_of_marian(args);
            if (args.command == "convert") return write_converted(file, args.convert_out);
            tr = heed::Translator::load(file.data(), file.size(), args.load);
        } else {
            tr = heed::Translator::load_file(args.model, args.load);
        }
        try {
            tr->check_against_model(args.options);  // why: once, like the other options
        } catch (const Error& e) {
            std::cerr << "heed: " << e.what() << "\n";
            return 2;
        }
        if (args.command == "info") return run_info(*tr);
        if (args.command == "bench") return run_bench(*tr);
        return run_translate(args, *tr);
    } catch (const std::exception& e) {
        std::cerr << "heed: error: " << e.what() << "\n";
        return 1;
    }
}
