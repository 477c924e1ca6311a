#include "tools/chain_json.h"

#include <tuple>
#include <utility>

#include "core_ref/blake2b/blake2b.h"
#include "json_input/json_input.h"

namespace dashi::tools {

nlohmann::json ChainFileJson(const ChainFile& f) {
  nlohmann::json checkpoints = nlohmann::json::array();
  for (const ChainCheckpoint& c : f.chain) {
    checkpoints.push_back(
        {{"step", c.step}, {"state_hash", ToHex(c.state_hash)}, {"link", ToHex(c.link)}});
  }
  return {{"provenance", f.provenance},
          {"dim", f.dim},
          {"steps", f.steps},
          {"hash_every", f.hash_every},
          {"hash",
           "BLAKE2b-128; state_hash = H(LE f64 bytes of z), link = H(prev link || state_hash)"},
          {"summation_order", "canonical chunked (docs/MATH.md)"},
          {"final_link", FinalLinkHex(f.chain)},
          {"checkpoints", checkpoints}};
}

std::string FinalLinkHex(std::span<const ChainCheckpoint> chain) {
  return chain.empty() ? std::string() : ToHex(chain.back().link);
}

namespace {

StatusOr<Hash128> HashFromHex(const nlohmann::json& obj, std::string_view key,
                              const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(const std::string hex, StringField(obj, key, what));
  Hash128 h{};
  if (hex.size() != 2 * h.size()) {
    return InvalidArgumentError(what + ": \"" + std::string(key) + "\" has " +
                                std::to_string(hex.size()) + " characters, expected 32 hex digits");
  }
  for (size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[i];
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (v < 0) {
      return InvalidArgumentError(what + ": \"" + std::string(key) +
                                  "\" is not lowercase hex (character " + std::to_string(i) + ")");
    }
    h[i / 2] = static_cast<uint8_t>(h[i / 2] | (v << (i % 2 == 0 ? 4 : 0)));
  }
  return h;
}

}  // namespace

StatusOr<RecordedChain> ParseChainFile(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) return InvalidArgumentError(path + ": not a JSON object");
  if (!j.contains("checkpoints") && j.contains("trajectories")) {
    const nlohmann::json& t = j["trajectories"];
    const std::string count = t.is_array() ? std::to_string(t.size()) + " " : "";
    return InvalidArgumentError(path + ": a batched chain of " + count +
                                "trajectories (written by a rollout of a [B, D] --z0); "
                                "--expect-chain replays one trajectory's chain: roll out one row "
                                "as a [D] --z0 and compare with a single rollout's chain");
  }
  RecordedChain r;
  DASHI_ASSIGN_OR_RETURN(r.dim, IntField(j, "dim", path, 1, INT64_MAX));
  DASHI_ASSIGN_OR_RETURN(r.steps, IntField(j, "steps", path, 0, INT64_MAX));
  DASHI_ASSIGN_OR_RETURN(r.hash_every, IntField(j, "hash_every", path, 1, INT64_MAX));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* checkpoints, ArrayField(j, "checkpoints", path));
  int64_t previous = -1;
  for (size_t i = 0; i < checkpoints->size(); ++i) {
    const nlohmann::json& c = (*checkpoints)[i];
    const std::string what = path + ": checkpoint " + std::to_string(i);
    if (!c.is_object()) return InvalidArgumentError(what + " is not an object");
    ChainCheckpoint cp;
    DASHI_ASSIGN_OR_RETURN(cp.step, IntField(c, "step", what, 0, r.steps));
    if (cp.step <= previous) {
      return InvalidArgumentError(what + ": step " + std::to_string(cp.step) +
                                  " does not follow step " + std::to_string(previous));
    }
    previous = cp.step;
    DASHI_ASSIGN_OR_RETURN(cp.state_hash, HashFromHex(c, "state_hash", what));
    DASHI_ASSIGN_OR_RETURN(cp.link, HashFromHex(c, "link", what));
    r.chain.push_back(cp);
  }
  for (const auto& [key, field] : {std::pair{"z0_hash", &r.z0_hash}, {"a_hash", &r.a_hash}}) {
    if (!j.contains(key)) continue;
    DASHI_ASSIGN_OR_RETURN(const Hash128 h, HashFromHex(j, key, path));
    *field = ToHex(h);
  }
  DASHI_ASSIGN_OR_RETURN(const std::string final_link, StringField(j, "final_link", path));
  if (final_link != FinalLinkHex(r.chain)) {
    return InvalidArgumentError(path + ": final_link " + final_link +
                                " is not the last checkpoint's link");
  }
  return r;
}

StatusOr<RecordedChain> ReadChainFile(const std::string& path) {
  DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonInput(path));
  return ParseChainFile(j, path);
}

std::string F64HashHex(std::span<const double> values) {
  return ToHex(Blake2b128(values.data(), values.size() * sizeof(double)));
}

std::string CompareRecordedInputs(const RecordedChain& recorded, const std::string& z0_hash,
                                  const std::string& a_hash) {
  for (const auto& [name, want, have] : {std::tuple{"z0_hash", &recorded.z0_hash, &z0_hash},
                                         std::tuple{"a_hash", &recorded.a_hash, &a_hash}}) {
    if (!want->empty() && *want != *have) {
      return std::string(name) + " " + *have + " where the record has " + *want;
    }
  }
  return "";
}

std::string CompareWithRecordedChain(const RecordedChain& recorded, int64_t dim, int64_t steps,
                                     int64_t hash_every, std::span<const ChainCheckpoint> got) {
  const auto differ = [](const char* what, int64_t want, int64_t have) {
    return std::string(what) + " " + std::to_string(have) + " where the record has " +
           std::to_string(want);
  };
  if (dim != recorded.dim) return differ("D =", recorded.dim, dim);
  if (steps != recorded.steps) return differ("steps =", recorded.steps, steps);
  if (hash_every != recorded.hash_every) return differ("hash_every =", recorded.hash_every, hash_every);
  if (got.size() != recorded.chain.size()) {
    return differ("checkpoints:", static_cast<int64_t>(recorded.chain.size()),
                  static_cast<int64_t>(got.size()));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const ChainCheckpoint& want = recorded.chain[i];
    const std::string where = "checkpoint " + std::to_string(i) + " (step " +
                              std::to_string(want.step) + "): ";
    if (got[i].step != want.step) return where + differ("step", want.step, got[i].step);
    if (got[i].state_hash != want.state_hash) {
      return where + "state hash " + ToHex(got[i].state_hash) + " where the record has " +
             ToHex(want.state_hash);
    }
    if (got[i].link != want.link) {
      return where + "link " + ToHex(got[i].link) + " where the record has " + ToHex(want.link);
    }
  }
  return "";
}

}  // namespace dashi::tools
