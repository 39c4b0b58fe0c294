// The `heed` command-line tool: translate, info, bench, convert. Argument parsing and printing
// only; all work goes through translator/translator.h (and marian/marian_model.h for --marian).
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

#include "cli/attention_file.h"
#include "cli/line_reader.h"
#include "cli/read_file.h"
#include "core/error.h"
#include "marian/marian_model.h"
#include "translator/sentence_splitter.h"
#include "translator/translator.h"

namespace {

using heed::Error;
using nlohmann::json;

const char* kUsage =
    "usage:\n"
    "  heed translate -m MODEL [--to LANG] [--beam N] [--max-length N] [--length-penalty X]\n"
    "                 [--attention OUT.json] [--ids] [--no-split] [--forced-prefix ID,ID,...]\n"
    "                 [--temperature X] [--window N]\n"
    "                 [--no-positions] [--ablate enc|dec|cross:LAYER:HEAD[:mean] ...]\n"
    "                 [--sparse RANDOM_BLOCKS [--seed N]] [--linear favor:R[:SEED]|elu|none]\n"
    "                 [--costs] [--compute int8|f32] [--shortlist] [--threads N] [TEXT ...]\n"
    "      translates each TEXT, or each line of stdin as it arrives when no TEXT is given,\n"
    "      into LANG (default: the model's first direction), sentence by sentence (--no-split:\n"
    "      each TEXT or line is one sequence); --attention writes a JSON array, one element per\n"
    "      translated sentence, as it goes; --forced-prefix makes the decoder take these target\n"
    "      ids first (\"what if\"). Attention surgery: --temperature multiplies\n"
    "      every softmax's scale, --window N keeps encoder self- and cross-attention local,\n"
    "      --no-positions drops the positional encodings, --ablate switches a head off,\n"
    "      --sparse adds global tokens and seeded random key blocks to the window,\n"
    "      --linear replaces every softmax by FAVOR+ with R random features (seed SEED,\n"
    "      default 1) or by elu + 1; --costs prints each translation's attention multiply-adds\n"
    "      and state bytes per block and layer to stderr; --compute f32 widens int8 weights to\n"
    "      f32 at load (default int8: they stay int8 and are multiplied as int8); --shortlist\n"
    "      scores only the target pieces the model's output shortlist allows for the sentence;\n"
    "      --threads N decodes the sentences of each TEXT or line on N threads\n"
    "  heed info -m MODEL      prints the directions, the config, the parameter count and\n"
    "                          the bytes the weights take in memory (--compute as above)\n"
    "  heed bench -m MODEL     prints sentences/s and words/s on a built-in set\n"
    "  heed convert --marian MODEL --vocab VOCAB [...] -o OUT.heed\n"
    "                          writes a Marian bundle as a Heed model file\n"
    "  Every command takes a Marian model (Firefox Translations, OPUS-MT) in place of -m MODEL:\n"
    "    --marian MODEL.bin|MODEL.npz --vocab VOCAB.spm [--vocab TARGET.spm]\n"
    "    [--shortlist LEX.s2t.bin] [--from LANG] [--to LANG]\n"
    "      (one vocabulary when shared, else the source's then the target's; with --marian,\n"
    "      --shortlist names Marian's binary lexical shortlist and uses it)\n";

struct Args {
    std::string command, model, attention_out, convert_out;
    std::string marian, marian_shortlist, from;  ///< --marian MODEL, its --shortlist, --from
    std::vector<std::string> vocabs;             ///< --vocab, in order
    heed::TranslateOptions options;
    heed::LoadSettings load;
    bool ids = false, costs = false;
    std::vector<std::string> texts;
};

int parse_int(const std::string& flag, const std::string& v) {
    try {
        std::size_t used = 0;
        int x = std::stoi(v, &used);
        if (used == v.size()) return x;
    } catch (...) {
    }
    throw Error(flag + " expects an integer, got '" + v + "'");
}

float parse_float(const std::string& flag, const std::string& v) {
    try {
        std::size_t used = 0;
        float x = std::stof(v, &used);
        if (used == v.size()) return x;
    } catch (...) {
    }
    throw Error(flag + " expects a number, got '" + v + "'");
}

/// A seed: an integer in [0, 4294967295] (no sign, no wrapping).
std::uint32_t parse_seed(const std::string& flag, const std::string& v) {
    std::size_t used = 0;
    long long seed = -1;
    try {
        seed = std::stoll(v, &used);
    } catch (...) {
    }
    if (v.empty() || used != v.size() || seed < 0 || seed > 4294967295ll)
        throw Error(flag + ": the seed must be an integer in [0, 4294967295], got '" + v + "'");
    return std::uint32_t(seed);
}

/// "enc:2:1" or "cross:0:3:mean" -> a head ablation (block enc | dec | cross, layer, head).
heed::HeadAblation parse_ablation(const std::string& v) {
    std::vector<std::string> parts(1);
    for (char ch : v) {
        if (ch == ':')
            parts.emplace_back();
        else
            parts.back() += ch;
    }
    const bool mean = parts.size() == 4 && parts[3] == "mean";
    if (parts.size() != 3 && !mean)
        throw Error("--ablate expects BLOCK:LAYER:HEAD[:mean] (BLOCK enc, dec or cross), got '" +
                    v + "'");
    heed::HeadAblation a;
    if (parts[0] == "enc")
        a.block = heed::AttentionBlock::EncoderSelf;
    else if (parts[0] == "dec")
        a.block = heed::AttentionBlock::DecoderSelf;
    else if (parts[0] == "cross")
        a.block = heed::AttentionBlock::Cross;
    else
        throw Error("--ablate: the block must be enc, dec or cross, got '" + parts[0] + "'");
    a.layer = parse_int("--ablate (layer)", parts[1]);
    a.head = parse_int("--ablate (head)", parts[2]);
    a.mean = mean;
    return a;
}

/// "favor:256", "favor:256:7", "elu" or "none" -> the linear-attention intervention.
heed::LinearAttention parse_linear(const std::string& v) {
    std::vector<std::string> parts(1);
    for (char ch : v) {
        if (ch == ':')
            parts.emplace_back();
        else
            parts.back() += ch;
    }
    heed::LinearAttention l;
    if (parts.size() == 1 && parts[0] == "elu")
        l.kind = heed::LinearKind::Elu;
    else if (parts.size() == 1 && parts[0] == "none")
        l.kind = heed::LinearKind::None;
    else if (parts[0] == "favor" && (parts.size() == 2 || parts.size() == 3)) {
        l.kind = heed::LinearKind::Favor;
        l.features = parse_int("--linear (features)", parts[1]);
        if (parts.size() == 3) l.seed = parse_seed("--linear", parts[2]);
    } else {
        throw Error("--linear expects favor:FEATURES[:SEED], elu or none, got '" + v + "'");
    }
    return l;
}

Args parse_args(int argc, char** argv) {
    if (argc < 2) throw Error("missing command");
    Args a;
    a.command = argv[1];
    if (a.command != "translate" && a.command != "info" && a.command != "bench" &&
        a.command != "convert")
        throw Error("unknown command '" + a.command + "'");
    bool marian = false;  // why: with --marian, --shortlist takes Marian's shortlist file
    for (int i = 2; i < argc; ++i) marian = marian || std::string(argv[i]) == "--marian";
    for (int i = 2; i < argc; ++i) {
        std::string s = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Error(s + " needs a value");
            return argv[++i];
        };
        if (s == "-m" || s == "--model")
            a.model = value();
        else if (s == "--marian")
            a.marian = value();
        else if (s == "--vocab")
            a.vocabs.push_back(value());
        else if (s == "--from")
            a.from = value();
        else if (s == "-o" || s == "--out")
            a.convert_out = value();
        else if (s == "--shortlist" && marian) {
            a.marian_shortlist = value();
            a.options.shortlist = true;
        } else if (s == "--beam")
            a.options.beam_size = parse_int(s, value());
        else if (s == "--to")
            a.options.to = value();
        else if (s == "--temperature")
            a.options.interventions.temperature = parse_float(s, value());
        else if (s == "--window")
            a.options.interventions.window = parse_int(s, value());
        else if (s == "--no-positions")
            a.options.interventions.no_positions = true;
        else if (s == "--sparse") {
            heed::SparsePattern& sp = a.options.interventions.sparse;
            sp.enabled = true;
            sp.random_blocks = parse_int(s, value());
        } else if (s == "--seed")
            a.options.interventions.sparse.seed = parse_seed(s, value());
        else if (s == "--linear")
            a.options.interventions.linear = parse_linear(value());
        else if (s == "--costs")
            a.costs = true;
        else if (s == "--shortlist")
            a.options.shortlist = true;
        else if (s == "--threads")
            a.options.threads = parse_int(s, value());
        else if (s == "--compute") {
            const std::string v = value();
            if (v != "int8" && v != "f32")
                throw Error("--compute expects int8 or f32, got '" + v + "'");
            a.load.int8 = v == "int8";
        } else if (s == "--ablate")
            a.options.interventions.ablations.push_back(parse_ablation(value()));
        else if (s == "--max-length")
            a.options.max_length = parse_int(s, value());
        else if (s == "--length-penalty")
            a.options.length_penalty = parse_float(s, value());
        else if (s == "--attention")
            a.attention_out = value();
        else if (s == "--ids")
            a.ids = true;
        else if (s == "--no-split")
            a.options.split = false;
        else if (s == "--forced-prefix") {
            std::stringstream ids(value());  // comma-separated target ids
            for (std::string id; std::getline(ids, id, ',');)
                a.options.forced_prefix.push_back(parse_int(s, id));
        } else if (s == "--") {
            for (++i; i < argc; ++i) a.texts.push_back(argv[i]);
        } else if (s.size() > 1 && s[0] == '-' && a.texts.empty())
            throw Error("unknown option " + s);
        else
            a.texts.push_back(s);
    }
    if (!a.marian.empty() && !a.model.empty())
        throw Error("give either -m MODEL or --marian MODEL, not both");
    if (a.model.empty() && a.marian.empty())
        throw Error("no model given (-m MODEL, or --marian MODEL --vocab VOCAB)");
    if (!a.marian.empty() && a.vocabs.empty())
        throw Error(
            "--marian needs its vocabulary: --vocab VOCAB.spm (twice when the source and "
            "target have their own)");
    if (a.marian.empty() && (!a.vocabs.empty() || !a.from.empty()))
        throw Error("--vocab and --from go with --marian MODEL");
    if (a.command == "convert" && (a.marian.empty() || a.convert_out.empty()))
        throw Error("convert needs --marian MODEL --vocab VOCAB ... -o OUT.heed");
    if (a.command != "convert" && !a.convert_out.empty())
        throw Error("-o goes with the convert command");
    a.options.return_attention = !a.attention_out.empty();
    return a;
}

