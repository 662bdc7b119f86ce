// fp32 3x3 stride-1 Conv by Winograd's minimal filtering F(2x2, 3x3): each
// 2x2 block of outputs ("tile") comes from a 4x4 input patch d as
// Y = A^T [ (G g G^T) .* (B^T d B) ] A, 16 multiplications per input channel
// and tile where the direct convolution needs 36, so the products become 16
// matrix products U[xi] (M x C) x V[xi] (C x tiles), 2.25x fewer
// multiply-adds in all. The filter transform U = G g G^T is done at compile
// time ([xi][M/MR][C][MR]). At run time the input is copied into stride-2
// phase planes (emit_conv_layout.h), where each of the 16 patch elements of
// VL consecutive tiles is one vector load (tiles are numbered in that phase
// space, with dropped columns, like the GEMM kernels' positions). Then each
// task takes a chunk of rows of tiles of one image, sized so that its V and
// M stay in L2 (kChunkBytes), and in the thread's workspace
//   1. computes V = B^T d B for every channel,
//   2. multiplies M[xi] = U[xi] V[xi] with the MR x NR register tiles of
//      emit_conv.cpp,
//   3. computes Y = A^T m A per output channel and row of tiles, the two
//      output columns of each tile interleaved into consecutive outputs,
//      with bias, activation and the fused residual Add, stored with
//      compile-time masks.
// The transforms only add and subtract (G's halves are applied to the
// weights), so the results differ from the direct sum by rounding alone.
#include <algorithm>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

constexpr int64_t kPoints = 16;      // 4x4 transformed points
constexpr int64_t kLineFloats = 16;  // floats per cache line
// V and M bytes of one chunk: half of a 2 MiB L2, or a quarter where all
// of U is at most 1 MiB and re-reading it for more chunks costs little
// (measured on ResNet-18: 28x28 layers 12% faster with the quarter, 14x14
// layers, 4 MiB of U, 45% slower).
constexpr int64_t kChunkBytes = 1024 * 1024, kSmallChunkBytes = 512 * 1024, kSmallUBytes = 1024 * 1024;

struct WinogradPlan {
  int64_t tiles_h = 0, tiles_w = 0;
  PhasedInput p;  // the input as stride-2 phase planes of 4x4 patches
  int64_t mblocks = 0, mpad = 0;
  int64_t rows = 0;    // rows of tiles per chunk
  int64_t chunk = 0;   // phase-space tiles per chunk, rounded up to NR
  int64_t chunks = 0;  // per image
};

WinogradPlan planFor(const ConvGeometry& c, const TargetTuning& tune) {
  WinogradPlan plan;
  const int64_t nr = tune.gemmCols();
  plan.tiles_h = (c.w.out_h + 1) / 2;
  plan.tiles_w = (c.w.out_w + 1) / 2;
  Window2 patches = c.w;
  patches.k_h = patches.k_w = 4;
  patches.stride_h = patches.stride_w = 2;
  patches.dil_h = patches.dil_w = 1;
  patches.out_h = plan.tiles_h;
  patches.out_w = plan.tiles_w;
  plan.p = phasedInput(patches, c.channels, nr);
  plan.mblocks = (c.mg + tune.gemm_rows - 1) / tune.gemm_rows;
  plan.mpad = plan.mblocks * tune.gemm_rows;
  const int64_t wq = plan.p.wq;
  const int64_t u_bytes = 4 * kPoints * plan.mpad * c.channels;
  const int64_t budget = u_bytes <= kSmallUBytes ? kSmallChunkBytes : kChunkBytes;
  const int64_t positions = std::max<int64_t>(wq, budget / 4 / (kPoints * (c.channels + plan.mpad)));
  plan.rows = std::clamp<int64_t>(positions / wq, 1, plan.tiles_h);
  plan.chunk = (plan.rows * wq + nr - 1) / nr * nr;
  plan.chunks = (plan.tiles_h + plan.rows - 1) / plan.rows;
  // The last chunk's patches read up to here past a channel's start.
  const int64_t max_tap = *std::max_element(plan.p.taps.begin(), plan.p.taps.end());
  const int64_t reach = (plan.chunks - 1) * plan.rows * wq + plan.chunk + max_tap;
  plan.p.slack = std::max(plan.p.slack, reach - plan.p.channelFloats());
  return plan;
}

