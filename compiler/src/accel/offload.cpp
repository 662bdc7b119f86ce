// The packed layouts an offloaded layer's program reads and writes.
#include "vdla/compiler/accel/lowering.h"

namespace vdla::accel {

rt::accel::PackedGeometry Offload::inputGeometry(const hw::HwConfig& cfg) const {
  // A max pooling loads its input into the accumulators (LOAD ACC8): entries of block_out channels.
  // (block_in on a config with an interleave: configInterleave).
  if (pool)
    return rt::accel::packedGeometry({pool->n, pool->c, pool->h, pool->w}, cfg.batch,
                                     configInterleave(cfg) * cfg.block_out);
  if (add) return outputGeometry(cfg);  // so does an addition, both operands
  if (global_pool)
    return rt::accel::packedGeometry({global_pool->n, global_pool->c, global_pool->h, global_pool->w}, cfg.batch,
                                     configInterleave(cfg) * cfg.block_out);
  // (A fused expansion reads the layer's input: expanded_depthwise.h.)
  const ConvLayer& L = form.layer.expansion ? *form.layer.expansion : form.layer;
  return rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, cfg.block_in);
}

rt::accel::PackedGeometry Offload::outputGeometry(const hw::HwConfig& cfg) const {
  if (pool)
    return rt::accel::packedGeometry({pool->n, pool->c, pool->oh, pool->ow}, cfg.batch,
                                     configInterleave(cfg) * cfg.block_out);
  if (add)
    return rt::accel::packedGeometry({add->n, add->c, add->h, add->w}, cfg.batch,
                                     configInterleave(cfg) * cfg.block_out);
  if (global_pool)
    return rt::accel::packedGeometry({global_pool->n, global_pool->c, 1, 1}, cfg.batch,
                                     configInterleave(cfg) * cfg.block_out);
  const ConvLayer& L = form.layer;
  // In block_in entries when the layer interleaves its output (the next layer's packing).
  return rt::accel::packedGeometry({L.n, L.o, L.oh, L.ow}, cfg.batch, outputInterleave(L, cfg) * cfg.block_out);
}

}  // namespace vdla::accel
