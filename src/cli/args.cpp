// The command line read through its table (cli.json): every option found there by flag, its
// value read by the table's kind into `given` (a JSON object under the table's `sets` names, the
// same one npx heed builds), the rules checked, then `given` turned into Args. The value kinds
// that need more than a type (ablation, linear, ids, seed) are one function each, as in
// web/cli/args.mjs. Not the engine's range checks (check_options).
#include "cli/args.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/cli_table.h"
#include "core/error.h"

namespace heed::cli {
namespace {

using nlohmann::json;

const json& table() {
    static const json t = json::parse(kCliTable);
    return t;
}

// ---- value kinds -------------------------------------------------------------------------

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

std::vector<std::string> split_colons(const std::string& v) {
    std::vector<std::string> parts(1);
    for (char ch : v) {
        if (ch == ':')
            parts.emplace_back();
        else
            parts.back() += ch;
    }
    return parts;
}

/// "enc:2:1" or "cross:0:3:mean" -> {block: encoder | decoder | cross, layer, head, mean}.
json parse_ablation(const std::string& v) {
    const std::vector<std::string> parts = split_colons(v);
    const bool mean = parts.size() == 4 && parts[3] == "mean";
    if (parts.size() != 3 && !mean)
        throw Error("--ablate expects BLOCK:LAYER:HEAD[:mean] (BLOCK enc, dec or cross), got '" +
                    v + "'");
    std::string block;
    if (parts[0] == "enc")
        block = "encoder";
    else if (parts[0] == "dec")
        block = "decoder";
    else if (parts[0] == "cross")
        block = "cross";
    else
        throw Error("--ablate: the block must be enc, dec or cross, got '" + parts[0] + "'");
    return {{"block", block},
            {"layer", parse_int("--ablate (layer)", parts[1])},
            {"head", parse_int("--ablate (head)", parts[2])},
            {"mean", mean}};
}

/// "favor:256", "favor:256:7", "elu" or "none" -> {kind, features?, seed?} (the rest default).
json parse_linear(const std::string& v) {
    const std::vector<std::string> parts = split_colons(v);
    if (parts.size() == 1 && (parts[0] == "elu" || parts[0] == "none")) return {{"kind", parts[0]}};
    if (parts[0] == "favor" && (parts.size() == 2 || parts.size() == 3)) {
        json l = {{"kind", "favor"}, {"features", parse_int("--linear (features)", parts[1])}};
        if (parts.size() == 3) l["seed"] = parse_seed("--linear", parts[2]);
        return l;
    }
    throw Error("--linear expects favor:FEATURES[:SEED], elu or none, got '" + v + "'");
}

/// "12,7,3" -> [12, 7, 3] (std::getline's fields: a trailing comma adds none).
json parse_ids(const std::string& flag, const std::string& v) {
    json ids = json::array();
    std::stringstream in(v);
    for (std::string id; std::getline(in, id, ',');) ids.push_back(parse_int(flag, id));
    return ids;
}

/// "a, b or c" (`last_joint` " or "), in the table's order.
std::string either(const json& words, const std::string& last_joint) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) out += i + 1 == words.size() ? last_joint : ", ";
        out += words[i].get<std::string>();
    }
    return out;
}

/// One option's value read by its kind (`next` takes the argument after the flag).
json read_value(const json& option, const std::string& flag,
                const std::function<std::string()>& next) {
    const std::string kind = option.at("kind");
    if (kind == "none") return option.at("value");
    const std::string v = next();
    if (kind == "string") return v;
    if (kind == "int") return parse_int(flag, v);
    if (kind == "float") return parse_float(flag, v);
    if (kind == "seed") return parse_seed(flag, v);
    if (kind == "ids") return parse_ids(flag, v);
    if (kind == "ablation") return parse_ablation(v);
    if (kind == "linear") return parse_linear(v);
    if (kind == "choice") {
        for (const json& c : option.at("choices"))
            if (c == v) return v;
        throw Error(flag + " expects " + either(option.at("choices"), " or ") + ", got '" + v +
                    "'");
    }
    throw Error("cli.json: unknown kind '" + kind + "'");
}

// ---- the table ---------------------------------------------------------------------------

json::json_pointer pointer(const std::string& path) {
    std::string p = "/" + path;
    for (char& c : p)
        if (c == '.') c = '/';
    return json::json_pointer(p);
}

/// Sets (or, `repeat`, appends to) the `path` of `given` ("options.interventions.window").
void set(json& given, const std::string& path, const json& value, bool repeat) {
    json& slot = given[pointer(path)];
    if (repeat)
        slot.push_back(value);
    else
        slot = value;
}

/// Whether `path` is set to something other than "" or [].
bool is_given(const json& given, const std::string& path) {
    const json::json_pointer p = pointer(path);
    if (!given.contains(p)) return false;
    const json& v = given.at(p);
    if (v.is_string()) return !v.get_ref<const std::string&>().empty();
    return !v.is_null() && !(v.is_array() && v.empty());
}

/// The table's entry for `flag` ("if"/"unless": whether that flag is on the command line).
const json* find_option(const std::string& flag, const std::set<std::string>& present) {
    for (const json& o : table().at("options")) {
        bool named = false;
        for (const json& f : o.at("flags")) named = named || f == flag;
        if (!named) continue;
        if (o.contains("if") && !present.count(o.at("if"))) continue;
        if (o.contains("unless") && present.count(o.at("unless"))) continue;
        return &o;
    }
    return nullptr;
}

