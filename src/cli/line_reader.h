// Reads stdin one line at a time with a byte limit, so the CLI can translate while input is
// still arriving and never holds more than one bounded line. Not a text validator: UTF-8 and
// emptiness are the translator's checks.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace heed::cli {

enum class LineStatus {
    Line,     ///< `line` holds the next line (without its '\n')
    TooLong,  ///< the line had more than `limit` bytes; its rest was skipped, not stored
    End,      ///< no more input
};

/// The next line of `in`, keeping at most `limit` bytes of it.
inline LineStatus read_line(std::istream& in, std::string& line, std::size_t limit) {
    line.clear();
    std::streambuf* buf = in.rdbuf();
    bool any = false, too_long = false;
    for (;;) {
        const int c = buf->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            in.setstate(std::ios::eofbit);
            if (!any) return LineStatus::End;
            break;
        }
        any = true;
        if (c == '\n') break;
        // why: a 1.5 GB line is skipped byte by byte instead of being read whole first
        if (line.size() < limit)
            line.push_back(char(c));
        else
            too_long = true;
    }
    return too_long ? LineStatus::TooLong : LineStatus::Line;
}

}  // namespace heed::cli
