// Words/s of one 40-word sentence (bench/long_sentence.txt) on 1 and 2 threads, greedy and
// beam 4, natively: the threads share each matrix product of the sentence. Measurement only,
// no assertions; the load average is printed beside the figures (the machine may be shared).
//
//   build/sentence_threads [MODEL] [--to LANG] [--rounds N]
//   (default models/multi.heed --to de, 15 rounds; each round times both thread counts)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "translator/translator.h"

namespace {

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a.empty() ? "unknown" : a + " " + b + " " + c;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string model = HEED_SOURCE_DIR "/models/multi.heed", to = "de";
    int rounds = 15;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--to" && i + 1 < argc)
            to = argv[++i];
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
        else
            model = a;
    }
    std::ifstream in(HEED_SOURCE_DIR "/bench/long_sentence.txt");
    std::string sentence;
    std::getline(in, sentence);
    std::istringstream count(sentence);
    int words = 0;
    for (std::string w; count >> w;) ++words;

    auto tr = heed::Translator::load_file(model);
    std::printf("%s, one sentence of %d words, --to %s; load average %s at the start\n",
                model.c_str(), words, to.c_str(), load_average().c_str());
    for (int beam : {1, 4}) {
        std::vector<double> secs[2];
        std::vector<int> ids[2];
        for (int round = -1; round < rounds; ++round)  // round -1: warm-up
            for (int threads : {1, 2}) {
                heed::TranslateOptions o;
                o.to = to;
                o.beam_size = beam;
                o.threads = threads;
                const auto t0 = std::chrono::steady_clock::now();
                ids[threads - 1] = tr->translate({sentence}, o)[0].target_ids;
                const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
                if (round >= 0) secs[threads - 1].push_back(dt.count());
            }
        const double m1 = median(secs[0]), m2 = median(secs[1]);
        const double b1 = *std::min_element(secs[0].begin(), secs[0].end());
        const double b2 = *std::min_element(secs[1].begin(), secs[1].end());
        std::printf(
            "%-7s 1 thread %7.1f words/s, 2 threads %7.1f words/s: %.2fx (median of %d; best "
            "%.2fx), %zu target ids, %s\n",
            beam == 1 ? "greedy" : "beam 4", words / m1, words / m2, m1 / m2, rounds, b1 / b2,
            ids[0].size(), ids[0] == ids[1] ? "same ids" : "DIFFERENT ids");
    }
    std::printf("load average %s at the end (wall clock)\n", load_average().c_str());
    return 0;
}
