// Items and whole datasets on disk: a generated item verifies and regenerates byte for byte; each
// planted corruption (a flipped data byte, a truncated or padded .npy, a changed header, an edited
// or garbage item.json, a missing or extra file) is named by VerifyItem; generation gives the same
// bytes for --jobs 1 and for 3 jobs of 2 LES threads, and for two shards merged; resume keeps what
// verifies; a leftover staging directory, a missing manifest, a foreign or other-spec directory and
// a disk limit are reported with the path or the estimate; kept decodes are the Decoder of each
// frame's z; symlinked items are problems; an output on, inside or around an input dataset and a
// resume as another shard are refused.
#include "tools/dataset/dataset_item.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core_ref/decode/decoder.h"
#include "core_ref/fileio/atomic_file.h"
#include "core_ref/npy/npy.h"
#include "core_ref/testing/scratch_dirs.h"
#include "json_input/json_input.h"
#include "tools/dataset/dataset_generate.h"
#include "tools/dataset/dataset_manifest.h"
#include "tools/dataset/dataset_verify.h"
#include "tools/proxy_json.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;
using dashi::testing::FileText;
using dashi::testing::FreshScratchDir;

constexpr char kSpec[] = R"({"format": "dashi-dataset-spec/1", "n": [16],
  "seeds": [3, 4, 5], "les": [{"nu0": 1e-3}, {"nu0": 2e-3, "cs": 0.1}], "steps": 4,
  "save_every": 2, "keep": {"proxy": {"k_lo": 2, "k_mid": 4, "anchors": 3}}})";

DatasetSpec Spec() {
  StatusOr<DatasetSpec> s = ParseDatasetSpec(nlohmann::json::parse(kSpec), "spec");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

std::string WriteSpecFile(const std::string& dir) {
  const std::string path = dir + "/spec_in.json";
  EXPECT_TRUE(WriteFileAtomically(path, std::string(kSpec)).ok());
  return path;
}

// Quiet generation of the spec (written into `root`) into root/<out>.
GenerateOptions QuietOptions(const std::string& root, const std::string& out) {
  GenerateOptions o;
  o.spec_path = WriteSpecFile(root);
  o.quiet = true;
  o.out = root + "/" + out;
  return o;
}

void Patch(const std::string& path, int64_t offset, char byte) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(offset);
  f.put(byte);
}

// Every regular file under `dir`, relative path → bytes.
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file())
      out[fs::relative(e.path(), dir).string()] = FileText(e.path().string());
  }
  return out;
}

TEST(DatasetItem, GeneratesVerifiesAndRegeneratesIdentically) {
  const DatasetSpec spec = Spec();
  const std::string a = FreshScratchDir("item_a"), b = FreshScratchDir("item_b");
  StatusOr<std::string> ha = GenerateItem(spec, spec.items[4], a);
  StatusOr<std::string> hb = GenerateItem(spec, spec.items[4], b);
  ASSERT_TRUE(ha.ok()) << ha.status().ToString();
  ASSERT_TRUE(hb.ok());
  EXPECT_EQ(*ha, *hb);
  const std::string dir = a + "/" + spec.items[4].id;
  EXPECT_EQ(Tree(dir), Tree(b + "/" + spec.items[4].id));
  StatusOr<std::string> v = VerifyItem(spec, spec.items[4], dir);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, *ha);
  // Another item of the same spec has other bytes: the seed reaches the data.
  StatusOr<std::string> other = GenerateItem(spec, spec.items[5], a);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(FileText(dir + "/omega.npy"), FileText(a + "/" + spec.items[5].id + "/omega.npy"));
  // The item directory of item 4 does not verify as item 5.
  EXPECT_FALSE(VerifyItem(spec, spec.items[5], dir).ok());
  const std::string manifest = FileText(dir + "/item.json");
  EXPECT_NE(manifest.find("\"data_blake2b128\""), std::string::npos);
  EXPECT_NE(manifest.find("\"compiler\""), std::string::npos);
  EXPECT_NE(manifest.find("\"reference_version\""), std::string::npos);
}