void check_rules(const std::string& command, const json& given) {
    for (const json& rule : table().at("rules")) {
        if (rule.contains("command") && rule.at("command") != command) continue;
        bool broken = true;
        for (const json& p : rule.value("given", json::array()))
            broken = broken && is_given(given, p);
        for (const json& p : rule.value("missing", json::array()))
            broken = broken && !is_given(given, p);
        if (broken) throw Error(rule.at("error").get<std::string>());
    }
}

/// given.options (TranslateOptions under their JavaScript names) over the defaults.
TranslateOptions translate_options(const json& o) {
    TranslateOptions t;
    t.beam_size = o.value("beam", t.beam_size);
    t.max_length = o.value("maxLength", t.max_length);
    t.length_penalty = o.value("lengthPenalty", t.length_penalty);
    t.return_attention = o.value("attention", t.return_attention);
    t.to = o.value("to", t.to);
    t.split = o.value("split", t.split);
    t.forced_prefix = o.value("forcedPrefix", t.forced_prefix);
    t.shortlist = o.value("shortlist", t.shortlist);
    t.copy_guard = o.value("copyGuard", t.copy_guard);
    t.threads = o.value("threads", t.threads);
    const json iv = o.value("interventions", json::object());
    Interventions& v = t.interventions;
    v.temperature = iv.value("temperature", v.temperature);
    v.window = iv.value("window", v.window);
    v.no_positions = iv.value("noPositions", v.no_positions);
    for (const json& a : iv.value("ablate", json::array())) {
        HeadAblation h;
        for (AttentionBlock b :
             {AttentionBlock::EncoderSelf, AttentionBlock::DecoderSelf, AttentionBlock::Cross})
            if (a.at("block") == block_name(b)) h.block = b;
        h.layer = a.at("layer");
        h.head = a.at("head");
        h.mean = a.at("mean");
        v.ablations.push_back(h);
    }
    const json sparse = iv.value("sparse", json::object());
    v.sparse.enabled = sparse.value("enabled", v.sparse.enabled);
    v.sparse.random_blocks = sparse.value("randomBlocks", v.sparse.random_blocks);
    v.sparse.seed = sparse.value("seed", v.sparse.seed);
    const json linear = iv.value("linear", json::object());
    for (LinearKind k : {LinearKind::None, LinearKind::Favor, LinearKind::Elu})
        if (linear.value("kind", "none") == linear_kind_name(k)) v.linear.kind = k;
    v.linear.features = linear.value("features", v.linear.features);
    v.linear.seed = linear.value("seed", v.linear.seed);
    return t;
}

}  // namespace

Args parse_args(int argc, char** argv) {
    if (argc < 2) throw Error("missing command");
    Args a;
    a.command = argv[1];
    const json& commands = table().at("commands");
    if (std::find(commands.begin(), commands.end(), a.command) == commands.end())
        throw Error("unknown command '" + a.command + "'");
    const std::set<std::string> present(argv + 2, argv + argc);
    json given = json::object();
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        if (const json* option = find_option(s, present)) {
            const json& takes = option->at("commands");
            if (std::find(takes.begin(), takes.end(), a.command) == takes.end())
                throw Error(s + " goes with the " + either(takes, " and ") + " command" +
                            (takes.size() > 1 ? "s" : ""));
            const auto next = [&]() -> std::string {
                if (i + 1 >= argc) throw Error(s + " needs a value");
                return argv[++i];
            };
            set(given, option->at("sets"), read_value(*option, s, next),
                option->value("repeat", false));
            const json also = option->value("also", json::object());
            for (const auto& [path, value] : also.items()) set(given, path, value, false);
        } else if (s == "--") {
            for (++i; i < argc; ++i) a.texts.push_back(argv[i]);
        } else if (s.size() > 1 && s[0] == '-' && a.texts.empty()) {
            throw Error("unknown option " + s);
        } else {
            a.texts.push_back(s);
        }
    }
    check_rules(a.command, given);
    a.model = given.value("model", "");
    a.marian = given.value("marian", "");
    a.marian_shortlist = given.value("marianShortlist", "");
    a.from = given.value("from", "");
    a.vocabs = given.value("vocabs", std::vector<std::string>{});
    a.convert_out = given.value("out", "");
    a.attention_out = given.value("attentionFile", "");
    a.ids = given.value("ids", false);
    a.costs = given.value("costs", false);
    a.load.int8 = given.value("compute", "int8") == "int8";
    a.options = translate_options(given.value("options", json::object()));
    return a;
}

std::string usage() {
    std::string out;
    for (const json& line : table().at("usage")) out += line.get<std::string>() + "\n";
    return out;
}

BenchSet bench_set() {
    const json& bench = table().at("bench");
    BenchSet set;
    set.sentences = bench.at("sentences").get<std::vector<std::string>>();
    for (const json& m : bench.at("modes"))
        set.modes.push_back(
            {m.at("name"), m.at("beam"), m.at("batched"), m.at("shortlist"), m.at("threads")});
    return set;
}

const char* linear_kind_name(LinearKind kind) {
    static const char* const kNames[] = {"none", "favor", "elu"};
    return kNames[int(kind)];
}

}  // namespace heed::cli
