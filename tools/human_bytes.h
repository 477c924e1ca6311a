// A byte count for messages in the unit that fits it: "512 B", "1.0 KiB", "41.3 MiB", "3.0 GiB"
// (a limit of 1K read "0.00 GiB" when every size was printed in GiB).
//
//   "needs an estimated " + HumanBytes(estimate) + ", more than --max-memory " + HumanBytes(limit)
#ifndef DASHI_TOOLS_HUMAN_BYTES_H_
#define DASHI_TOOLS_HUMAN_BYTES_H_

#include <cstdint>
#include <string>

namespace dashi::tools {

// Whole bytes below 1 KiB, else one decimal of the largest binary unit (KiB ... PiB) it reaches.
std::string HumanBytes(int64_t bytes);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_HUMAN_BYTES_H_
