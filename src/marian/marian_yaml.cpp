// The flat-YAML reader of marian_yaml.h: one pass over the lines, each a `key: value`, a block
// list item or nothing (blank, comment); scalars are read by the three YAML styles (plain,
// single- and double-quoted). Refusals name the line. Not a YAML library.
#include "marian/marian_yaml.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "core/error.h"
#include "core/utf8.h"

namespace heed {
namespace {

struct Entry {
    std::string key;
    YamlValue value;
    std::size_t line;
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

/// A plain decimal int: optional '-', digits, no leading zeros, within int's range.
bool parse_int(const std::string& s, int& out) {
    const std::size_t start = !s.empty() && s[0] == '-' ? 1 : 0;
    const std::size_t digits = s.size() - start;
    if (digits == 0 || digits > 10 || (digits > 1 && s[start] == '0')) return false;
    long long v = 0;
    for (std::size_t i = start; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    if (start) v = -v;
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
    out = int(v);
    return true;
}

class Parser {
  public:
    Parser(std::string_view text, const char* label) : text_(text), label_(label) {}

    std::vector<Entry> run() {
        const std::size_t bad = find_invalid_utf8(text_);
        if (bad != std::string_view::npos) {
            line_ = 1 + std::size_t(std::count(text_.begin(), text_.begin() + bad, '\n'));
            fail("the text is not valid UTF-8");
        }
        if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
        std::vector<Entry> out;
        std::unordered_map<std::string, std::size_t> seen;
        std::size_t open = std::string::npos, list_indent = std::string::npos;
        bool content = false;
        for (std::size_t begin = 0; begin <= text_.size();) {
            std::size_t end = text_.find('\n', begin);
            if (end == std::string_view::npos) end = text_.size();
            std::string_view s = text_.substr(begin, end - begin);
            begin = end + 1;
            ++line_;
            if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
            if (s.find('\0') != std::string_view::npos) fail("the line holds a NUL byte");
            std::size_t i = 0;
            while (i < s.size() && s[i] == ' ') ++i;
            std::size_t j = i;
            while (j < s.size() && is_blank(s[j])) ++j;
            if (j == s.size() || s[j] == '#') continue;
            if (j != i) fail("a tab in the indentation");
            if (i == 0 && s.substr(0, 3) == "---" && (s.size() == 3 || is_blank(s[3]))) {
                std::size_t k = 3;
                while (k < s.size() && is_blank(s[k])) ++k;
                if (content || k != s.size()) fail("only one leading '---', alone, is read");
                content = true;
                continue;
            }
            content = true;
            if (s[i] == '-' && (i + 1 == s.size() || is_blank(s[i + 1]))) {
                if (open == std::string::npos)
                    fail(
                        "a list item ('- ') outside a list: only 'key:' followed by '- item' "
                        "lines is read");
                if (list_indent == std::string::npos) list_indent = i;
                if (i != list_indent) fail("list items are indented unevenly");
                std::size_t at = i + 1;
                while (at < s.size() && is_blank(s[at])) ++at;
                if (at == s.size() || s[at] == '#') fail("an empty list item");
                YamlValue& value = out[open].value;
                value.list.push_back(scalar(s, at, false));
                value.is_list = true;
                end_of_line(s, at);
                continue;
            }
            if (i > 0 && open != std::string::npos)
                fail("nested mappings are not read (only '- item' lines may follow 'key:')");
            if (i > 0)
                fail("an indented line (multi-line scalars and nested mappings are not read)");
            open = list_indent = std::string::npos;
            std::size_t at = 0;
            Entry entry{
                s[0] == '"' || s[0] == '\'' ? scalar(s, at, false) : plain(s, at, false, true),
                {},
                line_};
            while (at < s.size() && is_blank(s[at])) ++at;
            if (at == s.size() || s[at] != ':') fail("expected 'key: value'");
            if (++at < s.size() && !is_blank(s[at])) fail("expected a space after ':'");
            while (at < s.size() && is_blank(s[at])) ++at;
            const bool empty = at == s.size() || s[at] == '#';
            if (!empty && s[at] == '[') {
                entry.value.list = flow_list(s, at);
                entry.value.is_list = true;
            } else if (!empty) {
                entry.value.scalar = scalar(s, at, false);
            }
            end_of_line(s, at);
            const auto [it, fresh] = seen.emplace(entry.key, line_);
            if (!fresh)
                fail("the key '" + entry.key + "' appears twice (first on line " +
                     std::to_string(it->second) + ")");
            if (empty) open = out.size();
            out.push_back(std::move(entry));
        }
        return out;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(std::string(label_) + " line " + std::to_string(line_) + ": " + what);
    }

    std::string scalar(std::string_view s, std::size_t& at, bool flow) {
        if (s[at] == '"') return double_quoted(s, at);
        if (s[at] != '\'') return plain(s, at, flow, false);
        std::string out;
        for (++at;; ++at) {
            if (at == s.size()) fail("a single-quoted scalar does not close on its line");
            if (s[at] != '\'') {
                out += s[at];
            } else if (at + 1 < s.size() && s[at + 1] == '\'') {
                out += '\'';
                ++at;
            } else {
                ++at;
                return out;
            }
        }
    }

    std::string double_quoted(std::string_view s, std::size_t& at) {
        std::string out;
        for (++at;; ++at) {
            if (at == s.size()) fail("a double-quoted scalar does not close on its line");
            const char c = s[at];
            if (c == '"') return ++at, out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (++at == s.size()) fail("a double-quoted scalar does not close on its line");
            // why: YAML 1.2's escapes (§5.7), each a code point or the count of hex digits after it
            static const struct {
                char letter;
                char32_t cp;
                std::size_t digits;
            } escapes[] = {{'0', 0, 0},      {'a', 7, 0},      {'b', 8, 0},    {'t', 9, 0},
                           {'\t', 9, 0},     {'n', 10, 0},     {'v', 11, 0},   {'f', 12, 0},
                           {'r', 13, 0},     {'e', 27, 0},     {' ', 32, 0},   {'"', 34, 0},
                           {'/', 47, 0},     {'\\', 92, 0},    {'N', 0x85, 0}, {'_', 0xA0, 0},
                           {'L', 0x2028, 0}, {'P', 0x2029, 0}, {'x', 0, 2},    {'u', 0, 4},
                           {'U', 0, 8}};
            const char e = s[at];
            const auto* hit = std::find_if(std::begin(escapes), std::end(escapes),
                                           [e](const auto& x) { return x.letter == e; });
            if (hit == std::end(escapes)) fail(std::string("an unknown escape '\\") + e + "'");
            char32_t cp = hit->cp;
            for (std::size_t k = 0; k < hit->digits; ++k) {
                static const char hex[] = "0123456789abcdefABCDEF";
                const char h = ++at < s.size() ? s[at] : '\0';
                const char* digit = h != '\0' ? std::strchr(hex, h) : nullptr;
                if (digit == nullptr)
                    fail(std::string("'\\") + e + "' needs " + std::to_string(hit->digits) +
                         " hex digits");
                const std::ptrdiff_t v = digit - hex;
                cp = cp * 16 + char32_t(v < 16 ? v : v - 6);
            }
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                fail("an escape names no Unicode scalar value (a surrogate or above U+10FFFF)");
            append_utf8(out, cp);
        }
    }

    std::string plain(std::string_view s, std::size_t& at, bool flow, bool key) {
        const char c = s[at];
        const bool spaced = at + 1 == s.size() || is_blank(s[at + 1]);
        static const std::pair<const char*, const char*> refused[] = {
            {"&", "anchors ('&') are not read"},
            {"*", "aliases ('*') are not read"},
            {"!", "tags ('!') are not read"},
            {"|>", "block scalars ('|', '>') are not read"},
            {"%", "directives ('%') are not read"},
            {"{", "flow mappings ('{') are not read"},
            {"@`]},", "a plain scalar cannot start with '@', '`', ']', '}' or ','"}};
        for (const auto& [chars, why] : refused)
            if (std::strchr(chars, c) != nullptr) fail(why);
        if (c == '[') fail(key ? "flow keys are not read" : "nested lists are not read");
        if (spaced && c == '?') fail("complex keys ('? ') are not read");
        if (spaced && c == '-') fail("nested lists are not read");
        if (spaced && c == ':') fail("an empty key");
        const std::size_t start = at;
        for (; at < s.size(); ++at) {
            const char ch = s[at];
            if (ch == '#' && is_blank(s[at - 1])) break;
            if (ch == ':' && (at + 1 == s.size() || is_blank(s[at + 1]))) {
                if (key) break;
                fail("nested mappings are not read (': ' inside a value)");
            }
            if (flow && (ch == ',' || ch == ']')) break;
            if (flow && (ch == '[' || ch == '{' || ch == '}'))
                fail("nested collections in a flow list are not read");
        }
        std::size_t stop = at;
        while (stop > start && is_blank(s[stop - 1])) --stop;
        return std::string(s.substr(start, stop - start));
    }

    std::vector<std::string> flow_list(std::string_view s, std::size_t& at) {
        std::vector<std::string> items;
        for (++at;;) {
            while (at < s.size() && is_blank(s[at])) ++at;
            if (at == s.size()) fail("a flow list does not close on its line");
            if (s[at] == ']') return ++at, items;
            items.push_back(scalar(s, at, true));
            while (at < s.size() && is_blank(s[at])) ++at;
            if (at == s.size()) fail("a flow list does not close on its line");
            if (s[at] == ',') {
                ++at;
            } else if (s[at] == ']') {
                return ++at, items;
            } else {
                fail("expected ',' or ']' in a flow list");
            }
        }
    }

    void end_of_line(std::string_view s, std::size_t at) {
        while (at < s.size() && is_blank(s[at])) ++at;
        if (at < s.size() && !(s[at] == '#' && is_blank(s[at - 1])))
            fail("unexpected text after the value");
    }

    std::string_view text_;
    const char* label_;
    std::size_t line_ = 0;
};

const YamlValue* lookup(const YamlMap& map, const std::string& key) {
    const auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
}

[[noreturn]] void bad_value(const std::string& key, const std::string& text, const char* want) {
    throw Error("model.yml: '" + key + "' is '" + text + "', expected " + want);
}

const std::string& scalar_of(const YamlValue& v, const std::string& key) {
    if (v.is_list) bad_value(key, "a list", "a single value");
    return v.scalar;
}

}  // namespace

YamlMap parse_flat_yaml(std::string_view text) {
    YamlMap map;
    for (Entry& e : Parser(text, "model.yml").run()) map.emplace(e.key, std::move(e.value));
    return map;
}

int yaml_int(const YamlMap& map, const std::string& key, int fallback) {
    const YamlValue* v = lookup(map, key);
    if (v == nullptr) return fallback;
    int out;
    if (!parse_int(scalar_of(*v, key), out)) bad_value(key, v->scalar, "an integer");
    return out;
}

bool yaml_bool(const YamlMap& map, const std::string& key, bool fallback) {
    const YamlValue* v = lookup(map, key);
    if (v == nullptr) return fallback;
    const std::string& s = scalar_of(*v, key);
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    bad_value(key, s, "true or false");
}

std::string yaml_string(const YamlMap& map, const std::string& key, const std::string& fallback) {
    const YamlValue* v = lookup(map, key);
    return v == nullptr ? fallback : scalar_of(*v, key);
}

std::vector<int> yaml_int_list(const YamlMap& map, const std::string& key) {
    const YamlValue* v = lookup(map, key);
    if (v == nullptr) return {};
    if (!v->is_list) bad_value(key, v->scalar, "a list of integers");
    std::vector<int> out(v->list.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!parse_int(v->list[i], out[i])) bad_value(key, v->list[i], "a list of integers");
    return out;
}

std::vector<std::pair<std::string, int>> parse_vocab_yaml(std::string_view text) {
    std::vector<std::pair<std::string, int>> out;
    std::unordered_map<int, std::size_t> lines;  // id -> the line that gave it
    for (Entry& e : Parser(text, "vocab.yml").run()) {
        const std::string at = "vocab.yml line " + std::to_string(e.line) + ": ";
        int id;
        if (e.value.is_list || !parse_int(e.value.scalar, id) || id < 0)
            throw Error(at + "the id of '" + e.key + "' is not a non-negative integer");
        const auto [it, fresh] = lines.emplace(id, e.line);
        if (!fresh)
            throw Error(at + "the id " + std::to_string(id) + " is already given on line " +
                        std::to_string(it->second));
        out.emplace_back(std::move(e.key), id);
    }
    return out;
}

}  // namespace heed
