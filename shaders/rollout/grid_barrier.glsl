// The device-wide barrier of the persistent kernels (rollout_persistent.comp, and in
// shaders/batched: batched_persistent.comp, batched_columns.comp, batched_tiled_persistent.comp):
// arrival counters in `sync`, zeroed by the host before the submission, polled with a bounded
// spin; a workgroup that gives up sets sync[0] = 1 (the host then reports UNAVAILABLE instead of
// hanging) and every workgroup that sees the flag leaves. The including shader declares `sync`
// (coherent volatile uint[]) and `params` with sync_slot (this dispatch's counter: sync[1 +
// sync_slot]) and spin_limit, and sets grid_failed = 0 before the first barrier (from one
// invocation).
//
// Memory order (docs/MATH.md §9): every invocation fences its stores at device scope before the
// workgroup barrier that precedes the arrival; a waiter polls with atomic loads of acquire
// semantics, so its later loads are ordered after the arrivals it saw — no fence after the wait
// (an acquire poll in place of a volatile poll and a fence took 0.7–1.5 % off the tiled
// persistent step at D = 512 on an H100: docs/PERF.md "Large batches, part 13").

shared uint grid_failed;  // 1: leave (uint, not bool: a shared bool is not portable)

// Polls sync[counter] until it reaches arrivals_target, with acquire loads; 1 when this workgroup
// must leave instead: the spin limit was reached here (which sets sync[0]) or another workgroup
// reported failure (sync[0] ≠ 0, looked at every 64th poll only: a volatile load each time would
// lengthen every poll).
uint AwaitCounter(uint counter, uint arrivals_target) {
  for (uint polls = 0u;; ++polls) {
    const uint arrived =
        atomicLoad(sync[counter], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
    if (arrived >= arrivals_target) return 0u;
    if ((polls & 63u) == 63u && sync[0] != 0u) return 1u;
    if (polls + 1u >= params.spin_limit) {
      atomicOr(sync[0], 1u);
      return 1u;
    }
  }
  return 1u;
}

// The same on this dispatch's arrival counter.
uint AwaitArrivals(uint arrivals_target) {
  return AwaitCounter(1u + params.sync_slot, arrivals_target);
}

// Every invocation of the workgroup calls it, in uniform control flow; false: leave (the verdict
// is read from shared memory after a barrier, so it is uniform too). arrivals_target = (barriers
// passed in this dispatch, this one included) · (workgroups).
bool GridBarrier(uint arrivals_target) {
  memoryBarrierBuffer();  // this invocation's stores are visible device-wide before the arrival
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    atomicAdd(sync[1u + params.sync_slot], 1u);
    grid_failed = AwaitArrivals(arrivals_target);
  }
  memoryBarrierShared();
  barrier();
  return grid_failed == 0u;
}
