#!/usr/bin/env bash
# Runs dashi's accelerator checks on a GPU host in one go: device list, the conformance suite
# (with the validation layer), the main job on the Vulkan backend next to the reference, a replay
# audit, and the Vulkan benchmarks; then the PyTorch peers if PyTorch is there.
#
# Usage (from the repository root, with prebuilt binaries in dist/ and Debian packages in .gl/):
#   tools/gpu/run_gpu_suite.sh OUTDIR
# dist/ holds dashi, rollout_vulkan_benchmark, batched_rollout_vulkan_benchmark,
# decode_vulkan_benchmark: `bazel build -c opt //tools:dashi //bench/vulkan:all`, then copy
# bazel-bin/tools/dashi and bazel-bin/bench/vulkan/*_vulkan_benchmark into dist/;
# .gl/ holds the packages tools/gpu/setup_env.sh names (apt-get download).
set -uo pipefail
out=${1:?usage: run_gpu_suite.sh OUTDIR}
mkdir -p "$out"
source tools/gpu/setup_env.sh
export DASHI_CERT_STORE="$out/store"

# The SM clock beside every figure: nvidia-smi samples it every 200 ms for the whole suite, and
# each phase's start is marked (epoch seconds) so a row can be matched with the clock it ran at.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv \
  -lms 200 > "$out/clocks.csv" 2>/dev/null &
clock_pid=$!
trap 'kill $clock_pid 2>/dev/null' EXIT
log() { echo; echo "=== $* ==="; echo "$(date -u +%FT%T.%N) $*" >> "$out/phases.txt"; }
log "host"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
log "dashi devices"; dist/dashi devices
log "dashi conform"
dist/dashi conform --golden-dir golden --out "$out/conformance.json" > "$out/conform.log" 2>&1
echo "conform exit $?"; tail -4 "$out/conform.log"; grep -E " FAIL | NOT_SUPPORTED " "$out/conform.log" | head -20
log "dashi run --backend vulkan (N=128 defaults) vs --backend ref"
dist/dashi run --backend vulkan --out "$out/run_vulkan" --quiet > "$out/run_vulkan.log" 2>&1
echo "vulkan exit $?"; cat "$out/run_vulkan.log"
dist/dashi run --backend ref --out "$out/run_ref" --quiet > "$out/run_ref.log" 2>&1
echo "ref exit $?"; tail -2 "$out/run_ref.log"
if cmp -s <(python3 -c "import json,sys;print(json.load(open('$out/run_vulkan/chain.json'))['checkpoints'])") \
          <(python3 -c "import json,sys;print(json.load(open('$out/run_ref/chain.json'))['checkpoints'])"); then
  echo "HASH CHAINS EQUAL (vulkan vs ref)"
else
  echo "HASH CHAINS DIFFER (vulkan vs ref)"
fi
log "dashi run --backend vulkan --observer metrics (the target's mode: scores on the device)"
dist/dashi run --backend vulkan --observer metrics --out "$out/run_vulkan_metrics" --quiet \
  > "$out/run_vulkan_metrics.log" 2>&1
echo "vulkan metrics exit $?"; cat "$out/run_vulkan_metrics.log"
log "the same again: set-up from the VkFFT binary cache the runs above filled"
dist/dashi run --backend vulkan --observer metrics --out "$out/run_vulkan_metrics2" --quiet \
  > "$out/run_vulkan_metrics2.log" 2>&1
echo "vulkan metrics (2nd) exit $?"; tail -3 "$out/run_vulkan_metrics2.log"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("run_vulkan", "run_vulkan_metrics", "run_vulkan_metrics2", "run_ref"):
    try:
        m = json.load(open(f"{out}/{name}/metrics.json"))
    except Exception as e:
        print(name, "no metrics.json:", e); continue
    t, d = m["timings"], m.get("device", {})
    print(f"{name}: observer {m.get('observer')} hotloop {d.get('gpu_hotloop_active')} "
          f"rollout {t.get('rollout_steps_per_s'):.0f} steps/s setup {t.get('setup_ms', 0):.1f} ms "
          f"decode {t.get('decode_ms_per_snapshot'):.3f} ms/snapshot wall {t.get('wall_ms', 0):.0f} ms")
    if "decode" in d:
        dd = d["decode"]
        print("   device decode ms", round(dd["mean_device_ms"], 4), "stages",
              {k: round(v, 4) for k, v in dd["mean_device_stage_ms"].items()},
              "readback bytes", dd.get("readback_bytes_per_snapshot"))
    if "rollout" in d:
        print("   rollout", {k: d["rollout"][k] for k in ("batch", "steps", "submissions", "device_ms", "host_ms")})
    if "setup_fft_plans" in d:
        print("   set-up FFT plans:", d["setup_fft_plans"])
