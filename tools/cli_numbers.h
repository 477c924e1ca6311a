// One number parser for every integer flag of `dashi` (and a UTF-8 check on every text flag):
// decimal digits only (an optional '-' for signed flags), in range of a 64-bit integer, never
// empty — `--steps 010` is ten, not octal 8; `0x10`, `""`, `1e3`, `-5` for an unsigned flag and
// values past INT64_MAX are errors naming the flag. CLI11 on its own reads base-prefixed and
// octal numbers and clamps out-of-range ones. Floating-point flags take a whole number too: no
// empty value, no spaces around it (RealNumberProblem).
#ifndef DASHI_TOOLS_CLI_NUMBERS_H_
#define DASHI_TOOLS_CLI_NUMBERS_H_

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "core_ref/status/status.h"

namespace dashi::tools {

// The canonical decimal form of `text`, or an error message (empty text stays for the caller).
// `is_signed`: whether a leading '-' is allowed.
std::string CanonicalDecimal(std::string& text, bool is_signed);

// Empty when `text` is a real number as a whole, as std::from_chars reads it ("0.5", "1e-3", "-2",
// "nan", "inf"), else why not: an empty value (CLI11 read "" as 0), spaces around the number
// (CLI11 took " 0.5" and refused "0.5 "), other text ("0x1p3", "+1", "1.5x") or a value past
// the range of a double ("1e999"). Every
// floating-point flag gets this check (RequireDecimalIntegers); its value is kept as typed.
std::string RealNumberProblem(const std::string& text);

// `v` in the fewest digits that read back as `v`: "1.0000000001" (printf's %g wrote "1", so
// "--tau 1.0000000001 is outside (0, 1]" read "--tau 1 is outside").
std::string NumberText(double v);

// Empty when `text` is valid UTF-8, else a message naming the first bad byte's offset.
std::string Utf8Problem(const std::string& text);

// A check for an integer flag's range, e.g. `->check(IntegerIn(1, 32))`: CLI11 reports a value
// outside it as "--jobs: '0' is outside [1, 32]" (or "... is below 0; this flag takes a number
// >= 0" when hi is INT64_MAX), a command-line error (exit code 2). Text that is not a decimal
// integer passes here and is reported by the decimal check of RequireDecimalIntegers.
CLI::Validator IntegerIn(int64_t lo, int64_t hi);
// IntegerIn(lo, INT_MAX), for a flag stored in an `int` whose upper bound depends on other flags
// (checked when the command runs): a value past 32 bits is "out of range" with the range, not
// CLI11's "Could not convert". Every `int` flag carries a range (cli_app_test checks it).
CLI::Validator IntAtLeast(int lo);

// A check that `parse` accepts the flag's value, with the parser's message on refusal (CLI11 puts
// the flag in front: "--init: initial condition 'foo' is not one of: random, taylor-green"), a
// command-line error (exit code 2): a flag whose values are names keeps one list of them, the
// parser's:
//   ->check(AcceptedBy([](const std::string& s) { return ParseLesInit(s).status(); }))
CLI::Validator AcceptedBy(std::function<Status(const std::string&)> parse);

// Checks that span several flags, run once `cmd`'s command line is parsed (CLI11's
// parse_complete_callback of `cmd`, which this takes: one per command): a non-empty `problem()`
// (a message naming the flag) is a command-line error, exit code 2, before any work.
void AddFlagCheck(CLI::App& cmd, std::function<std::string()> problem);

// Empty when `text` can be a path, else why not (it is empty: "" + "/spec.json" is /spec.json).
std::string EmptyPathProblem(const std::string& text);

// Puts the decimal check in front of every integer option of `app` and of its subcommands, the
// real-number check on every floating-point option, and a
// UTF-8 check in front of every text option (paths, names: dashi records them in JSON, so a path
// that is not UTF-8 is refused before any work), and refuses an empty value of every option
// whose type name is "PATH" (`->type_name("PATH")`: every file or directory flag and argument) —
// options registered later are not covered: call it after every command is added.
void RequireDecimalIntegers(CLI::App& app);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CLI_NUMBERS_H_
