// The output-vocabulary shortlist (Marian/Bergamot's lexical shortlist idea): per target
// language, the target pieces a sentence may produce given its source pieces, read from the
// model file's optional `shortlist.<lang>.*` tensors (models/FORMAT.md, "Output shortlist").
// Not the restricted output layer itself (Model::output_layer) nor the search (decoding/).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heed {

class ModelFile;

class Shortlist {
  public:
    /// Reads and checks `shortlist.<lang>.frequent`, `.offsets` and `.targets` (every id a
    /// target vocabulary id, offsets [vocab_size + 1] — one per source id — non-decreasing from
    /// 0 to the targets' size). Throws heed::Error naming the tensor.
    static Shortlist read(const ModelFile& file, const std::string& lang, int vocab_size,
                          int target_vocab);

    /// The target ids (sorted, unique) allowed for a sentence of these source ids: the frequent
    /// pieces and each source piece's targets, padded to a count that is a multiple of
    /// `multiple` with the ids from frequent.size() up (below `target_vocab`) that are not
    /// there yet, as Marian pads its selection to a multiple of 8; then `extra` (EOS, a forced
    /// prefix...).
    std::vector<int> select(const std::vector<int>& source_ids, const std::vector<int>& extra,
                            int multiple = 1, int target_vocab = 0) const;

  private:
    std::vector<std::int32_t> frequent_, offsets_, targets_;
};

/// Every `shortlist.<lang>.*` group of a file, by language, and the tensor names read.
std::map<std::string, Shortlist> read_shortlists(const ModelFile& file, int vocab_size,
                                                 int target_vocab,
                                                 std::vector<std::string>& names_read);

}  // namespace heed