PY
log "dashi audit (learned A of the run, 5000 steps)"
python3 - "$out" <<'PY'
import json, struct, sys
out = sys.argv[1]
# z0 = the first eval truth state, written as a 1-D .npy for the audit
import array
def read_npy(p):
    b = open(p, 'rb').read(); hl = struct.unpack('<H', b[8:10])[0]; hdr = b[10:10+hl].decode()
    shape = eval(hdr)['shape']; data = array.array('d'); data.frombytes(b[10+hl:]); return shape, data
shape, z = read_npy(f'{out}/run_vulkan/z_eval_truth.npy')
d = shape[1]; row = z[:d]
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % d
h = h + ' ' * (64 - (10 + len(h) + 1) % 64) + '\n'
open(f'{out}/z0.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + row.tobytes())
PY
dist/dashi audit --z0 "$out/z0.npy" --a "$out/run_vulkan/A.npy" --steps 5000 --hash-every 500 --out "$out/audit.json"
echo "audit exit $?"
log "rollout benchmark (automatic settings of each kernel)"
dist/rollout_vulkan_benchmark --wg 0 2>&1 | tee "$out/rollout_bench.log" | tail -12
log "batched rollout benchmark"
dist/batched_rollout_vulkan_benchmark 2>&1 | tee "$out/batched_bench.log" | tail -12
log "decode benchmark (N = 128, 1024, 2048; warm-up ≥ 1 s of back-to-back decodes; the closure on"
log "both paths: multi-dispatch, then one shared-memory dispatch where the grid fits)"
dist/decode_vulkan_benchmark --sizes 128,1024,2048 --warmup 20 --warmup-seconds 1.5 --reps "${DASHI_DECODE_REPS:-200}" --modes \
  --closure-plan both --json "$out/decode_bench.json" 2>&1 | tee "$out/decode_bench.log" | tail -80
if [ -x dist/les_peer_benchmark ]; then
  log "LES step on the host's cores (dashi vs the FFTW peer, threads 1..16)"
  dist/les_peer_benchmark --n 128,256,512 --threads 1,2,4,8,16 2>&1 | tee "$out/les_bench.log" | tail -30
  if python3 -c "import numpy" 2>/dev/null; then
    python3 bench/numpy/les_numpy_peer.py dist/dashi 2>&1 | tee -a "$out/les_bench.log" | tail -6
  fi
fi
if [ -z "${DASHI_SKIP_TORCH:-}" ] && python3 -c "import torch" 2>/dev/null; then
  log "PyTorch peers"; python3 tools/gpu/torch_peers.py 2>&1 | tee "$out/torch_peers.log" | tail -20
  python3 tools/gpu/torch_batched_peer.py 2>&1 | tee "$out/torch_batched.log" | tail -12
fi
tar -C "$out" -czf "$out/results.tgz" conformance.json conform.log run_vulkan/metrics.json \
  run_vulkan/chain.json run_ref/chain.json audit.json rollout_bench.log decode_bench.log \
  decode_bench.json \
  batched_bench.log $(cd "$out" && ls torch_peers.log torch_batched.log 2>/dev/null) \
  run_vulkan.log run_vulkan_metrics.log run_vulkan_metrics/metrics.json run_vulkan_metrics2.log \
  run_vulkan_metrics2/metrics.json $(cd "$out" && ls les_bench.log 2>/dev/null) clocks.csv phases.txt \
  2>/dev/null
echo "done"