json tensor_json(const heed::Array& a) { return json{{"shape", a.shape}, {"data", a.data}}; }

/// How the translation was made, for its trace: the attention surgery applied.
const char* const kLinearKinds[] = {"none", "favor", "elu"};

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
             {{"kind", kLinearKinds[int(iv.linear.kind)]},
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

const std::vector<std::string> kBenchSentences = {
    "This package contains the development files for the library.",
    "A simple text editor for the terminal.",
    "It provides a command-line interface to manage virtual machines.",
    "The program reads a configuration file and starts the server.",
    "This is a dummy package to ease the transition.",
    "Documentation for the Python bindings is included in this package.",
    "The library supports reading and writing images in many formats.",
    "A fast and lightweight window manager for the X Window System.",
    "This tool converts audio files between different formats.",
    "It can be used to monitor network traffic in real time.",
    "The plugin adds support for spell checking in several languages.",
    "Shared library for accessing the database from C programs.",
    "This package provides the command-line utilities.",
    "The game features several levels and a level editor.",
    "Fonts for displaying mathematical formulas on the screen.",
    "A graphical front-end to manage software packages.",
};

int run_bench(const heed::Translator& tr) {
    std::size_t words = 0;
    for (const std::string& s : kBenchSentences) {
        std::istringstream in(s);
        for (std::string w; in >> w;) ++words;
    }
    struct Mode {
        const char* name;
        int beam;
        bool batched, shortlist;
        int threads = 1;
    };
    heed::TranslateOptions with_shortlist;
    with_shortlist.shortlist = true;
    bool has_shortlist = true;
    try {
        tr.check_against_model(with_shortlist);
    } catch (const heed::Error&) {
        has_shortlist = false;  // why: the shortlist rows are printed only for models with one
    }
    for (Mode m : {Mode{"greedy, one sentence at a time", 1, false, false},
                   Mode{"greedy, whole set as one batch", 1, true, false},
                   Mode{"beam 4, one sentence at a time", 4, false, false},
                   Mode{"greedy + shortlist, one at a time", 1, false, true},
                   Mode{"beam 4 + shortlist, one at a time", 4, false, true},
                   Mode{"greedy, whole set as one batch, 2 threads", 1, true, false, 2}}) {
        if (m.shortlist && !has_shortlist) continue;
        heed::TranslateOptions o;
        o.beam_size = m.beam;
        o.shortlist = m.shortlist;
        o.threads = m.threads;
        auto run = [&] {
            if (m.batched)
                tr.translate(kBenchSentences, o);
            else
                for (const std::string& s : kBenchSentences) tr.translate({s}, o);
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
        const double n = double(reps) * kBenchSentences.size();
        std::printf("%-34s %8.1f sentences/s %9.1f words/s  (%zu sentences, %zu words, x%d)\n",
                    m.name, n / secs, double(reps) * words / secs, kBenchSentences.size(), words,
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
        args = parse_args(argc, argv);
        heed::check_options(args.options);  // why: once, before any input is read
    } catch (const Error& e) {
        std::cerr << "heed: " << e.what() << "\n" << kUsage;
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