Value* finishValue(StepEmitter& e, Value* v, const ConvEpilogue& ep, Value* residual) {
  v = applyActivation(e, v, ep.act);
  if (residual) v = e.b().CreateFAdd(v, residual);
  return applyActivation(e, v, ep.post_act);
}

}  // namespace

bool winogradApplies(const ConvGeometry& c) {
  const Window2& w = c.w;
  return c.group == 1 && w.k_h == 3 && w.k_w == 3 && w.stride_h == 1 && w.stride_w == 1 && w.dil_h == 1 &&
         w.dil_w == 1 && w.out_h >= 2 && w.out_w >= 2;
}

int64_t winogradCost(const ConvGeometry& c, const TargetTuning& tune) {
  const WinogradPlan plan = planFor(c, tune);
  const int64_t lanes = kPoints * plan.chunk * plan.chunks * plan.mpad * c.cg;
  // The transforms (a tenth), and every chunk streams all of U (a lane per
  // byte: fitted on ResNet-18, where 14x14 layers with 2 chunks and 4 MiB
  // of U still win by 25% and 7x7 layers, one row of 5 tiles per chunk,
  // lose by 2.7x).
  const int64_t u_bytes = 4 * kPoints * plan.mpad * c.cg;
  return lanes + lanes / 10 + u_bytes * plan.chunks;
}

