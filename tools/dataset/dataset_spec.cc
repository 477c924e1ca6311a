#include "tools/dataset/dataset_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <type_traits>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/npy/npy.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/checked_arithmetic.h"
#include "json_input/json_input.h"

namespace dashi::tools {
namespace {

// A spec larger than this is a typo (a count of 10^12), not a dataset.
constexpr int64_t kMaxItems = int64_t{1} << 24;

Status OnlyKeys(const nlohmann::json& obj, const std::set<std::string>& allowed,
                const std::string& what) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (allowed.count(it.key()) == 0) {
      std::string list;
      for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
      return InvalidArgumentError(what + ": unknown key \"" + it.key() + "\" (allowed: " + list +
                                  ")");
    }
  }
  return OkStatus();
}

// `key` of `obj` as T when present (a number for double, a boolean for bool), else `dflt`.
template <typename T>
StatusOr<T> OptionalValue(const nlohmann::json& obj, const std::string& key, T dflt,
                          const std::string& what) {
  auto it = obj.find(key);
  if (it == obj.end()) return dflt;
  constexpr bool kIsBool = std::is_same_v<T, bool>;
  if (kIsBool ? !it->is_boolean() : !it->is_number()) {
    return InvalidArgumentError(what + ": field \"" + key + "\" is " + JsonTypeName(*it) +
                                (kIsBool ? ", expected a boolean" : ", expected a number"));
  }
  return it->get<T>();
}

StatusOr<int64_t> OptionalInt(const nlohmann::json& obj, const std::string& key, int64_t dflt,
                              const std::string& what, int64_t lo, int64_t hi) {
  if (!obj.contains(key)) return dflt;
  return IntField(obj, key, what, lo, hi);
}

StatusOr<std::vector<uint64_t>> ParseSeeds(const nlohmann::json& j, const std::string& what) {
  std::vector<uint64_t> seeds;
  const nlohmann::json& s = j.at("seeds");
  if (s.is_object()) {
    DASHI_RETURN_IF_ERROR(OnlyKeys(s, {"first", "count"}, what + ": seeds"));
    DASHI_ASSIGN_OR_RETURN(uint64_t first, UintField(s, "first", what + ": seeds"));
    DASHI_ASSIGN_OR_RETURN(int64_t count, IntField(s, "count", what + ": seeds", 1, kMaxItems));
    if (first > UINT64_MAX - static_cast<uint64_t>(count - 1)) {
      return InvalidArgumentError(what + ": seeds: first + count - 1 exceeds 2^64 - 1");
    }
    for (int64_t i = 0; i < count; ++i) seeds.push_back(first + static_cast<uint64_t>(i));
    return seeds;
  }
  if (!s.is_array() || s.empty()) {
    return InvalidArgumentError(what +
                                ": \"seeds\" must be a non-empty array of integers or "
                                "{\"first\": S, \"count\": K}; it is " +
                                JsonTypeName(s));
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (!s[i].is_number_unsigned()) {
      return InvalidArgumentError(what + ": seeds[" + std::to_string(i) + "] is " +
                                  JsonTypeName(s[i]) + ", expected an integer >= 0");
    }
    seeds.push_back(s[i].get<uint64_t>());
  }
  std::set<uint64_t> seen;
  for (uint64_t v : seeds) {
    if (!seen.insert(v).second) {
      return InvalidArgumentError(what + ": seed " + std::to_string(v) + " is listed twice");
    }
  }
  return seeds;
}

StatusOr<LesParams> ParseLesSet(const nlohmann::json& o, const std::string& what) {
  if (!o.is_object())
    return InvalidArgumentError(what + " is " + JsonTypeName(o) + ", expected an object");
  DASHI_RETURN_IF_ERROR(
      OnlyKeys(o, {"dt", "nu0", "cs", "init", "energy", "k_peak", "tg_k", "tg_amplitude"}, what));
  LesParams p;
  DASHI_ASSIGN_OR_RETURN(p.dt, OptionalValue<double>(o, "dt", p.dt, what));
  DASHI_ASSIGN_OR_RETURN(p.nu0, OptionalValue<double>(o, "nu0", p.nu0, what));
  DASHI_ASSIGN_OR_RETURN(p.cs, OptionalValue<double>(o, "cs", p.cs, what));
  DASHI_ASSIGN_OR_RETURN(p.energy, OptionalValue<double>(o, "energy", p.energy, what));
  DASHI_ASSIGN_OR_RETURN(p.tg_amplitude,
                         OptionalValue<double>(o, "tg_amplitude", p.tg_amplitude, what));
  DASHI_ASSIGN_OR_RETURN(int64_t k_peak, OptionalInt(o, "k_peak", p.k_peak, what, 1, 4096));
  DASHI_ASSIGN_OR_RETURN(int64_t tg_k, OptionalInt(o, "tg_k", p.tg_k, what, 1, 4096));
  p.k_peak = static_cast<int>(k_peak);
  p.tg_k = static_cast<int>(tg_k);
  if (o.contains("init")) {
    DASHI_ASSIGN_OR_RETURN(std::string init, StringField(o, "init", what));
    StatusOr<LesInit> parsed = ParseLesInit(init);
    if (!parsed.ok())
      return InvalidArgumentError(what + ": " + std::string(parsed.status().message()));
    p.init = *parsed;
  }
  return p;
}

