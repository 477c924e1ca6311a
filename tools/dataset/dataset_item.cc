#include "tools/dataset/dataset_item.h"

#include <bit>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "backend/provenance.h"
#include "core_ref/blake2b/blake2b.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/file_digest.h"
#include "core_ref/fileio/output_set.h"
#include "core_ref/npy/npy.h"
#include "core_ref/npy/npy_stream_writer.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "json_input/json_input.h"
#include "tools/decode_options.h"
#include "tools/les_options.h"
#include "tools/proxy_json.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

// The hashes below are of the bytes as .npy stores them (little-endian); a big-endian host would
// need a byte swap before hashing.
static_assert(std::endian::native == std::endian::little, "dataset hashes assume little-endian");

std::string HashHex(std::span<const uint8_t> bytes) {
  return ToHex(Blake2b128(bytes.data(), bytes.size()));
}

nlohmann::json ArrayEntry(const std::string& file, std::span<const int64_t> shape, int64_t bytes,
                          const std::string& data_hash, const std::string& file_hash) {
  return {{"file", file},
          {"dtype", NpyDescr(NpyDtype::kF8)},
          {"shape", std::vector<int64_t>(shape.begin(), shape.end())},
          {"bytes", bytes},
          {"data_blake2b128", data_hash},
          {"file_blake2b128", file_hash}};
}

// An fp64 .npy streamed to disk while both of its hashes are computed.
class HashedNpyStream {
 public:
  static StatusOr<HashedNpyStream> Create(const std::string& dir, std::string file,
                                          std::vector<int64_t> shape) {
    DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> header, NpyHeader(NpyDtype::kF8, shape));
    DASHI_ASSIGN_OR_RETURN(NpyF64StreamWriter w,
                           NpyF64StreamWriter::Create(dir + "/" + file, shape));
    DASHI_ASSIGN_OR_RETURN(Blake2b whole, Blake2b::Create(16));
    DASHI_ASSIGN_OR_RETURN(Blake2b data, Blake2b::Create(16));
    whole.Update(header);
    return HashedNpyStream(std::move(file), std::move(shape), static_cast<int64_t>(header.size()),
                           std::move(w), whole, data);
  }
  Status Append(std::span<const double> v) {
    DASHI_RETURN_IF_ERROR(writer_.Append(v));
    whole_.Update(v.data(), v.size_bytes());
    data_.Update(v.data(), v.size_bytes());
    bytes_ += static_cast<int64_t>(v.size_bytes());
    return OkStatus();
  }
  StatusOr<nlohmann::json> Finish() {
    DASHI_RETURN_IF_ERROR(writer_.Finish());
    return ArrayEntry(file_, shape_, bytes_, ToHex(data_.Finalize()), ToHex(whole_.Finalize()));
  }

 private:
  HashedNpyStream(std::string file, std::vector<int64_t> shape, int64_t header_bytes,
                  NpyF64StreamWriter w, Blake2b whole, Blake2b data)
      : file_(std::move(file)),
        shape_(std::move(shape)),
        bytes_(header_bytes),
        writer_(std::move(w)),
        whole_(whole),
        data_(data) {}
  std::string file_;
  std::vector<int64_t> shape_;
  int64_t bytes_;
  NpyF64StreamWriter writer_;
  Blake2b whole_, data_;
};

StatusOr<nlohmann::json> WriteSeries(const std::string& dir, const std::string& file,
                                     const std::vector<double>& v) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, NpyArray::FromF64({static_cast<int64_t>(v.size())}, v));
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, SerializeNpy(a));
  DASHI_RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + file, bytes));
  return ArrayEntry(file, a.shape, static_cast<int64_t>(bytes.size()), HashHex(a.data),
                    HashHex(bytes));
}

// The part of item.json fixed by the spec and the item: what VerifyItem compares.
nlohmann::json ItemHead(const DatasetSpec& spec, const DatasetItem& item) {
  nlohmann::json keep = {
      {"vorticity", spec.keep_vorticity}, {"series", spec.keep_series}, {"proxy", nullptr}};
  if (spec.proxy) {
    keep["proxy"] = {
        {"k_lo", spec.proxy->k_lo}, {"k_mid", spec.proxy->k_mid}, {"anchors", spec.proxy->anchors}};
  }
  // Only when on, so that item.json of a spec without decodes keeps its bytes.
  if (spec.keep_decodes) {
    keep["decodes"] = {{"params", DecodeParamsJson(DecodeParams{})}, {"t", "frame index"}};
  }
  return {{"format", kDatasetItemFormat}, {"id", item.id},
          {"index", item.index},          {"params", LesParamsJson(item.les)},
          {"steps", spec.steps},          {"save_every", spec.save_every},
          {"frames", spec.frames()},      {"keep", keep}};
}

