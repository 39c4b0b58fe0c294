// Whole-file reads for the command line (the Marian bundle's files), with the checks the
// engine's own model reader makes: a regular file, at most `limit` bytes, read completely.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"

namespace heed::cli {

/// The bytes of `path`; `what` names the file in errors ("vocabulary", ...).
inline std::string read_file(const std::string& path, std::size_t limit, const std::string& what) {
    std::error_code ec;
    // why: a device or pipe (/dev/zero) never ends; only a regular file has a size to check
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("cannot open " + what + " '" + path + "' (not a regular file)");
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error("cannot read " + what + " '" + path + "'");
    if (size > limit)
        throw Error(what + " '" + path + "' is " + std::to_string(size) +
                    " bytes, over the limit of " + std::to_string(limit));
    std::ifstream f(path, std::ios::binary);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!f || !f.read(bytes.data(), std::streamsize(size)))
        throw Error("cannot read " + what + " '" + path + "'");
    return bytes;
}

}  // namespace heed::cli