Status ParseKeep(const nlohmann::json& j, DatasetSpec& spec, const std::string& what) {
  if (!j.contains("keep")) return OkStatus();
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* keep, ObjectField(j, "keep", what));
  const std::string kw = what + ": keep";
  DASHI_RETURN_IF_ERROR(OnlyKeys(*keep, {"vorticity", "series", "proxy", "decodes"}, kw));
  DASHI_ASSIGN_OR_RETURN(spec.keep_vorticity, OptionalValue<bool>(*keep, "vorticity", true, kw));
  DASHI_ASSIGN_OR_RETURN(spec.keep_series, OptionalValue<bool>(*keep, "series", true, kw));
  DASHI_ASSIGN_OR_RETURN(spec.keep_decodes, OptionalValue<bool>(*keep, "decodes", false, kw));
  if (keep->contains("proxy") && !keep->at("proxy").is_null()) {
    DASHI_ASSIGN_OR_RETURN(const nlohmann::json* px, ObjectField(*keep, "proxy", kw));
    const std::string pw = kw + ".proxy";
    DASHI_RETURN_IF_ERROR(OnlyKeys(*px, {"k_lo", "k_mid", "anchors"}, pw));
    DatasetProxyParams p;
    DASHI_ASSIGN_OR_RETURN(int64_t k_lo, IntField(*px, "k_lo", pw, 1, 4096));
    DASHI_ASSIGN_OR_RETURN(int64_t k_mid, IntField(*px, "k_mid", pw, 1, 4096));
    DASHI_ASSIGN_OR_RETURN(int64_t anchors, IntField(*px, "anchors", pw, 0, 1 << 22));
    p.k_lo = static_cast<int>(k_lo);
    p.k_mid = static_cast<int>(k_mid);
    p.anchors = static_cast<int>(anchors);
    spec.proxy = p;
  }
  if (spec.keep_decodes && !spec.proxy) {
    return InvalidArgumentError(kw + ".decodes needs keep.proxy: the decoder's input is each "
                                "frame's proxy state z");
  }
  if (!spec.keep_vorticity && !spec.keep_series && !spec.proxy) {
    return InvalidArgumentError(kw + ": keeps nothing (vorticity, series and proxy all off)");
  }
  return OkStatus();
}

Status CheckProxyFits(const DatasetProxyParams& p, int64_t n, const std::string& what) {
  StatusOr<ProxySpec> bands = ProxySpecFromAnchors(n, p.k_lo, p.k_mid, {});
  if (!bands.ok()) {
    return InvalidArgumentError(what + ": keep.proxy at N = " + std::to_string(n) + ": " +
                                std::string(bands.status().message()));
  }
  if (static_cast<size_t>(p.anchors) > bands->mid_residual.size()) {
    return InvalidArgumentError(what + ": keep.proxy.anchors = " + std::to_string(p.anchors) +
                                " exceeds the " + std::to_string(bands->mid_residual.size()) +
                                " modes of the mid band at N = " + std::to_string(n));
  }
  return OkStatus();
}

}  // namespace

std::string DatasetSpec::CanonicalSpecText() const { return canonical.dump(2) + "\n"; }

