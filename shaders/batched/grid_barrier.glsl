// The device-wide barrier of the batched persistent kernels (batched_columns.comp,
// batched_tiled_persistent.comp), as in rollout_persistent.comp: an arrival counter per dispatch,
// sync[1 + params.sync_slot] (zeroed by the host), polled with a bounded spin; a workgroup that
// gives up sets sync[0] = 1 (the host then reports UNAVAILABLE instead of hanging) and every
// workgroup that sees the flag leaves. The including shader declares `sync` (coherent volatile
// uint[]) and `params` with sync_slot and spin_limit, and sets grid_failed = 0 before the first
// barrier (from one invocation).

shared uint grid_failed;  // 1: leave (uint, not bool: a shared bool is not portable)

// Polls this dispatch's arrival counter until it reaches arrivals_target; 1 when this workgroup
// must leave instead (see rollout_persistent.comp).
uint AwaitArrivals(uint arrivals_target) {
  for (uint polls = 0u;; ++polls) {
    const uint arrived = sync[1u + params.sync_slot];
    if (arrived >= arrivals_target) return 0u;
    if ((polls & 63u) == 63u && sync[0] != 0u) return 1u;
    if (polls + 1u >= params.spin_limit) {
      atomicOr(sync[0], 1u);
      return 1u;
    }
  }
  return 1u;
}

// Every invocation of the workgroup calls it, in uniform control flow; false: leave.
// arrivals_target = (steps done in this dispatch) · (workgroups).
bool GridBarrier(uint arrivals_target) {
  memoryBarrierBuffer();  // this invocation's states are visible device-wide before arrival
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    atomicAdd(sync[1u + params.sync_slot], 1u);
    grid_failed = AwaitArrivals(arrivals_target);
    memoryBarrierBuffer();
  }
  memoryBarrierShared();
  barrier();
  return grid_failed == 0u;
}
