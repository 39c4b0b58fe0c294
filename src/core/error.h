// Heed's one error type: every failure the user can cause (bad model file, bad text, bad
// options) is reported as heed::Error with a message that names the problem. Not for bugs.
#pragma once

#include <stdexcept>
#include <string>

namespace heed {

/// A user-facing failure; what() is a complete sentence naming the cause.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace heed
