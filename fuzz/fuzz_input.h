// Shared pieces of dashi's libFuzzer targets: the input as a file (every parser is fuzzed the way
// users reach it, through a path), and the one way a target reports a broken invariant.
#ifndef DASHI_FUZZ_FUZZ_INPUT_H_
#define DASHI_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core_ref/status/status.h"

namespace dashi::fuzz {

// Writes the input to `name` in a directory of this process's own (created once, under
// $TEST_TMPDIR or /tmp) and returns the path. Aborts when it cannot: that is the harness failing.
std::string InputAsFile(const uint8_t* data, size_t size, const std::string& name);

// The directory InputAsFile writes into.
const std::string& ScratchDir();

// A broken invariant: prints "<target>: <what> <status>" and aborts (libFuzzer records the input).
[[noreturn]] void Broken(const char* target, const std::string& what,
                         const Status& status = OkStatus());

// An error must say something: an empty message is a broken invariant.
void RequireMessage(const char* target, const Status& status);

}  // namespace dashi::fuzz

#endif  // DASHI_FUZZ_FUZZ_INPUT_H_
