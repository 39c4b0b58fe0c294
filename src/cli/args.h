// The `heed` command line read through its one table, src/cli/cli.json (compiled in by CMake as
// cli/cli_table.h; npx heed's web/cli/args.mjs reads the same file): the command, the options it
// takes with their values parsed by kind, the rules between them, the usage text and the bench
// set. Not the engine's option checks (heed::check_options) nor what the commands do (main.cpp).
#pragma once

#include <string>
#include <vector>

#include "translator/translator.h"

namespace heed::cli {

/// What one command line asks for.
struct Args {
    std::string command, model, attention_out, convert_out;
    std::string marian, marian_shortlist, from;  ///< --marian MODEL, its --shortlist, --from
    std::vector<std::string> vocabs;             ///< --vocab, in order
    TranslateOptions options;
    LoadSettings load;
    bool ids = false, costs = false;
    std::vector<std::string> texts;
};

/// argv read through the table; throws heed::Error naming the first problem (exit 2).
Args parse_args(int argc, char** argv);

/// The usage text, one line per entry of the table's "usage", each ending in '\n'.
std::string usage();

/// One row of `heed bench`: how its sentences are translated.
struct BenchMode {
    std::string name;
    int beam = 1;
    bool batched = false;    ///< the whole set as one batch, else one sentence at a time
    bool shortlist = false;  ///< with the output shortlist (only for a model that has one)
    int threads = 1;
};

/// What `heed bench` times (the table's "bench").
struct BenchSet {
    std::vector<std::string> sentences;
    std::vector<BenchMode> modes;
};
BenchSet bench_set();

/// A linear-attention kind as the trace and the JavaScript API name it: none, favor, elu.
const char* linear_kind_name(LinearKind kind);

}  // namespace heed::cli