void emitWinogradConv(StepBuilder& s, const ConvGeometry& c, const ConvEpilogue& ep_in) {
  ConvEpilogue ep = ep_in;
  const TargetTuning& tune = s.tuning();
  const WinogradPlan plan = planFor(c, tune);
  const PhasedInput& p = plan.p;
  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  const int64_t mblocks = plan.mblocks, mpad = plan.mpad, chunk = plan.chunk, rows = plan.rows;
  const int64_t channels = c.channels, out_channels = c.out_channels, batch = c.batch;

  // U = G g G^T, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], packed
  // [xi][mb][c][mr] with zero rows past M.
  const float* g = s.node().input(1)->constant().data<float>();
  rt::Tensor packed(rt::DType::F32, {kPoints * mblocks * channels * mr});
  float* pu = packed.data<float>();
  const float G[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
  for (int64_t m = 0; m < out_channels; ++m)
    for (int64_t ch = 0; ch < channels; ++ch) {
      const float* k = g + (m * channels + ch) * 9;
      float t[4][3];  // G g
      for (int a = 0; a < 4; ++a)
        for (int j = 0; j < 3; ++j) t[a][j] = G[a][0] * k[j] + G[a][1] * k[3 + j] + G[a][2] * k[6 + j];
      for (int a = 0; a < 4; ++a)
        for (int bb = 0; bb < 4; ++bb) {
          const float u = t[a][0] * G[bb][0] + t[a][1] * G[bb][1] + t[a][2] * G[bb][2];
          pu[(((a * 4 + bb) * mblocks + m / mr) * channels + ch) * mr + m % mr] = u;
        }
    }
  rt::Tensor bias(rt::DType::F32, {std::max<int64_t>(1, out_channels)});
  if (s.node().input(2)) std::copy_n(s.node().input(2)->constant().data<float>(), out_channels, bias.data<float>());
  const int x_slot = s.useInput(0);
  const int u_slot = s.addConstant("winograd_weights", packed);
  const int b_slot = s.addConstant("bias", bias);
  if (s.residual) ep.residual = s.use(s.residual);
  // Workspace: the phase planes; per thread V [xi][c][chunk] and M
  // [xi][mpad][chunk] (+ one vector: a chunk's last row of tiles reads past).
  // The 16 points of V and M lie a cache line more than their size apart:
  // at their size alone (a multiple of 4 KiB) the 16 vectors that a tile's
  // transform stores or loads all fall into one set of L1 (12 ways) and
  // evict each other; the input transform of ResNet-18's 56x56 layers took
  // 0.43 ms so, a quarter of the layer.
  const int64_t planes_bytes = (batch * p.imageFloats() + p.slack) * 4;
  const int64_t v_point = channels * chunk + kLineFloats, m_point = mpad * chunk + kLineFloats;
  const int64_t v_floats = kPoints * v_point;
  const int64_t thread_bytes = (v_floats + kPoints * m_point + vl) * 4;
  s.setWorkspace(planes_bytes, thread_bytes);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  emitPhasedInputPass(e, p, x_slot, batch);

  Type* vt = e.vecF32(static_cast<int>(vl));
  const int64_t row_vectors = (plan.tiles_w + vl - 1) / vl;
  // A task is (image, chunk) of the batch * chunks items; with `split`
  // (an odd number of items on two threads) the middle item becomes two
  // tasks, each with half of its output channels (MR blocks), so that the
  // first thread takes the items before it and the first half, the second
  // thread the rest. Only that item's input is transformed twice.
  const int64_t items = batch * plan.chunks, middle = items / 2, half_blocks = (mblocks + 1) / 2;
  auto emitTasks = [&](bool split) {
    e.parallelFor(items + (split ? 1 : 0), [&](Value* task) {
      Value* planes = e.sharedWorkspace(e.f32());
      Value* V = e.threadWorkspace(planes_bytes, thread_bytes, e.f32());
      Value* Mw = e.at(V, e.c64(v_floats));
      Value* index = task;
      Value* mb_lo = e.c64(0);
      Value* mb_hi = e.c64(mblocks);
      if (split) {
        index = b.CreateSub(task, b.CreateZExt(b.CreateICmpSGT(task, e.c64(middle)), e.i64()));
        mb_lo = b.CreateSelect(b.CreateICmpEQ(task, e.c64(middle + 1)), e.c64(half_blocks), e.c64(0));
        mb_hi = b.CreateSelect(b.CreateICmpEQ(task, e.c64(middle)), e.c64(half_blocks), e.c64(mblocks));
      }
      Value* m_lo = b.CreateMul(mb_lo, e.c64(mr));
      Value* m_hi = b.CreateMul(mb_hi, e.c64(mr));
      m_hi = b.CreateSelect(b.CreateICmpSLT(m_hi, e.c64(out_channels)), m_hi, e.c64(out_channels));
      Value* n = b.CreateSDiv(index, e.c64(plan.chunks));
      Value* th0 = b.CreateMul(b.CreateSRem(index, e.c64(plan.chunks)), e.c64(rows));
      Value* q_first = b.CreateMul(th0, e.c64(p.wq));

      // 1. V = B^T d B, B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
      e.loop(0, channels, [&](Value* ch) {
        Value* in_base = b.CreateAdd(
            b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(channels)), ch), e.c64(p.channelFloats())), q_first);
        e.loop(0, chunk / vl, [&](Value* block) {
          Value* q0 = b.CreateMul(block, e.c64(vl));
          Value* d[4][4];
          for (int r = 0; r < 4; ++r)
            for (int cc = 0; cc < 4; ++cc)
              d[r][cc] = e.loadVec(planes, b.CreateAdd(b.CreateAdd(in_base, q0), e.c64(p.taps[r * 4 + cc])), vl);
          Value* t[4][4];  // B^T d
          for (int cc = 0; cc < 4; ++cc) {
            t[0][cc] = b.CreateFSub(d[0][cc], d[2][cc]);
            t[1][cc] = b.CreateFAdd(d[1][cc], d[2][cc]);
            t[2][cc] = b.CreateFSub(d[2][cc], d[1][cc]);
            t[3][cc] = b.CreateFSub(d[1][cc], d[3][cc]);
          }
          for (int r = 0; r < 4; ++r) {
            Value* v[4] = {b.CreateFSub(t[r][0], t[r][2]), b.CreateFAdd(t[r][1], t[r][2]),
                           b.CreateFSub(t[r][2], t[r][1]), b.CreateFSub(t[r][1], t[r][3])};
            for (int cc = 0; cc < 4; ++cc)
              e.storeVec(v[cc], V,
                         b.CreateAdd(b.CreateAdd(e.c64((r * 4 + cc) * v_point), b.CreateMul(ch, e.c64(chunk))), q0));
          }
        });
      });

      // 2. M[xi] = U[xi] V[xi]: MR x NR tiles, the tiles of an MR block together.
      Value* U = e.tensor(u_slot, e.f32());
      e.loop(0, kPoints, [&](Value* xi) {
        e.loop(mb_lo, mb_hi, [&](Value* mb) {
          Value* xm = b.CreateAdd(b.CreateMul(xi, e.c64(mblocks)), mb);
          Value* u_base = b.CreateMul(xm, e.c64(channels * mr));
          // Row mb*mr of M[xi].
          Value* m_rows = b.CreateAdd(b.CreateMul(xi, e.c64(m_point)), b.CreateMul(mb, e.c64(mr * chunk)));
          e.loop(0, chunk / nr, [&](Value* qt) {
            Value* q0 = b.CreateMul(qt, e.c64(nr));
            Value* v_base = b.CreateAdd(b.CreateMul(xi, e.c64(v_point)), q0);
            std::vector<Value*> init(mr * nv, b.CreateVectorSplat(vl, e.cf(0)));
            // Tile qt of the chunk's nq prefetches channels [qt*C/nq, (qt+1)*C/nq)
            // of the next U block: the first tile reads a block from memory at
            // the rate of the multiply-adds, faster than the hardware prefetcher
            // runs ahead, and the other tiles read it from L1.
            const int64_t nq = chunk / nr;
            Value* prefetch_from = b.CreateSDiv(b.CreateMul(qt, e.c64(channels)), e.c64(nq));
            Value* prefetch_to = b.CreateSDiv(b.CreateMul(b.CreateAdd(qt, e.c64(1)), e.c64(channels)), e.c64(nq));
            std::vector<Value*> acc = e.loopCarry(channels, init, [&](Value* ch, const std::vector<Value*>& sums) {
              std::vector<Value*> next = sums;
              Value* vc = b.CreateAdd(v_base, b.CreateMul(ch, e.c64(chunk)));
              Value* uc = b.CreateAdd(u_base, b.CreateMul(ch, e.c64(mr)));
              Value* mine = b.CreateAnd(b.CreateICmpSGE(ch, prefetch_from), b.CreateICmpSLT(ch, prefetch_to));
              e.prefetch(U, b.CreateAdd(uc, b.CreateSelect(mine, e.c64(channels * mr), e.c64(0))));
              std::vector<Value*> cols;
              for (int64_t v = 0; v < nv; ++v) cols.push_back(e.loadVec(V, b.CreateAdd(vc, e.c64(v * vl)), vl));
              for (int64_t r = 0; r < mr; ++r) {
                Value* wv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), U, b.CreateAdd(uc, e.c64(r))));
                for (int64_t v = 0; v < nv; ++v)
                  next[r * nv + v] = e.intrinsic(Intrinsic::fmuladd, {wv, cols[v], next[r * nv + v]});
              }
              return next;
            });
            for (int64_t r = 0; r < mr; ++r)
              for (int64_t v = 0; v < nv; ++v)
                e.storeVec(acc[r * nv + v], Mw, b.CreateAdd(m_rows, b.CreateAdd(q0, e.c64(r * chunk + v * vl))));
          });
        });
      });

      // 3. Y = A^T m A, A^T = [1 1 1 0; 0 1 -1 -1], per output channel and row of tiles.
      Value* y = e.tensor(y_slot, e.f32());
      Value* res = ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr;
      e.loop(m_lo, m_hi, [&](Value* m) {
        Value* bias_v = b.CreateVectorSplat(vl, e.loadAt(e.f32(), e.tensor(b_slot, e.f32()), m));
        Value* y_plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(out_channels)), m), e.c64(c.w.out_h * c.w.out_w));
        e.loop(0, rows, [&](Value* r) {
          Value* th = b.CreateAdd(th0, r);
          e.when(b.CreateICmpSLT(th, e.c64(plan.tiles_h)), [&] {
            for (int64_t u = 0; u < row_vectors; ++u) {
              const int64_t j0 = u * vl;  // first tile column
              Value* mv[4][4];
              for (int a = 0; a < 4; ++a)
                for (int cc = 0; cc < 4; ++cc) {
                  Value* row = b.CreateAdd(e.c64((a * 4 + cc) * m_point), b.CreateMul(m, e.c64(chunk)));
                  Value* at = b.CreateAdd(row, b.CreateAdd(b.CreateMul(r, e.c64(p.wq)), e.c64(j0)));
                  mv[a][cc] = e.loadVec(Mw, at, vl);
                }
              Value* s0[4];
              Value* s1[4];
              for (int a = 0; a < 4; ++a) {
                s0[a] = b.CreateFAdd(b.CreateFAdd(mv[a][0], mv[a][1]), mv[a][2]);
                s1[a] = b.CreateFSub(b.CreateFSub(mv[a][1], mv[a][2]), mv[a][3]);
              }
              Value* out[2][2] = {
                  {b.CreateFAdd(b.CreateFAdd(s0[0], s0[1]), s0[2]), b.CreateFAdd(b.CreateFAdd(s1[0], s1[1]), s1[2])},
                  {b.CreateFSub(b.CreateFSub(s0[1], s0[2]), s0[3]), b.CreateFSub(b.CreateFSub(s1[1], s1[2]), s1[3])}};
              for (int i = 0; i < 2; ++i) {
                // Columns 2*j0 ... of output row 2*th + i: the tiles' two columns interleaved.
                std::vector<int> order;
                for (int64_t j = 0; j < vl; ++j) {
                  order.push_back(static_cast<int>(j));
                  order.push_back(static_cast<int>(vl + j));
                }
                Value* both = b.CreateShuffleVector(out[i][0], out[i][1], order);
                auto store_row = [&] {
                  Value* row_at = b.CreateAdd(
                      y_plane, b.CreateMul(b.CreateAdd(b.CreateMul(th, e.c64(2)), e.c64(i)), e.c64(c.w.out_w)));
                  for (int64_t h = 0; h < 2; ++h) {
                    const int64_t col = 2 * j0 + h * vl, lanes = std::min<int64_t>(vl, c.w.out_w - col);
                    if (lanes <= 0) continue;
                    std::vector<int> half;
                    for (int64_t j = 0; j < vl; ++j) half.push_back(static_cast<int>(h * vl + j));
                    Value* v = b.CreateFAdd(b.CreateShuffleVector(both, half), bias_v);
                    Value* at = b.CreateAdd(row_at, e.c64(col));
                    if (lanes == vl) {
                      e.storeVec(finishValue(e, v, ep, res ? e.loadVec(res, at, vl) : nullptr), y, at);
                      continue;
                    }
                    std::vector<Constant*> bits;
                    for (int64_t j = 0; j < vl; ++j) bits.push_back(b.getInt1(j < lanes));
                    Value* mask = ConstantVector::get(bits);
                    Value* rv = res ? b.CreateMaskedLoad(vt, b.CreateBitCast(e.at(res, at), vt->getPointerTo()),
                                                         Align(4), mask, ConstantAggregateZero::get(vt))
                                    : nullptr;
                    b.CreateMaskedStore(finishValue(e, v, ep, rv), b.CreateBitCast(e.at(y, at), vt->getPointerTo()),
                                        Align(4), mask);
                  }
                };
                if (i == 1 && c.w.out_h % 2 != 0)
                  e.when(b.CreateICmpSLT(th, e.c64(plan.tiles_h - 1)), store_row);
                else
                  store_row();
              }
            }
          });
        });
      });
    });
  };
  // Two threads and an odd number of items: one thread would take a chunk
  // more than the other and the other would wait (ResNet-18's 28x28 layers
  // run 7 chunks: 0.71 against 0.50 ms for the two threads' shares). Splitting every chunk's channels
  // in two instead transformed every input twice and lost (0.74 ms each).
  if (items % 2 == 0 || mblocks < 2) {
    emitTasks(false);
  } else {
    Value* two = b.CreateICmpEQ(e.numThreads(), e.c64(2));
    e.when(two, [&] { emitTasks(true); });
    e.when(b.CreateNot(two), [&] { emitTasks(false); });
  }
  e.finish();
}

}  // namespace vdla::cpu