StatusOr<DatasetSpec> ParseDatasetSpec(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) {
    return InvalidArgumentError(what + ": the spec is " + std::string(JsonTypeName(j)) +
                                ", expected an object");
  }
  DASHI_RETURN_IF_ERROR(
      OnlyKeys(j, {"format", "n", "seeds", "les", "steps", "save_every", "keep", "name"}, what));
  DASHI_ASSIGN_OR_RETURN(std::string format, StringField(j, "format", what));
  if (format != kDatasetSpecFormat) {
    return InvalidArgumentError(what + ": format \"" + format + "\" is not \"" +
                                kDatasetSpecFormat + "\"");
  }
  DatasetSpec spec;
  spec.canonical = j;
  DASHI_ASSIGN_OR_RETURN(spec.steps, IntField(j, "steps", what, 0, int64_t{1} << 40));
  DASHI_ASSIGN_OR_RETURN(spec.save_every,
                         OptionalInt(j, "save_every", 1, what, 1, int64_t{1} << 40));
  DASHI_RETURN_IF_ERROR(ParseKeep(j, spec, what));

  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* ns, ArrayField(j, "n", what));
  if (ns->empty()) return InvalidArgumentError(what + ": \"n\" is an empty array");
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < ns->size(); ++i) {
    const nlohmann::json& v = (*ns)[i];
    if (!v.is_number_integer()) {
      return InvalidArgumentError(what + ": n[" + std::to_string(i) + "] is " + JsonTypeName(v) +
                                  ", expected an integer");
    }
    if (std::find(sizes.begin(), sizes.end(), v.get<int64_t>()) != sizes.end()) {
      return InvalidArgumentError(what + ": N = " + std::to_string(v.get<int64_t>()) +
                                  " is listed twice");
    }
    sizes.push_back(v.get<int64_t>());
  }
  if (!j.contains("seeds")) return InvalidArgumentError(what + ": missing field \"seeds\"");
  DASHI_ASSIGN_OR_RETURN(std::vector<uint64_t> seeds, ParseSeeds(j, what));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* les, ArrayField(j, "les", what));
  if (les->empty()) return InvalidArgumentError(what + ": \"les\" is an empty array");
  for (size_t a = 0; a < les->size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if ((*les)[a] == (*les)[b]) {
        return InvalidArgumentError(what + ": les[" + std::to_string(a) + "] repeats les[" +
                                    std::to_string(b) + "]");
      }
    }
  }
  const int64_t total = static_cast<int64_t>(sizes.size() * les->size());
  if (total > kMaxItems || static_cast<int64_t>(seeds.size()) > kMaxItems / total) {
    return InvalidArgumentError(what + ": more than " + std::to_string(kMaxItems) + " items");
  }
  for (int64_t n : sizes) {
    if (spec.proxy) DASHI_RETURN_IF_ERROR(CheckProxyFits(*spec.proxy, n, what));
    for (size_t p = 0; p < les->size(); ++p) {
      const std::string pw = what + ": les[" + std::to_string(p) + "]";
      DASHI_ASSIGN_OR_RETURN(LesParams params, ParseLesSet((*les)[p], pw));
      params.n = n;
      if (Status st = ValidateLesParams(params); !st.ok()) {
        return InvalidArgumentError(pw + " at N = " + std::to_string(n) + ": " +
                                    std::string(st.message()));
      }
      for (uint64_t seed : seeds) {
        DatasetItem item;
        item.index = static_cast<int64_t>(spec.items.size());
        item.id = "n" + std::to_string(n) + "_p" + std::to_string(p) + "_s" + std::to_string(seed);
        item.les = params;
        item.les.seed = seed;
        spec.items.push_back(std::move(item));
      }
    }
  }
  // The .npy of the frames must stay within the reader's cap.
  for (int64_t n : sizes) {
    StatusOr<int64_t> bytes = CheckedMul(spec.frames(), n * n * 8, "frames");
    if (!bytes.ok() || *bytes > kNpyMaxDataBytes) {
      return InvalidArgumentError(what + ": " + std::to_string(spec.frames()) +
                                  " frames at N = " + std::to_string(n) +
                                  " exceed the .npy size cap of 1 TiB per array");
    }
  }
  const std::string text = spec.CanonicalSpecText();
  spec.blake2b128 = ToHex(Blake2b128(text.data(), text.size()));
  return spec;
}

StatusOr<DatasetSpec> ReadDatasetSpec(const std::string& path) {
  DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonInput(path));
  return ParseDatasetSpec(j, path);
}

int64_t ProxyDim(const DatasetSpec& spec, int64_t n) {
  if (!spec.proxy) return 0;
  StatusOr<ProxySpec> bands = ProxySpecFromAnchors(n, spec.proxy->k_lo, spec.proxy->k_mid, {});
  if (!bands.ok()) return 0;
  return 2 * (static_cast<int64_t>(bands->low_modes.size()) + spec.proxy->anchors) + 2;
}

StatusOr<int64_t> EstimateItemBytes(const DatasetSpec& spec, const DatasetItem& item) {
  const int64_t frames = spec.frames(), n = item.les.n;
  constexpr int64_t kHeader = 128;  // an .npy header of rank <= 3 is 128 bytes
  int64_t total = 16384;            // item.json, proxy.json and the output-set marker
  if (spec.keep_vorticity) {
    DASHI_ASSIGN_OR_RETURN(int64_t b, CheckedMul(frames, n * n * 8, "frames"));
    total += b + kHeader;
  }
  if (spec.keep_series) total += 3 * (frames * 8 + kHeader);
  if (spec.proxy) {
    DASHI_ASSIGN_OR_RETURN(int64_t b, CheckedMul(frames, ProxyDim(spec, n) * 8, "proxy frames"));
    total += b + kHeader + 32 * spec.proxy->anchors;
  }
  if (spec.keep_decodes) {
    DASHI_ASSIGN_OR_RETURN(int64_t b, CheckedMul(frames, n * n * 8, "decoded frames"));
    total += b + kHeader;
  }
  return total;
}

StatusOr<ShardSel> ParseShard(const std::string& text) {
  const Status bad =
      InvalidArgumentError("--shard \"" + text + "\": expected I/N with 0 <= I < N (e.g. 3/8)");
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return bad;
  auto decimal = [](const std::string& t, int64_t& v) {
    if (t.empty() || t.size() > 12 || !std::all_of(t.begin(), t.end(), ::isdigit)) return false;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  };
  ShardSel sel;
  if (!decimal(text.substr(0, slash), sel.index) || !decimal(text.substr(slash + 1), sel.count) ||
      sel.count < 1 || sel.index >= sel.count) {
    return bad;
  }
  return sel;
}

}  // namespace dashi::tools
