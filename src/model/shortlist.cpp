// Reading and checking the shortlist tables, and one sentence's selection.
#include "model/shortlist.h"

#include <algorithm>

#include "core/error.h"
#include "model/model_file.h"

namespace heed {
namespace {

const std::string kPrefix = "shortlist.";
const char* const kParts[] = {"frequent", "offsets", "targets"};

void check_ids(const std::vector<std::int32_t>& ids, int vocab_size, const std::string& name) {
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= vocab_size)
            throw Error("tensor '" + name + "' holds " + std::to_string(ids[i]) + " at element " +
                        std::to_string(i) + ", not an id of the " + std::to_string(vocab_size) +
                        "-piece vocabulary");
}

}  // namespace

Shortlist Shortlist::read(const ModelFile& file, const std::string& lang, int vocab_size,
                          int target_vocab) {
    const std::string base = kPrefix + lang + ".";
    Shortlist s;
    s.frequent_ = file.read_i32(base + "frequent");
    s.offsets_ = file.read_i32(base + "offsets");
    s.targets_ = file.read_i32(base + "targets");
    check_ids(s.frequent_, target_vocab, base + "frequent");
    check_ids(s.targets_, target_vocab, base + "targets");
    const std::string offsets = base + "offsets";
    if (s.offsets_.size() != std::size_t(vocab_size) + 1)
        throw Error("tensor '" + offsets + "' has " + std::to_string(s.offsets_.size()) +
                    " entries, expected " + std::to_string(vocab_size + 1) +
                    " (one per source piece, plus one)");
    if (s.offsets_.front() != 0 || std::size_t(s.offsets_.back()) != s.targets_.size())
        throw Error("tensor '" + offsets + "' must run from 0 to the " +
                    std::to_string(s.targets_.size()) + " entries of '" + base + "targets'");
    for (std::size_t i = 1; i < s.offsets_.size(); ++i)
        if (s.offsets_[i] < s.offsets_[i - 1])
            throw Error("tensor '" + offsets + "' decreases at element " + std::to_string(i));
    return s;
}

std::vector<int> Shortlist::select(const std::vector<int>& source_ids,
                                   const std::vector<int>& extra, int multiple,
                                   int target_vocab) const {
    std::vector<int> ids(frequent_.begin(), frequent_.end());
    for (int s : source_ids) {
        if (s < 0 || std::size_t(s) + 1 >= offsets_.size()) continue;
        ids.insert(ids.end(), targets_.begin() + offsets_[s], targets_.begin() + offsets_[s + 1]);
    }
    const auto sort_unique = [&ids] {
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    };
    sort_unique();
    // why: Marian pads its selection with the ids that follow its frequent ones (browsermt
    // marian-dev, BinaryShortlistGenerator::generate), and a padding id may win the argmax
    const std::size_t listed = ids.size();
    for (int id = int(frequent_.size()); id < target_vocab && ids.size() % multiple != 0; ++id)
        if (!std::binary_search(ids.begin(), ids.begin() + listed, id)) ids.push_back(id);
    ids.insert(ids.end(), extra.begin(), extra.end());
    sort_unique();
    return ids;
}

std::map<std::string, Shortlist> read_shortlists(const ModelFile& file, int vocab_size,
                                                 int target_vocab,
                                                 std::vector<std::string>& names_read) {
    std::map<std::string, Shortlist> out;
    for (const std::string& name : file.names()) {
        if (name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
        const std::size_t dot = name.rfind('.');
        const std::string lang = name.substr(kPrefix.size(), dot - kPrefix.size());
        const std::string part = name.substr(dot + 1);
        if (dot <= kPrefix.size() ||
            std::find(std::begin(kParts), std::end(kParts), part) == std::end(kParts))
            continue;  // why: left for check_all_used to report as unknown
        if (!out.count(lang))
            out.emplace(lang, Shortlist::read(file, lang, vocab_size, target_vocab));
        names_read.push_back(name);
    }
    return out;
}

}  // namespace heed
