#!/usr/bin/env bash
# The main job: the end-to-end pipeline on the fp64 reference, and — where a Vulkan driver exists —
# the same pipeline on the Vulkan backend after certifying the device with the conformance suite;
# the two hash chains must be equal.
#
#   bash tools/main_job.sh [OUTDIR]        (default: out)
#
# Writes OUTDIR/run_ref/, and with a device OUTDIR/conformance.json and OUTDIR/run_vulkan/.
# Certifications go to $DASHI_CERT_STORE (default here: OUTDIR/certifications).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
export DASHI_CERT_STORE=${DASHI_CERT_STORE:-$out/certifications}
dashi() { bazel run --noshow_progress --ui_event_filters=-info //tools:dashi -- "$@"; }

echo "== reference backend =="
dashi run --backend ref --out "$out/run_ref"

if ! dashi devices > "$out/devices.txt" 2>&1; then
  echo "== no Vulkan device: $(tail -1 "$out/devices.txt") — reference run only =="
  exit 0
fi
echo "== Vulkan device found =="
cat "$out/devices.txt"
echo "== conformance (certifies the device for this shader build) =="
if ! dashi conform --out "$out/conformance.json" > "$out/conform.log" 2>&1; then
  tail -5 "$out/conform.log"
  echo "the device is NOT conformant (see $out/conform.log): the Vulkan backend is not used" >&2
  exit 1
fi
tail -3 "$out/conform.log"
echo "== Vulkan backend =="
dashi run --backend vulkan --out "$out/run_vulkan"
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
seeds = sorted(os.path.basename(d) for d in glob.glob(f"{out}/run_ref/eval/seed_*"))
if not seeds:
    sys.exit(f"no eval trajectories in {out}/run_ref/eval")
for s in seeds:
    ref = json.load(open(f"{out}/run_ref/eval/{s}/chain.json"))["checkpoints"]
    vk = json.load(open(f"{out}/run_vulkan/eval/{s}/chain.json"))["checkpoints"]
    if ref != vk:
        sys.exit(f"hash chains DIFFER between the reference and the Vulkan run ({s})")
    print(f"{s}: hash chains equal, {len(ref)} checkpoints, final link {ref[-1]['link']}")
ref = json.load(open(f"{out}/run_ref/metrics.json"))["evaluation"]
vk = json.load(open(f"{out}/run_vulkan/metrics.json"))["evaluation"]
if ref != vk:
    sys.exit("the evaluation blocks of metrics.json DIFFER between the reference and the Vulkan run")
print("evaluation equal: " + ref["verdict"])
PY