// keep.decodes: omega_decoded.npy row F is core_ref's Decoder (default parameters) applied to
// z.npy row F with t = F, bit for bit; it is hashed, verified and regenerated like every array.
TEST(DatasetItem, DecodesAreTheDecoderOfEachFrame) {
  nlohmann::json j = nlohmann::json::parse(kSpec);
  j["keep"]["decodes"] = true;
  StatusOr<DatasetSpec> s = ParseDatasetSpec(j, "spec");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const DatasetItem& item = s->items[2];
  const std::string a = FreshScratchDir("decodes_a"), b = FreshScratchDir("decodes_b");
  StatusOr<std::string> ha = GenerateItem(*s, item, a);
  ASSERT_TRUE(ha.ok()) << ha.status().ToString();
  ASSERT_TRUE(GenerateItem(*s, item, b, /*threads=*/2).ok());
  const std::string dir = a + "/" + item.id;
  EXPECT_EQ(Tree(dir), Tree(b + "/" + item.id));
  StatusOr<std::string> v = VerifyItem(*s, item, dir);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, *ha);
  const std::string manifest = FileText(dir + "/item.json");
  EXPECT_NE(manifest.find("\"file\": \"omega_decoded.npy\""), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"phase_seed\": 1"), std::string::npos) << manifest;

  StatusOr<nlohmann::json> pj = ReadJsonInput(dir + "/proxy.json");
  ASSERT_TRUE(pj.ok());
  StatusOr<ProxySpec> proxy = ProxySpecFromJson(*pj, "proxy.json");
  ASSERT_TRUE(proxy.ok()) << proxy.status().ToString();
  StatusOr<Decoder> dec = Decoder::Create(*proxy, DecodeParams{});
  ASSERT_TRUE(dec.ok());
  StatusOr<NpyArray> z = ReadNpy(dir + "/z.npy");
  StatusOr<NpyArray> w = ReadNpy(dir + "/omega_decoded.npy");
  ASSERT_TRUE(z.ok() && w.ok());
  const int64_t frames = s->frames(), n = item.les.n, dim = proxy->dim();
  ASSERT_EQ(w->shape, (std::vector<int64_t>{frames, n, n}));
  ASSERT_EQ(z->shape, (std::vector<int64_t>{frames, dim}));
  const std::vector<double> zs = *z->As<double>(), ws = *w->As<double>();
  for (int64_t f = 0; f < frames; ++f) {
    StatusOr<DecodedFrame> df =
        dec->Decode(std::span<const double>(zs).subspan(f * dim, dim), static_cast<uint64_t>(f));
    ASSERT_TRUE(df.ok());
    EXPECT_EQ(0, std::memcmp(df->omega.data(), ws.data() + f * n * n, n * n * 8)) << "frame " << f;
  }
  // Frames differ from each other (the LES moves), and from the field itself (it is a decode).
  EXPECT_NE(0, std::memcmp(ws.data(), ws.data() + n * n, n * n * 8));
  EXPECT_NE(FileText(dir + "/omega.npy"), FileText(dir + "/omega_decoded.npy"));

  // A flipped byte is named; an item without decodes does not verify under this spec.
  Patch(dir + "/omega_decoded.npy", 300, 'q');
  StatusOr<std::string> bad = VerifyItem(*s, item, dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("omega_decoded.npy: data BLAKE2b-128"), std::string::npos)
      << bad.status().ToString();
  const DatasetSpec plain = Spec();
  ASSERT_TRUE(GenerateItem(plain, plain.items[2], b).ok());
  StatusOr<std::string> other = VerifyItem(*s, item, b + "/" + item.id);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("field \"keep\""), std::string::npos)
      << other.status().ToString();
}

