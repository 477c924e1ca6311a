#include "tools/golden_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "tools/cli_util.h"
#include "tools/golden/golden_set.h"
#include "tools/output_guard.h"

namespace dashi::tools {

CLI::App* AddGoldenCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* golden = app.add_subcommand(
      "golden", "Golden data: `golden generate --out DIR` writes the .npy arrays and "
                "manifest.json; `golden verify DIR` checks every file against the manifest.");
  golden->require_subcommand(1);
  auto out = std::make_shared<std::string>("golden");
  auto dir = std::make_shared<std::string>("golden");
  CLI::App* gen = golden->add_subcommand(
      "generate",
      "Compute every golden array with the reference and write DIR/*.npy and DIR/manifest.json "
      "(parameters, reference version, dtype, shape and BLAKE2b-128 of each array's data). "
      "Regenerating reproduces every byte.");
  gen->add_option("--out", *out,
                  "Output directory: missing, empty, or a golden set (its manifest.json) to "
                  "regenerate")
      ->type_name("PATH")
      ->capture_default_str();
  gen->callback([out, &run] {
    run = [out] {
      if (Status st = CheckOutputPlaces({{"--out", *out}}, {}, OutputWrite::kInPlace); !st.ok()) {
        return FailCommandLine("golden generate", st);
      }
      Status st = GenerateGoldenSet(*out, [](const std::string& stage) {
        std::fprintf(stderr, "  golden: %s\n", stage.c_str());
      });
      if (!st.ok()) return Fail("golden generate", st);
      std::printf("wrote the golden set to %s/\n", out->c_str());
      return 0;
    };
  });
  CLI::App* ver = golden->add_subcommand(
      "verify", "Check DIR against DIR/manifest.json: names every missing, corrupt or "
                "mismatching file; exit 1 if any.");
  ver->add_option("dir", *dir, "Golden directory")->type_name("PATH")->capture_default_str();
  ver->callback([dir, &run] {
    run = [dir] {
      StatusOr<GoldenReport> r = VerifyGoldenSet(*dir);
      if (!r.ok()) return Fail("golden verify", r.status());
      for (const std::string& p : r->problems) std::fprintf(stderr, "FAIL %s\n", p.c_str());
      std::printf("%s: %d of %d arrays match the manifest\n", dir->c_str(), r->ok, r->checked);
      return r->problems.empty() && r->checked > 0 ? 0 : 1;
    };
  });
  return golden;
}

}  // namespace dashi::tools
