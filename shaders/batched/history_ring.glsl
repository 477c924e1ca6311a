// The history ring of the batched persistent kernels (batched_persistent.comp,
// batched_columns.comp, batched_tiled_persistent.comp): the state after local step s (1..K) of a
// dispatch goes to history[HistorySlot(s)][b][j]. The including shader declares `params` with
// history_base (the ring slot of the state after the dispatch's first step) and history_slots.
uint HistorySlot(uint s) { return (params.history_base + s - 1u) % params.history_slots; }