struct Corruption {
  const char* name;
  std::function<void(const std::string& dir)> plant;
  StatusCode code;
  const char* expect;
};

TEST(DatasetItem, EveryPlantedCorruptionIsNamed) {
  const DatasetSpec spec = Spec();
  const DatasetItem& item = spec.items[1];
  const Corruption cases[] = {
      {"flipped data byte", [](const std::string& d) { Patch(d + "/omega.npy", 200, 'x'); },
       StatusCode::kDataLoss, "omega.npy: data BLAKE2b-128"},
      {"truncated npy",
       [](const std::string& d) { fs::resize_file(d + "/z.npy", fs::file_size(d + "/z.npy") - 8); },
       StatusCode::kDataLoss, "z.npy: "},
      {"padded npy",
       [](const std::string& d) { std::ofstream(d + "/energy.npy", std::ios::app) << "x"; },
       StatusCode::kDataLoss, "truncated or padded"},
      {"header changed", [](const std::string& d) { Patch(d + "/time.npy", 20, 'X'); },
       StatusCode::kDataLoss, "header"},
      {"missing array", [](const std::string& d) { fs::remove(d + "/enstrophy.npy"); },
       StatusCode::kNotFound, "enstrophy.npy"},
      {"extra file", [](const std::string& d) { std::ofstream(d + "/notes.txt") << "hi"; },
       StatusCode::kDataLoss, "notes.txt: unexpected file"},
      {"proxy.json edited", [](const std::string& d) { Patch(d + "/proxy.json", 3, 'Q'); },
       StatusCode::kDataLoss, "proxy.json"},
      {"item.json garbage",
       [](const std::string& d) {
         ASSERT_TRUE(WriteFileAtomically(d + "/item.json", std::string("{]")).ok());
       },
       StatusCode::kInvalidArgument, "item.json"},
      {"item.json other params",
       [](const std::string& d) {
         std::string t = FileText(d + "/item.json");
         t.replace(t.find("\"steps\": 4"), 10, "\"steps\": 5");
         ASSERT_TRUE(WriteFileAtomically(d + "/item.json", t).ok());
       },
       StatusCode::kInvalidArgument, "field \"steps\""},
      {"item.json missing", [](const std::string& d) { fs::remove(d + "/item.json"); },
       StatusCode::kNotFound, "item.json"},
      {"array as a symlink to an identical copy",
       [](const std::string& d) {
         fs::copy_file(d + "/z.npy", d + "/../z_copy.npy", fs::copy_options::overwrite_existing);
         fs::remove(d + "/z.npy");
         fs::create_symlink(d + "/../z_copy.npy", d + "/z.npy");
       },
       StatusCode::kDataLoss, "z.npy: is a symbolic link"},
  };
  for (const Corruption& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string root = FreshScratchDir("item_corrupt");
    ASSERT_TRUE(GenerateItem(spec, item, root).ok());
    const std::string dir = root + "/" + item.id;
    c.plant(dir);
    StatusOr<std::string> v = VerifyItem(spec, item, dir);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), c.code) << v.status().ToString();
    EXPECT_NE(v.status().message().find(c.expect), std::string::npos) << v.status().ToString();
    // Regenerating over the damaged item repairs it.
    ASSERT_TRUE(GenerateItem(spec, item, root).ok());
    EXPECT_TRUE(VerifyItem(spec, item, dir).ok());
  }
}

