// The Vulkan twins of the reference pipeline's rollout and decode, plugged into
// core_ref/pipeline's PipelineBackends hooks (core_ref itself never sees Vulkan).
//
//   PipelineBackends hooks = VulkanPipelineHooks(*session);   // session outlives the hooks
//   RunPipeline(params, progress, hooks);
#ifndef DASHI_BACKEND_PIPELINE_HOOKS_H_
#define DASHI_BACKEND_PIPELINE_HOOKS_H_

#include "backend/vulkan_session.h"
#include "core_ref/pipeline/pipeline.h"

namespace dashi::backend {

// The eval rollouts on the batched kernel (VulkanBatchedRollout, every state read back, chains
// hashed on the host); decode with the session's precision (the decoder is created on the
// first snapshot and reused). Snapshots are read back: the pipeline compares them with the LES.
PipelineBackends VulkanPipelineHooks(VulkanSession& session);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_PIPELINE_HOOKS_H_
