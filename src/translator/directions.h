// The directions a model translates in, read from the file's "heed.languages" metadata, and the
// decoder's first token for each target language. Not the translation itself (translator.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace heed {

class Vocabulary;

/// Directions and target-language start tokens (models/FORMAT.md, "Directions").
class Directions {
  public:
    /// Reads `languages_json` (the metadata string; empty = none). A single-direction entry
    /// {"source", "target"} gives one direction started by `default_start`; a multilingual one
    /// {"directions", "target_tokens"} gives each target the id of its token. Throws heed::Error
    /// naming the field when a direction or token is malformed or not in the tokenizer.
    static Directions parse(const std::string& languages_json, const Vocabulary& tokenizer,
                            int default_start);

    /// "source-target" pairs, the default first; empty when the file names no languages.
    const std::vector<std::string>& names() const { return names_; }
    /// The decoder start id for target language `to`; "" = the default direction's. Throws
    /// heed::Error listing the directions when the model cannot translate into `to`.
    int start_id(const std::string& to) const;
    /// Every start id: each target's, and the default.
    std::vector<int> start_ids() const;
    /// The target language `to` stands for ("" = the default direction's; "" if none named).
    std::string target(const std::string& to) const;

  private:
    std::vector<std::string> names_;
    std::vector<std::pair<std::string, int>> starts_;  // target language -> start id
    int default_start_ = 0;
};

}  // namespace heed