TEST(Dataset, SameBytesForAnyJobsAndShardsMerged) {
  const std::string root = FreshScratchDir("dataset_jobs");
  GenerateOptions o = QuietOptions(root, "one");
  ASSERT_TRUE(GenerateDataset(o).ok());
  o.out = root + "/three";
  o.jobs = 3;
  o.threads = 2;  // 3 items at once, each LES on 2 threads
  StatusOr<GenerateSummary> s3 = GenerateDataset(o);
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->generated, 6);
  EXPECT_EQ(Tree(root + "/one"), Tree(root + "/three"));
  o.jobs = 1;
  o.threads = 1;
  for (int i = 0; i < 2; ++i) {
    o.out = root + "/shard" + std::to_string(i);
    o.shard = {i, 2};
    StatusOr<GenerateSummary> s = GenerateDataset(o);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->items, 3);
  }
  ASSERT_TRUE(MergeDatasets(root + "/merged", {root + "/shard1", root + "/shard0"}).ok());
  EXPECT_EQ(Tree(root + "/one"), Tree(root + "/merged"));
  StatusOr<VerifyReport> r = VerifyDataset({root + "/merged", 2, 9});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_EQ(r->items, 6);
  EXPECT_EQ(r->regenerated, 2);
  // Merging a shard twice, or only one of two, is refused.
  EXPECT_FALSE(MergeDatasets(root + "/m2", {root + "/shard0", root + "/shard0"}).ok());
  Status half = MergeDatasets(root + "/m3", {root + "/shard0"});
  EXPECT_NE(half.message().find("shard 1/2 is missing"), std::string::npos) << half.ToString();
}

TEST(Dataset, ResumeKeepsVerifiedItemsAndVerifyNamesEveryProblem) {
  const std::string root = FreshScratchDir("dataset_resume");
  GenerateOptions o = QuietOptions(root, "d");
  ASSERT_TRUE(GenerateDataset(o).ok());
  const auto complete = Tree(o.out);
  const std::string items = o.out + "/items/";
  // A killed run: one item gone, a staging directory left, one item corrupt, no dataset.json.
  fs::remove_all(items + "n16_p0_s4");
  fs::create_directory(items + ".n16_p0_s4.dashi-partial.host.1.abc");
  Patch(items + "n16_p1_s5/omega.npy", 300, 'y');
  StatusOr<VerifyReport> r = VerifyDataset({o.out, 0, 1});
  ASSERT_TRUE(r.ok());
  std::string all;
  for (const std::string& p : r->problems) all += p + "\n";
  EXPECT_NE(all.find("items/n16_p0_s4: no such item directory"), std::string::npos) << all;
  EXPECT_EQ(r->problems.size(), 3u) << all;
  EXPECT_NE(all.find(".n16_p0_s4.dashi-partial.host.1.abc: not an item"), std::string::npos) << all;
  EXPECT_NE(all.find("n16_p1_s5/omega.npy: data BLAKE2b-128"), std::string::npos) << all;
  fs::remove(o.out + "/dataset.json");
  StatusOr<VerifyReport> none = VerifyDataset({o.out, 0, 1});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  fs::remove_all(items + ".n16_p0_s4.dashi-partial.host.1.abc");
  StatusOr<GenerateSummary> s = GenerateDataset(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->kept, 4);
  EXPECT_EQ(s->generated, 2);
  EXPECT_EQ(Tree(o.out), complete);
  // An item of the spec that dataset.json does not list is named as missing.
  std::string m = FileText(o.out + "/dataset.json");
  const size_t first = m.find("    {");
  const size_t second = m.find("    {", first + 1);
  std::string dropped = m;
  dropped.erase(first, second - first);
  dropped.replace(dropped.find("\"item_count\": 6"), 15, "\"item_count\": 5");
  ASSERT_TRUE(WriteFileAtomically(o.out + "/dataset.json", dropped).ok());
  r = VerifyDataset({o.out, 0, 1});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find("n16_p0_s3 (index 0) of the spec is missing"), std::string::npos)
      << r->problems[0];
  // A duplicate entry in dataset.json is named.
  m.insert(second, m.substr(first, second - first));
  const size_t count = m.find("\"item_count\": 6");
  m.replace(count, 15, "\"item_count\": 7");
  ASSERT_TRUE(WriteFileAtomically(o.out + "/dataset.json", m).ok());
  r = VerifyDataset({o.out, 0, 1});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find("listed twice"), std::string::npos) << r->problems[0];
}

