#!/usr/bin/env bash
# The contract check (spirv_contract_check.py) catches what a careless edit would plant in a
# bit-exact shader, and passes the shaders as built. Each case takes the expanded GLSL of a real
# bit-exact module, plants one violation with sed, compiles it with glslangValidator as the build
# does, and expects the check to fail naming the shader, the SPIR-V line and the GLSL line.
set -u

CHECK="$1"            # shaders/spirv_contract_check.py
FUSED_SRC="$2"        # rollout_fused_fc0_expanded.comp
FUSED_SPV="$3"        # rollout_fused_fc0.spv, as built (checked)
SMOOTH_SRC="$4"       # carrier_smooth_expanded.comp
SMOOTH_SPV="$5"       # carrier_smooth.spv, as built (checked)
WORK="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_pass NAME MODULE
expect_pass() {
  if python3 "$CHECK" "$1" "$2" 2> "$WORK/out.txt"; then
    echo "PASS: $1 obeys the contract"
  else
    fail "$1 as built was rejected:"; cat "$WORK/out.txt"
  fi
}

# expect_violation NAME SOURCE SED_SCRIPT PATTERN...: plants SED_SCRIPT into SOURCE, compiles it
# and expects the check to fail with every PATTERN (extended regex) in its message.
expect_violation() {
  local name="$1" src="$2" script="$3"
  shift 3
  local planted="$WORK/$name.comp" module="$WORK/$name.spv"
  sed -E "$script" "$src" > "$planted"
  if cmp -s "$src" "$planted"; then
    fail "$name: the sed script '$script' changed nothing (the shader changed; update the test)"
    return
  fi
  if ! glslangValidator -V --target-env vulkan1.2 -o "$module" "$planted" > "$WORK/cc.txt"; then
    fail "$name: the planted shader does not compile:"; cat "$WORK/cc.txt"
    return
  fi
  if python3 "$CHECK" "$name" "$module" --source "$planted" 2> "$WORK/out.txt"; then
    fail "$name: the check passed a planted violation"
    return
  fi
  for pattern in "$@"; do
    if ! grep -Eq "$pattern" "$WORK/out.txt"; then
      fail "$name: the message lacks /$pattern/:"; cat "$WORK/out.txt"
      return
    fi
  done
  echo "PASS: $name rejected:"; sed 's/^/    /' "$WORK/out.txt"
}

expect_pass shaders/rollout/rollout_fused_fc0 "$FUSED_SPV"
expect_pass shaders/carrier/carrier_smooth "$SMOOTH_SPV"

# An explicit fma() in the chunk partial (every addition of the contract's loop).
expect_violation rollout_fused_planted_fma "$FUSED_SRC" \
  's/acc = acc \+ product;/acc = fma(product, 1.0LF, acc);/' \
  '^rollout_fused_planted_fma: SPIR-V contract violation: fused multiply-add' \
  'at disassembly line [0-9]+: %[0-9a-z_]+ = OpExtInst %double %[0-9]+ Fma ' \
  'from GLSL shaders/rollout/rollout_fused\.comp:[0-9]+: +CONTRACT_CHUNK_PARTIAL\('

# `precise` dropped everywhere: the products and sums may then be contracted.
expect_violation rollout_fused_planted_no_precise "$FUSED_SRC" \
  's/\bprecise //g' \
  'fp64 OpFMul without NoContraction .* at disassembly line [0-9]+: %[0-9a-z_]+ = OpFMul %double' \
  'fp64 OpFAdd without NoContraction'

# The same careless edit in a carrier kernel (the smoothing's weighted sums, in its #included
# carrier_smooth_cell.glsl: the message names the included file and its line).
expect_violation carrier_smooth_planted_no_precise "$SMOOTH_SRC" \
  's/\bprecise //g' \
  'fp64 OpF(Add|Mul|Div) without NoContraction' \
  'from GLSL shaders/carrier/carrier_smooth_cell\.glsl:[0-9]+: +double term = w \* in_values'

if [ "$failures" -ne 0 ]; then
  echo "$failures case(s) failed"
  exit 1
fi
echo "all cases passed"