std::vector<std::string> ExpectedArrays(const DatasetSpec& spec) {
  std::vector<std::string> files;
  if (spec.keep_vorticity) files.push_back("omega.npy");
  if (spec.keep_series) {
    for (const char* f : {"time.npy", "energy.npy", "enstrophy.npy"}) files.push_back(f);
  }
  if (spec.proxy) files.push_back("z.npy");
  if (spec.keep_decodes) files.push_back("omega_decoded.npy");
  return files;
}

std::string ItemText(const nlohmann::json& j) { return j.dump(2) + "\n"; }

}  // namespace

StatusOr<std::string> GenerateItem(const DatasetSpec& spec, const DatasetItem& item,
                                   const std::string& items_dir, int threads,
                                   std::vector<std::string>* removed_stale) {
  const std::string final_dir = items_dir + "/" + item.id;
  // The item's directory is the dataset's own: whatever its marker does not record is damage
  // (dataset verify names it) that this regeneration replaces.
  DASHI_ASSIGN_OR_RETURN(OutputSet out, OutputSet::ForDirectory(final_dir, "dataset generate",
                                                                OutputSet::Unrecorded::kReplace));
  if (removed_stale != nullptr) {
    removed_stale->insert(removed_stale->end(), out.removed_stale().begin(),
                          out.removed_stale().end());
  }
  const std::string dir = out.staging();
  const int64_t n = item.les.n, frames = spec.frames();
  std::optional<HashedNpyStream> omega, z, decoded;
  if (spec.keep_vorticity) {
    DASHI_ASSIGN_OR_RETURN(HashedNpyStream s,
                           HashedNpyStream::Create(dir, "omega.npy", {frames, n, n}));
    omega.emplace(std::move(s));
  }
  std::optional<ProxySpec> proxy;
  std::optional<Decoder> decoder;
  if (spec.keep_decodes) {
    DASHI_ASSIGN_OR_RETURN(HashedNpyStream s,
                           HashedNpyStream::Create(dir, "omega_decoded.npy", {frames, n, n}));
    decoded.emplace(std::move(s));
  }
  std::vector<double> times, energy, enstrophy;
  Status st = SimulateFrames(
      item.les, spec.steps, spec.save_every,
      [&](const LesFrame& f) -> Status {
        if (omega) DASHI_RETURN_IF_ERROR(omega->Append(*f.omega));
        times.push_back(f.time);
        energy.push_back(f.energy);
        enstrophy.push_back(f.enstrophy);
        if (spec.proxy) {
          if (f.index == 0) {
            // The anchors are the item's own: chosen from its frame 0.
            DASHI_ASSIGN_OR_RETURN(ProxySpec p,
                                   MakeProxySpec(n, spec.proxy->k_lo, spec.proxy->k_mid,
                                                 spec.proxy->anchors, *f.omega));
            proxy = std::move(p);
            DASHI_ASSIGN_OR_RETURN(HashedNpyStream s,
                                   HashedNpyStream::Create(dir, "z.npy", {frames, proxy->dim()}));
            z.emplace(std::move(s));
            if (decoded) {
              DASHI_ASSIGN_OR_RETURN(Decoder d, Decoder::Create(*proxy, DecodeParams{}));
              decoder.emplace(std::move(d));
            }
          }
          DASHI_ASSIGN_OR_RETURN(std::vector<double> zf, Encode(*proxy, *f.omega));
          DASHI_RETURN_IF_ERROR(z->Append(zf));
          if (decoder) {
            // t = the frame index, as `dashi decode --z z.npy --frame F` decodes row F.
            DASHI_ASSIGN_OR_RETURN(DecodedFrame df,
                                   decoder->Decode(zf, static_cast<uint64_t>(f.index)));
            DASHI_RETURN_IF_ERROR(decoded->Append(df.omega));
          }
        }
        return OkStatus();
      },
      {}, threads);
  if (!st.ok()) return Status(st.code(), item.id + ": " + std::string(st.message()));
  nlohmann::json arrays = nlohmann::json::array();
  nlohmann::json files = nlohmann::json::array();
  if (omega) {
    DASHI_ASSIGN_OR_RETURN(nlohmann::json e, omega->Finish());
    arrays.push_back(std::move(e));
  }
  if (spec.keep_series) {
    for (auto& [name, v] : {std::pair<const char*, const std::vector<double>*>{"time.npy", &times},
                            {"energy.npy", &energy},
                            {"enstrophy.npy", &enstrophy}}) {
      DASHI_ASSIGN_OR_RETURN(nlohmann::json e, WriteSeries(dir, name, *v));
      arrays.push_back(std::move(e));
    }
  }
  if (z) {
    DASHI_ASSIGN_OR_RETURN(nlohmann::json e, z->Finish());
    arrays.push_back(std::move(e));
    if (decoded) {
      DASHI_ASSIGN_OR_RETURN(nlohmann::json d, decoded->Finish());
      arrays.push_back(std::move(d));
    }
    const std::string text = ProxySpecJson(*proxy).dump(2) + "\n";
    DASHI_RETURN_IF_ERROR(WriteFileAtomically(dir + "/proxy.json", text));
    files.push_back(
        {{"file", "proxy.json"},
         {"bytes", text.size()},
         {"blake2b128", HashHex({reinterpret_cast<const uint8_t*>(text.data()), text.size()})}});
  }
  nlohmann::json manifest = ItemHead(spec, item);
  manifest["arrays"] = std::move(arrays);
  manifest["files"] = std::move(files);
  manifest["provenance"] = backend::ReferenceProvenance("ref");
  const std::string text = ItemText(manifest);
  DASHI_RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + kItemManifestName, text));
  DASHI_RETURN_IF_ERROR(out.Commit());
  return HashHex({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

StatusOr<std::string> VerifyItem(const DatasetSpec& spec, const DatasetItem& item,
                                 const std::string& item_dir) {
  const std::string manifest_path = item_dir + "/" + kItemManifestName;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(item_dir, ec))) {
    return DataLossError(item_dir +
                         ": is a symbolic link (an item is a plain directory of its "
                         "dataset, not a link to files elsewhere)");
  }
  if (!fs::is_directory(item_dir, ec)) return NotFoundError(item_dir + ": no such item directory");
  // Checked before a byte is read: a link would make another file's bytes this item's.
  for (fs::directory_iterator it(item_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (!ec && !fs::is_regular_file(st)) {
      return DataLossError(
          it->path().string() +
          (fs::is_symlink(st) ? ": is a symbolic link" : ": is not a regular file") +
          " (an item holds plain files only)");
    }
  }
  if (ec) return UnavailableError(item_dir + ": cannot list: " + ec.message());
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes(manifest_path));
  DASHI_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonInput(bytes, manifest_path));
  if (!j.is_object()) return InvalidArgumentError(manifest_path + ": not a JSON object");
  const nlohmann::json head = ItemHead(spec, item);
  for (auto it = head.begin(); it != head.end(); ++it) {
    if (!j.contains(it.key()) || j[it.key()] != it.value()) {
      return InvalidArgumentError(manifest_path + ": field \"" + it.key() + "\" is " +
                                  (j.contains(it.key()) ? j[it.key()].dump() : "missing") +
                                  ", expected " + it.value().dump() + " for item " + item.id);
    }
  }
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* arrays, ArrayField(j, "arrays", manifest_path));
  DASHI_ASSIGN_OR_RETURN(const nlohmann::json* files, ArrayField(j, "files", manifest_path));
  std::set<std::string> listed = {kItemManifestName, kOutputSetMarker};
  std::vector<std::string> array_names;
  for (const nlohmann::json& a : *arrays) {
    if (!a.is_object())
      return InvalidArgumentError(manifest_path + ": an array entry is not an object");
    DASHI_ASSIGN_OR_RETURN(std::string file, StringField(a, "file", manifest_path));
    const std::string path = item_dir + "/" + file;
    const std::string what = manifest_path + " (" + file + ")";
    DASHI_ASSIGN_OR_RETURN(std::string dtype, StringField(a, "dtype", what));
    DASHI_ASSIGN_OR_RETURN(const nlohmann::json* shape_json, ArrayField(a, "shape", what));
    std::vector<int64_t> shape;
    int64_t elements = 1;
    for (const nlohmann::json& d : *shape_json) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (uint64_t{1} << 40)) {
        return InvalidArgumentError(what + ": shape " + shape_json->dump() + " is not valid");
      }
      shape.push_back(d.get<int64_t>());
      if (shape.back() != 0 && elements > kNpyMaxDataBytes / shape.back()) {
        return InvalidArgumentError(what + ": shape " + shape_json->dump() + " is too large");
      }
      elements *= shape.back();
    }
    if (dtype != NpyDescr(NpyDtype::kF8) || shape.size() > 3) {
      return InvalidArgumentError(what + ": dtype " + dtype + " with rank " +
                                  std::to_string(shape.size()) + " is not a dataset array");
    }
    DASHI_ASSIGN_OR_RETURN(int64_t bytes_listed, IntField(a, "bytes", what, 0));
    DASHI_ASSIGN_OR_RETURN(std::string data_hash, StringField(a, "data_blake2b128", what));
    DASHI_ASSIGN_OR_RETURN(std::string file_hash, StringField(a, "file_blake2b128", what));
    DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> header, NpyHeader(NpyDtype::kF8, shape));
    const int64_t hb = static_cast<int64_t>(header.size());
    DASHI_ASSIGN_OR_RETURN(FileDigest d, DigestFile(path, hb, hb));
    const int64_t expected_size = hb + elements * 8;
    if (d.size != expected_size || bytes_listed != expected_size) {
      return DataLossError(path + ": " + std::to_string(d.size) + " bytes, expected " +
                           std::to_string(expected_size) + " for shape " + NpyShapeString(shape) +
                           " (truncated or padded)");
    }
    if (d.head != header) {
      return DataLossError(path + ": the .npy header is not the one of a <f8 array of shape " +
                           NpyShapeString(shape));
    }
    if (d.tail_blake2b128 != data_hash) {
      return DataLossError(path + ": data BLAKE2b-128 " + d.tail_blake2b128 + " != " + data_hash +
                           " recorded in " + manifest_path);
    }
    if (d.file_blake2b128 != file_hash) {
      return DataLossError(path + ": file BLAKE2b-128 " + d.file_blake2b128 + " != " + file_hash +
                           " recorded in " + manifest_path);
    }
    if (!listed.insert(file).second) return InvalidArgumentError(what + ": listed twice");
    array_names.push_back(file);
  }
  if (array_names != ExpectedArrays(spec)) {
    return InvalidArgumentError(manifest_path + ": lists arrays " +
                                nlohmann::json(array_names).dump() + ", the spec keeps " +
                                nlohmann::json(ExpectedArrays(spec)).dump());
  }
  for (const nlohmann::json& f : *files) {
    if (!f.is_object())
      return InvalidArgumentError(manifest_path + ": a file entry is not an object");
    DASHI_ASSIGN_OR_RETURN(std::string file, StringField(f, "file", manifest_path));
    if (file != "proxy.json" || !spec.proxy || !listed.insert(file).second) {
      return InvalidArgumentError(manifest_path + ": unexpected file entry \"" + file + "\"");
    }
    const std::string path = item_dir + "/" + file;
    DASHI_ASSIGN_OR_RETURN(int64_t bytes_listed, IntField(f, "bytes", manifest_path, 0));
    DASHI_ASSIGN_OR_RETURN(std::string hash, StringField(f, "blake2b128", manifest_path));
    DASHI_ASSIGN_OR_RETURN(FileDigest d, DigestFile(path));
    if (d.size != bytes_listed || d.file_blake2b128 != hash) {
      return DataLossError(path + ": " + std::to_string(d.size) + " bytes with BLAKE2b-128 " +
                           d.file_blake2b128 + ", " + manifest_path + " records " +
                           std::to_string(bytes_listed) + " bytes with " + hash);
    }
  }
  if (spec.proxy && listed.count("proxy.json") == 0) {
    return InvalidArgumentError(manifest_path + ": does not list proxy.json");
  }
  for (fs::directory_iterator it(item_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (listed.count(name) == 0) {
      return DataLossError(item_dir + "/" + name + ": unexpected file in an item directory");
    }
  }
  if (ec) return UnavailableError(item_dir + ": cannot list: " + ec.message());
  return HashHex(bytes);
}

}  // namespace dashi::tools