TEST(Dataset, RefusesForeignOtherSpecAndTooLittleDisk) {
  const std::string root = FreshScratchDir("dataset_refuse");
  GenerateOptions o = QuietOptions(root, "foreign");
  fs::create_directory(o.out);
  std::ofstream(o.out + "/mine.txt") << "precious";
  StatusOr<GenerateSummary> s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(FileText(o.out + "/mine.txt"), "precious");
  o.out = root + "/d";
  o.max_disk_bytes = 1000;
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.status().message().find("estimated at"), std::string::npos);
  EXPECT_FALSE(fs::exists(o.out));
  o.max_disk_bytes = 0;
  ASSERT_TRUE(GenerateDataset(o).ok());
  std::string other(kSpec);
  other.replace(other.find("\"steps\": 4"), 10, "\"steps\": 6");
  ASSERT_TRUE(WriteFileAtomically(root + "/other.json", other).ok());
  o.spec_path = root + "/other.json";
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("another spec"), std::string::npos) << s.status().ToString();
  // A spec.json written by hand (the spec's own text, not dashi's canonical form) read
  // "DATA_LOSS ... (edited by hand?)"; it says what it is and what to do, and nothing changes.
  o.out = root + "/hand";
  fs::create_directories(o.out);
  fs::copy_file(root + "/spec_in.json", o.out + "/spec.json");
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition) << s.status().ToString();
  EXPECT_NE(s.status().message().find(o.out + ": holds a spec.json that dashi did not write ("),
            std::string::npos)
      << s.status().ToString();
  EXPECT_NE(s.status().message().find("so it cannot match --spec: give --out a new or empty "
                                      "directory"),
            std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(FileText(o.out + "/spec.json"), FileText(root + "/spec_in.json"));
  EXPECT_FALSE(fs::exists(o.out + "/items"));
  o.spec_path = root + "/missing.json";
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("missing.json"), std::string::npos);
}

