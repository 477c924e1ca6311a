// The canonical order of y = z·A (core_ref/rollout/vecmat.h, "THE CONTRACT"; docs/MATH.md §9), the
// one GLSL statement of it, #included by every shader that computes it: rollout_partials,
// rollout_combine, rollout_fused, rollout_persistent (shaders/rollout/) and batched_rollout
// (shaders/batched/). Macros rather than functions, so each shader's SPIR-V is what the same code
// written out in place gives (the kernels were tuned and certified in that form).
//
// Chunk partial. The D rows are cut into m = ceil(D / kChunk) chunks of kChunk = 64 rows (the last
// may be shorter); the partial of chunk c for output j is
//   acc = z[i0]·A[i0][j];  acc = acc + z[i]·A[i][j]  for i = i0+1 .. min(i0 + 64, D) − 1, in order,
// every product rounded to fp64 before the addition (`precise` = SPIR-V NoContraction: no FMA; the
// build checks every module for it, shaders/spirv_contract_check.py). The accumulator starts from
// the first product, never from 0 (0 + (−0) would be +0), and a partial chunk stops at D: nothing
// is added for i ≥ D, not even a zero (+0 added to −0 would change the sign).
//
// Pairwise tree. y[j] = the fixed pairwise tree over p_0 .. p_{m−1}: level by level
// (L0+L1, L2+L3, …), an odd last element carried unchanged, the lower-indexed operand on the
// left. The shaders evaluate it in one of three forms, each forming exactly these additions:
//   - level by level (rollout_fused in shared memory, rollout_persistent in shared memory or, for
//     m ≤ 32, unrolled over a register array): the level of stride s adds position c + s into c for
//     c ≡ 0 (mod 2s), c + s < m (CONTRACT_TREE_MERGES, CONTRACT_TREE_LEFT);
//   - as a binary counter (rollout_combine with a stack, batched_rollout with slots in registers):
//     partial c is pushed; while c has a trailing one bit the two newest blocks merge (two aligned
//     blocks of 2^k chunks become one of 2^(k+1)); at the end the blocks of m's binary expansion,
//     largest first, are added right to left.
// Every addition of the tree is one CONTRACT_MERGE.

// kRolloutChunk of the contract; the host static_asserts that it is 64. A shader that only folds
// partials defines ROLLOUT_CONTRACT_TREE_ONLY before the #include and goes without it: glslang
// emits a declared constant even where it is never used.
#ifndef ROLLOUT_CONTRACT_TREE_ONLY
const uint kChunk = 64u;
#endif

// The chunk partial of column j read straight from the state z and the row-major matrix A (dim
// columns): declares `precise double acc` for rows [i0, i1); idx is the index of A[i0][j] on entry
// (advanced along the rows of a partial chunk). A full chunk has a constant trip count and is
// unrolled, so the loads of A can be issued ahead of the (sequential, dependent) additions; acc is
// `precise` itself, so its additions need no temporary.
#define CONTRACT_CHUNK_PARTIAL(acc, z, a, i0, i1, idx, dim) \
  precise double acc = z[i0] * a[idx]; \
  if ((i1) - (i0) == kChunk) { \
    [[unroll]] for (uint k = 1u; k < kChunk; ++k) { \
      precise double product = z[(i0) + k] * a[(idx) + k * (dim)]; \
      acc = acc + product; \
    } \
  } else { \
    for (uint i = (i0) + 1u; i < (i1); ++i) { \
      idx += (dim); \
      precise double product = z[i] * a[idx]; \
      acc = acc + product; \
    } \
  }

// One later term of a chunk partial, in two steps: the product z[i]·A[i][j], rounded, into a new
// `precise double` named `product`; then acc = acc + product, rounded once.
#define CONTRACT_PRODUCT(product, z_i, a_ij) precise double product = (z_i) * (a_ij)
#define CONTRACT_ACCUMULATE(acc, product) \
  precise double sum = (acc) + (product); \
  acc = sum
// Both steps: acc = acc + z[i]·A[i][j].
#define CONTRACT_TERM(acc, z_i, a_ij) \
  CONTRACT_PRODUCT(product, z_i, a_ij); \
  CONTRACT_ACCUMULATE(acc, product)

// One addition of the pairwise tree: dst = left + right, rounded once; `left` is the
// lower-indexed block.
#define CONTRACT_MERGE(dst, left, right) \
  precise double merged = (left) + (right); \
  dst = merged

// The merges of the tree level of stride s (1, 2, 4, … < m) over m blocks: positions c = 2s·k
// with c + s < m, i.e. k < ceil((m − s) / 2s).
#define CONTRACT_TREE_MERGES(m, s) (((m) - (s) + 2u * (s) - 1u) / (2u * (s)))
// Where merge k of the level of stride s, for entry `col` of rows `width` wide, keeps its result
// (the left operand; the right one is CONTRACT_TREE_LEFT(...) + s·width).
#define CONTRACT_TREE_LEFT(k, s, width, col) ((2u * (s) * (k)) * (width) + (col))
