#include "tools/dataset_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/dataset/dataset_generate.h"
#include "tools/dataset/dataset_verify.h"
#include "tools/output_guard.h"

namespace dashi::tools {
namespace {

struct DatasetOptions {
  std::string spec, out, shard = "0/1", max_disk, dir, merge_out;
  std::vector<std::string> shard_dirs;
  int jobs = 1;
  int threads = 1;
  int64_t regenerate = 0;
  uint64_t seed = 1;
  bool quiet = false;
};

int RunGenerate(const DatasetOptions& o) {
  // Its --spec may be the dataset's own spec.json (a resume): GenerateDataset checks the overlap.
  if (Status st = CheckOutputPlaces({{"--out", o.out}}, {}, OutputWrite::kInPlace); !st.ok()) {
    return FailCommandLine("dataset generate", st);
  }
  GenerateOptions g;
  g.spec_path = o.spec;
  g.out = o.out;
  g.jobs = o.jobs;
  g.threads = o.threads;
  g.quiet = o.quiet;
  StatusOr<ShardSel> shard = ParseShard(o.shard);
  if (!shard.ok()) return Fail("dataset generate", shard.status());
  g.shard = *shard;
  StatusOr<int64_t> max_disk = ParseByteSize(o.max_disk, "--max-disk");
  if (!max_disk.ok()) return Fail("dataset generate", max_disk.status());
  g.max_disk_bytes = *max_disk;
  StatusOr<GenerateSummary> s = GenerateDataset(g);
  if (!s.ok()) return Fail("dataset generate", s.status());
  std::printf(
      "%s: %lld items (shard %lld/%lld): %lld generated, %lld already complete; "
      "dataset.json written\n",
      o.out.c_str(), static_cast<long long>(s->items), static_cast<long long>(g.shard.index),
      static_cast<long long>(g.shard.count), static_cast<long long>(s->generated),
      static_cast<long long>(s->kept));
  return 0;
}

int RunVerify(const DatasetOptions& o) {
  if (o.regenerate < 0) {
    return Fail("dataset verify", InvalidArgumentError("--regenerate must be >= 0"));
  }
  StatusOr<VerifyReport> r = VerifyDataset({o.dir, o.regenerate, o.seed});
  if (!r.ok()) return Fail("dataset verify", r.status());
  for (const std::string& p : r->problems) std::fprintf(stderr, "FAIL %s\n", p.c_str());
  std::printf("%s: %lld items checked, %lld regenerated identical, %zu problems\n", o.dir.c_str(),
              static_cast<long long>(r->items), static_cast<long long>(r->regenerated),
              r->problems.size());
  return r->problems.empty() ? 0 : 1;
}

int RunMerge(const DatasetOptions& o) {
  std::vector<FlaggedPath> shards;
  for (const std::string& dir : o.shard_dirs) shards.push_back({"shard directory", dir});
  if (Status st = CheckOutputPlaces({{"merge OUT", o.merge_out}}, shards, OutputWrite::kInPlace); !st.ok()) {
    return FailCommandLine("dataset merge", st);
  }
  if (Status st = MergeDatasets(o.merge_out, o.shard_dirs); !st.ok()) {
    return Fail("dataset merge", st);
  }
  std::printf("merged %zu shards into %s\n", o.shard_dirs.size(), o.merge_out.c_str());
  return 0;
}

}  // namespace

CLI::App* AddDatasetCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<DatasetOptions>();
  CLI::App* ds = app.add_subcommand(
      "dataset",
      "Datasets of LES trajectories: `dataset generate --spec spec.json --out DIR` writes every "
      "item (seed x LES parameter set x N) as .npy arrays with hashed manifests; `dataset verify "
      "DIR` checks them; `dataset merge OUT SHARD_DIR...` joins shards. See README, 'Datasets'.");
  ds->require_subcommand(1);

