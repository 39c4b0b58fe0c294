// A strict reader of the YAML subset Marian bundles hold: "special:model.yml" (a flat mapping of
// keys to scalars or lists) and OPUS-MT's vocab.yml (a flat mapping of pieces to ids). Anything
// outside the subset is refused naming its line. Not a YAML library: no nesting, anchors, tags,
// multi-line scalars or type resolution beyond the helpers below.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heed {

/// One value of a flat mapping: a scalar or a list of scalars.
struct YamlValue {
    std::string scalar;             ///< the text, quotes removed and escapes decoded ("" for a
                                    ///< bare `key:`; `~` and `null` are kept as that text)
    std::vector<std::string> list;  ///< the items, when is_list
    bool is_list = false;
};

/// A flat mapping, by key.
using YamlMap = std::map<std::string, YamlValue>;

/// Parses a flat mapping. The subset, one entry per line: `key: value` where key and value are
/// plain, 'single-quoted' ('' for ') or "double-quoted" (YAML's escapes, \xXX \uXXXX
/// \UXXXXXXXX included); a value may be a flow list `[a, "b", c]` on its line, or empty with
/// block items `- a` on the lines that follow. Blank lines, `# comments`, one leading `---`
/// and CRLF line ends are accepted. Throws heed::Error "model.yml line N: ..." for anything
/// else (nested mappings, anchors, aliases, tags, block or multi-line scalars, flow mappings,
/// duplicate keys, tabs in indentation, invalid UTF-8).
YamlMap parse_flat_yaml(std::string_view text);

/// `key` as an int (a plain decimal: optional '-', no leading zeros), or `fallback` when absent;
/// throws heed::Error "model.yml: 'key' is 'x', expected an integer" otherwise.
int yaml_int(const YamlMap& map, const std::string& key, int fallback);
/// `key` as true or false (also True, TRUE, False, FALSE), or `fallback` when absent; throws
/// for any other text (YAML 1.1's yes/no/on/off included).
bool yaml_bool(const YamlMap& map, const std::string& key, bool fallback);
/// `key` as a string, or `fallback` when absent; throws when it is a list.
std::string yaml_string(const YamlMap& map, const std::string& key, const std::string& fallback);
/// `key` as a list of ints (e.g. "dim-vocabs"), or empty when absent; throws when it is a
/// scalar or an item is not an integer.
std::vector<int> yaml_int_list(const YamlMap& map, const std::string& key);

/// Parses an OPUS-MT vocab.yml: the same subset, every value a non-negative integer id. Returns
/// (piece, id) in file order; throws heed::Error "vocab.yml line N: ..." for a value that is not
/// such an id, a repeated piece or a repeated id (ids need not be dense or ordered).
std::vector<std::pair<std::string, int>> parse_vocab_yaml(std::string_view text);

}  // namespace heed
