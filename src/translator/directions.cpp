// Directions: parses "heed.languages" once at load, so a translate call only looks up an id.
#include "translator/directions.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/vocabulary.h"

namespace heed {
namespace {

bool is_language_code(const std::string& s) {
    if (s.empty() || s.size() > 8) return false;
    for (char ch : s)
        if (!(ch >= 'a' && ch <= 'z')) return false;
    return true;
}

/// "en-de" -> ("en", "de"); throws for anything else.
std::pair<std::string, std::string> split_direction(const std::string& d) {
    const std::size_t dash = d.find('-');
    if (dash == std::string::npos || !is_language_code(d.substr(0, dash)) ||
        !is_language_code(d.substr(dash + 1)))
        throw Error("heed.languages: direction '" + d +
                    "' is not of the form source-target (e.g. en-de)");
    return {d.substr(0, dash), d.substr(dash + 1)};
}

std::string string_field(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || !j[key].is_string())
        throw Error(std::string("heed.languages: '") + key + "' must be a string");
    return j[key].get<std::string>();
}

}  // namespace

Directions Directions::parse(const std::string& languages_json, const Vocabulary& tokenizer,
                             int default_start) {
    Directions d;
    d.default_start_ = default_start;
    if (languages_json.empty()) return d;
    const nlohmann::json j = nlohmann::json::parse(languages_json, nullptr, false);
    if (!j.is_object()) throw Error("heed.languages is not a JSON object");
    if (!j.contains("directions")) {
        const std::string name = string_field(j, "source") + "-" + string_field(j, "target");
        d.starts_.push_back({split_direction(name).second, default_start});
        d.names_.push_back(name);
        return d;
    }
    if (!j["directions"].is_array() || j["directions"].empty())
        throw Error("heed.languages: 'directions' must be a non-empty array");
    if (!j.contains("target_tokens") || !j["target_tokens"].is_object())
        throw Error("heed.languages: 'target_tokens' must be an object");
    for (const nlohmann::json& item : j["directions"]) {
        if (!item.is_string()) throw Error("heed.languages: every direction must be a string");
        const std::string target = split_direction(item.get<std::string>()).second;
        d.names_.push_back(item.get<std::string>());
        bool known = false;
        for (const auto& [lang, id] : d.starts_) known = known || lang == target;
        if (known) continue;
        const std::string token = string_field(j["target_tokens"], target.c_str());
        const int id = tokenizer.piece_to_id(token);
        if (id == tokenizer.unk_id() || tokenizer.piece(id) != token)
            throw Error("heed.languages: target token '" + token + "' of '" + target +
                        "' is not a piece of the tokenizer");
        d.starts_.push_back({target, id});
    }
    d.default_start_ = d.starts_.front().second;
    return d;
}

std::vector<int> Directions::start_ids() const {
    std::vector<int> out{default_start_};
    for (const auto& entry : starts_) out.push_back(entry.second);
    return out;
}

std::string Directions::target(const std::string& to) const {
    start_id(to);  // why: the same refusal for a language the model lacks
    return !to.empty() || starts_.empty() ? to : starts_.front().first;
}

int Directions::start_id(const std::string& to) const {
    if (to.empty()) return default_start_;
    for (const auto& [lang, id] : starts_)
        if (lang == to) return id;
    std::string list;
    for (const std::string& n : names_) list += (list.empty() ? "" : ", ") + n;
    // why: `to` comes from the caller; a megabyte of it must not come back in the message
    std::size_t cut = std::min<std::size_t>(to.size(), 40);
    while (cut < to.size() && cut > 0 && (static_cast<unsigned char>(to[cut]) & 0xC0) == 0x80)
        --cut;  // why: never split a UTF-8 character
    const std::string shown =
        cut == to.size() ? to : to.substr(0, cut) + "... (" + std::to_string(to.size()) + " bytes)";
    throw Error("this model cannot translate into '" + shown + "'" +
                (list.empty() ? std::string(" (it names no languages)")
                              : " (its directions: " + list + ")"));
}

}  // namespace heed