  CLI::App* gen = ds->add_subcommand(
      "generate",
      "Generate (or resume) a dataset: DIR/spec.json, DIR/items/<id>/ (item.json with the "
      "BLAKE2b-128 of every array's data and every file, the LES parameters, reference version "
      "and compiler; omega.npy, time/energy/enstrophy.npy, z.npy and proxy.json, "
      "omega_decoded.npy as the spec keeps), DIR/dataset.json last. Each item appears whole or "
      "not at all; a re-run keeps the items that verify and regenerates the rest. Bytes are the "
      "same for any --jobs and any --shard split. Progress (items, rate, ETA) on stderr.");
  gen->add_option(
         "--spec", o->spec,
         "The dataset spec, JSON: format \"dashi-dataset-spec/1\", n [sizes], seeds [list] or "
         "{first, count}, les [parameter sets: dt, nu0, cs, init, energy, k_peak, tg_k, "
         "tg_amplitude], steps, save_every, keep {vorticity, series, proxy {k_lo, k_mid, "
         "anchors}}; README 'Datasets' shows one")
      ->type_name("PATH")
      ->required();
  gen->add_option("--out", o->out,
                  "Dataset directory: missing, empty, or a dataset of the same spec and --shard "
                  "(resumed); never inside another dataset")
      ->type_name("PATH")
      ->required();
  gen->add_option("--shard", o->shard,
                  "I/N: generate only items whose index is I modulo N (e.g. "
                  "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT, or "
                  "$JOB_COMPLETION_INDEX/<completions> on Kubernetes); merge the N directories "
                  "with `dataset merge`")
      ->check(CLI::Validator(
          [](std::string& text) {
            StatusOr<ShardSel> s = ParseShard(text);  // "--shard \"2/2\": expected I/N ..."
            return s.ok() ? std::string() : std::string(s.status().message()).substr(8);
          },
          "I/N", "shard"))
      ->capture_default_str();
  gen->add_option("--jobs", o->jobs,
                  "Items generated at once (1..32), each by its own thread (and its LES on "
                  "--threads threads)")
      ->check(IntegerIn(1, 32))
      ->capture_default_str();
  gen->add_option("--threads", o->threads,
                  "Threads of each item's LES (1..256; FFT rows/columns and pointwise work split "
                  "over them). --jobs x --threads threads run in all. Neither changes a byte. "
                  "(`dashi run --threads` is different: LES runs at once, like --jobs here.)")
      ->check(IntegerIn(1, 256))
      ->capture_default_str();
  AddByteSizeOption(*gen, "--max-disk", o->max_disk,
                    "Refuse to start when the shard's estimated size exceeds SIZE (e.g. 20G; "
                    "units B, K, M, G, T; 0 is refused); default: no limit but the free disk "
                    "space, which is always checked");
  gen->add_flag("--quiet", o->quiet, "No progress output");
  gen->callback([o, &run] { run = [o] { return RunGenerate(*o); }; });

  CLI::App* ver = ds->add_subcommand(
      "verify",
      "Check DIR: spec.json against dataset.json, every item's every hash, items missing, extra "
      "or listed twice, leftovers of a killed run. Names each problem; exit 1 if any.");
  ver->add_option("dir", o->dir, "Dataset directory")->type_name("PATH")->required();
  ver->add_option("--regenerate", o->regenerate,
                  "Also regenerate K items chosen at random and compare every file byte for byte "
                  "(>= 0)")
      ->check(IntegerIn(0, INT64_MAX))
      ->capture_default_str();
  ver->add_option("--seed", o->seed, "Seed of the choice of items to regenerate")
      ->capture_default_str();
  ver->callback([o, &run] { run = [o] { return RunVerify(*o); }; });

  CLI::App* merge = ds->add_subcommand(
      "merge",
      "Combine the directories of shards 0..N-1 of one spec (each verified first) into OUT, "
      "byte-identical to a one-process run.");
  merge
      ->add_option("out", o->merge_out,
                   "Output directory (missing or empty; not inside, on or around a shard or any "
                   "dataset)")
      ->type_name("PATH")
      ->required();
  merge->add_option("shard_dirs", o->shard_dirs, "The shard directories, any order")
      ->type_name("PATH")
      ->required();
  merge->callback([o, &run] { run = [o] { return RunMerge(*o); }; });
  return ds;
}

}  // namespace dashi::tools
