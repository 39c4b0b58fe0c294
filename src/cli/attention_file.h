// The --attention output: a JSON array written one translation at a time and flushed, so memory
// holds one sentence's trace, never the whole run's. Not the JSON layout of one translation
// (main.cpp's translation_json).
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"

namespace heed::cli {

class AttentionFile {
  public:
    /// Opens (truncates) `path` and writes the opening '['; throws heed::Error if it cannot.
    explicit AttentionFile(const std::string& path) : path_(path), out_(path) {
        out_ << "[";
        check();
    }
    /// Appends one element and flushes it.
    void add(const nlohmann::json& item) {
        out_ << (first_ ? "" : ",") << item.dump();
        out_.flush();
        first_ = false;
        check();
    }
    /// Writes the closing ']'.
    void close() {
        out_ << "]";
        out_.close();
        check();
    }

  private:
    void check() {
        if (!out_) throw Error("cannot write '" + path_ + "'");
    }
    std::string path_;
    std::ofstream out_;
    bool first_ = true;
};

}  // namespace heed::cli