// A dataset's item directories and files must be its own: links to identical copies elsewhere
// verified before (the dataset would change with the files it points at).
TEST(Dataset, VerifyNamesSymlinkedItems) {
  const std::string root = FreshScratchDir("dataset_links");
  GenerateOptions o = QuietOptions(root, "d");
  ASSERT_TRUE(GenerateDataset(o).ok());
  const std::string item = o.out + "/items/n16_p0_s4";
  fs::rename(item, root + "/elsewhere");
  fs::create_directory_symlink(root + "/elsewhere", item);
  StatusOr<VerifyReport> r = VerifyDataset({o.out, 0, 1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find(item + ": is a symbolic link"), std::string::npos)
      << r->problems[0];
  fs::remove(item);
  fs::rename(root + "/elsewhere", item);
  fs::rename(o.out + "/spec.json", root + "/spec_elsewhere.json");
  fs::create_symlink(root + "/spec_elsewhere.json", o.out + "/spec.json");
  r = VerifyDataset({o.out, 0, 1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find(o.out + "/spec.json: is a symbolic link"), std::string::npos)
      << r->problems[0];
}

// An output inside, on or around an input dataset is refused before anything is written, naming
// both paths (a merge into sh0/items/inner used to add an extra item to sh0).
TEST(Dataset, OutputsInsideOrAroundInputDatasetsAreRefused) {
  const std::string root = FreshScratchDir("dataset_overlap");
  GenerateOptions o = QuietOptions(root, "shard0");
  o.shard = {0, 2};
  ASSERT_TRUE(GenerateDataset(o).ok());
  o.out = root + "/shard1";
  o.shard = {1, 2};
  ASSERT_TRUE(GenerateDataset(o).ok());
  const auto shard0 = Tree(root + "/shard0");
  fs::create_directory_symlink(root + "/shard0/items", root + "/link");
  const struct {
    std::string out, expect;
  } cases[] = {
      {root + "/shard0/items/inner", "merge OUT " + root + "/shard0/items/inner is inside shard "
                                     "directory " + root + "/shard0"},
      {root + "/link/inner", "is inside shard directory " + root + "/shard0"},
      {root + "/shard0", "is shard directory " + root + "/shard0"},
      {root, "merge OUT " + root + " contains shard directory"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.out);
    const Status st = MergeDatasets(c.out, {root + "/shard0", root + "/shard1"});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << st.ToString();
    EXPECT_FALSE(fs::exists(root + "/shard0/items/inner"));
    EXPECT_EQ(Tree(root + "/shard0"), shard0);
  }
  // Inside a dataset that is not an input, by merge or by generate.
  const Status st = MergeDatasets(root + "/shard1/items/x", {root + "/shard0"});
  EXPECT_NE(st.message().find("merge OUT " + root + "/shard1/items/x is inside the dataset " +
                              root + "/shard1"),
            std::string::npos)
      << st.ToString();
  EXPECT_FALSE(fs::exists(root + "/shard1/items/x"));
  o.out = root + "/shard0/items/inner";
  o.shard = {0, 1};
  StatusOr<GenerateSummary> s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--out " + o.out + " is inside the dataset " + root +
                                      "/shard0"),
            std::string::npos)
      << s.status().ToString();
  EXPECT_FALSE(fs::exists(o.out));
  EXPECT_EQ(Tree(root + "/shard0"), shard0);
  // A --spec inside --out (other than --out's own spec.json, a resume) is refused too.
  o.out = root + "/shard0";
  o.shard = {0, 2};
  o.spec_path = root + "/shard0/spec.json";
  EXPECT_TRUE(GenerateDataset(o).ok());
  fs::copy_file(root + "/spec_in.json", root + "/shard0/items/spec_in.json");
  o.spec_path = root + "/shard0/items/spec_in.json";
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("contains --spec " + o.spec_path), std::string::npos)
      << s.status().ToString();
}

// A dataset is resumed only as the shard (and spec) it was generated as: a complete one by its
// dataset.json, an incomplete one by the items it holds.
TEST(Dataset, ResumingAsAnotherShardIsRefused) {
  const std::string root = FreshScratchDir("dataset_reshard");
  GenerateOptions o = QuietOptions(root, "whole");
  ASSERT_TRUE(GenerateDataset(o).ok());
  const auto whole = Tree(o.out);
  o.shard = {1, 3};
  StatusOr<GenerateSummary> s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find(o.out + " holds shard 0/1 of this spec (" + o.out +
                                      "/dataset.json), not --shard 1/3"),
            std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(Tree(o.out), whole);
  // Incomplete (no dataset.json): the items of other shards give it away.
  fs::remove(o.out + "/dataset.json");
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("holds item n16_p0_s3 (index 0), which --shard 1/3 does "
                                      "not generate"),
            std::string::npos)
      << s.status().ToString();
  // The other way round: the whole spec onto a shard.
  o.out = root + "/part";
  ASSERT_TRUE(GenerateDataset(o).ok());
  const auto part = Tree(o.out);
  o.shard = {0, 1};
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("holds shard 1/3"), std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(Tree(o.out), part);
  // The same shard resumes; a dataset.json naming another spec hash is refused.
  o.shard = {1, 3};
  ASSERT_TRUE(GenerateDataset(o).ok());
  std::string m = FileText(o.out + "/dataset.json");
  const size_t at = m.find("\"spec_blake2b128\": \"") + 20;
  m[at] = m[at] == '0' ? '1' : '0';
  ASSERT_TRUE(WriteFileAtomically(o.out + "/dataset.json", m).ok());
  s = GenerateDataset(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("dataset.json names spec"), std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(FileText(o.out + "/dataset.json"), m);
}

}  // namespace
}  // namespace dashi::tools
