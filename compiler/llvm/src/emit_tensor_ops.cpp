// Data movement and normalisation: the reshaping operators (a copy of the
// bytes, since every tensor is contiguous row-major), Concat, and Softmax /
// LogSoftmax along one axis (max subtracted first, sums in double as the
// reference kernel computes them).
#include <cmath>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

void emitCopy(StepBuilder& s) {
  const rt::TensorType& in = s.inputType(0);
  if (in.byteSize() != s.outputType().byteSize() || in.dtype != s.outputType().dtype)
    s.fail("input " + in.toString() + " and output " + s.outputType().toString() + " differ in size");
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  const int y_slot = s.output(0);
  if (in.byteSize() > 0)
    e.b().CreateMemCpy(e.tensor(y_slot, e.i8()), MaybeAlign(1), e.tensor(x_slot, e.i8()), MaybeAlign(1),
                       e.c64(in.byteSize()));
  e.finish();
}

void emitConcat(StepBuilder& s) {
  const rt::Shape& out = s.outputType().shape;
  const int64_t rank = static_cast<int64_t>(out.size());
  int64_t axis = s.node().attrs().getInt("axis");
  if (axis < -rank || axis >= rank) s.fail("attribute 'axis' is out of range");
  if (axis < 0) axis += rank;
  const size_t elem = rt::dtypeSize(s.outputType().dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= d == axis ? 1 : out[d];
  std::vector<int> slots;
  std::vector<int64_t> widths;  // bytes per outer index of each input
  for (size_t i = 0; i < s.node().numInputs(); ++i) {
    const rt::TensorType& t = s.inputType(i);
    if (t.dtype != s.outputType().dtype) s.fail("inputs of Concat must share the output's element type");
    slots.push_back(s.useInput(i));
    widths.push_back(t.shape[axis] * inner * static_cast<int64_t>(elem));
  }
  int64_t row = 0;
  for (int64_t w : widths) row += w;
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.loop(0, outer, [&](Value* o) {
    int64_t offset = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (widths[i] > 0) {
        Value* dst = e.at(e.tensor(y_slot, e.i8()), b.CreateAdd(b.CreateMul(o, e.c64(row)), e.c64(offset)));
        Value* src = e.at(e.tensor(slots[i], e.i8()), b.CreateMul(o, e.c64(widths[i])));
        b.CreateMemCpy(dst, MaybeAlign(1), src, MaybeAlign(1), e.c64(widths[i]));
      }
      offset += widths[i];
    }
  });
  e.finish();
}

void emitSoftmax(StepBuilder& s) {
  s.requireF32();
  const bool log = s.node().op() == "LogSoftmax";
  const rt::Shape& x = s.inputType(0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  const bool legacy = s.node().attrs().getInt("legacy_2d", 0) != 0;
  int64_t axis = s.node().attrs().getInt("axis", legacy ? 1 : -1);
  if (axis < -rank || axis > (legacy ? rank : rank - 1)) s.fail("attribute 'axis' is out of range");
  if (axis < 0) axis += rank;
  int64_t outer = 1, count = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      outer *= x[d];
    else if (d == axis || legacy)
      count *= x[d];
    else
      inner *= x[d];
  }
  if (count == 0 || outer * inner == 0) s.fail("empty softmax axis");
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  Type* f64 = b.getDoubleTy();
  e.parallelFor(
      outer * inner,
      [&](Value* line) {
        Value* X = e.tensor(x_slot, e.f32());
        Value* Y = e.tensor(y_slot, e.f32());
        Value* base = b.CreateAdd(b.CreateMul(b.CreateSDiv(line, e.c64(inner)), e.c64(count * inner)),
                                  b.CreateSRem(line, e.c64(inner)));
        auto index = [&](Value* i) { return b.CreateAdd(base, b.CreateMul(i, e.c64(inner))); };
        Value* max = e.loopCarry(count, {e.cf(-INFINITY)}, [&](Value* i, const std::vector<Value*>& m) {
          Value* v = e.loadAt(e.f32(), X, index(i));
          return std::vector<Value*>{b.CreateSelect(b.CreateFCmpOLT(m[0], v), v, m[0])};  // std::max
        })[0];
        Value* sum = e.loopCarry(count, {ConstantFP::get(f64, 0.0)}, [&](Value* i, const std::vector<Value*>& acc) {
          Value* d = b.CreateFPExt(b.CreateFSub(e.loadAt(e.f32(), X, index(i)), max), f64);
          return std::vector<Value*>{b.CreateFAdd(acc[0], e.intrinsic(Intrinsic::exp, {d}))};
        })[0];
        Value* log_sum = log ? e.intrinsic(Intrinsic::log, {sum}) : nullptr;
        e.loop(0, count, [&](Value* i) {
          Value* d = b.CreateFPExt(b.CreateFSub(e.loadAt(e.f32(), X, index(i)), max), f64);
          Value* r = log ? b.CreateFSub(d, log_sum) : b.CreateFDiv(e.intrinsic(Intrinsic::exp, {d}), sum);
          e.storeAt(b.CreateFPTrunc(r, e.f32()), Y, index(i));
        });
      },
      outer * inner * count >= 16384);
  e.finish();
}

}  // namespace vdla::cpu
