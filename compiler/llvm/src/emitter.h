// Builds the LLVM IR of one step function of the native ABI
// (runtime/include/vdla/runtime/native_abi.h): loop nests with i64 induction
// variables, loops that carry values (register accumulators), and parallel
// loops outlined into task functions that the runtime's thread pool runs.
// Operator emitters are written against the values this class hands out, so
// the same body code works in the step function and inside a task.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace vdla::cpu {

// Register blocking and vector width chosen for a target's vector unit.
struct TargetTuning {
  int vector_width = 8;  // f32 lanes of one vector register
  int gemm_rows = 6;     // output channels per micro-kernel (MR)
  int gemm_vectors = 2;  // vectors of output positions per micro-kernel (NR = vector_width * this)
  // The vector unit has min/max instructions that return NaN for a NaN
  // operand (NEON's vmax/vmin, AArch64's fmax/fmin: llvm.maximum/minimum are
  // one instruction there, while LLVM 14 cannot select them for x86).
  bool nan_propagating_minmax = false;
  int gemmCols() const { return vector_width * gemm_vectors; }
};

class StepEmitter {
 public:
  using Body = std::function<void(llvm::Value* index)>;
  using CarryBody =
      std::function<std::vector<llvm::Value*>(llvm::Value* index, const std::vector<llvm::Value*>& carried)>;

  StepEmitter(llvm::Module& module, const TargetTuning& tuning);

  // Starts `void symbol(void* const* tensors, const vdla_native_ctx* ctx)`
  // reading `num_tensors` pointers; finish() closes it.
  void begin(const std::string& symbol, int num_tensors);
  void finish();
  // Removes the function `symbol` and its task functions, however far their
  // code got, so that a node the back end cannot compile leaves the module
  // valid (the CPU fallback of target "vdla" then keeps a reference kernel).
  void abandon(const std::string& symbol);

  llvm::IRBuilder<>& b() { return builder_; }
  llvm::LLVMContext& context() { return module_.getContext(); }
  const TargetTuning& tuning() const { return tuning_; }

  llvm::Type* f32() { return builder_.getFloatTy(); }
  llvm::Type* i64() { return builder_.getInt64Ty(); }
  llvm::Type* i32() { return builder_.getInt32Ty(); }
  llvm::Type* i8() { return builder_.getInt8Ty(); }
  llvm::Type* i16() { return builder_.getInt16Ty(); }
  llvm::Value* c32(int32_t v) { return builder_.getInt32(static_cast<uint32_t>(v)); }
  llvm::VectorType* vecF32(int lanes) { return llvm::FixedVectorType::get(f32(), lanes); }
  llvm::Value* c64(int64_t v) { return builder_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value* cf(float v) { return llvm::ConstantFP::get(f32(), v); }

  // Data pointer of tensor slot `slot` as `elem*` (valid in the current function).
  llvm::Value* tensor(int slot, llvm::Type* elem);
  // The shared workspace, and this thread's workspace (inside a parallel
  // body; thread 0's part outside one), as `elem*`.
  llvm::Value* sharedWorkspace(llvm::Type* elem);
  llvm::Value* threadWorkspace(int64_t shared_bytes, int64_t thread_bytes, llvm::Type* elem);

  // Element address base[index] (index i64).
  llvm::Value* at(llvm::Value* base, llvm::Value* index);
  llvm::Value* loadAt(llvm::Type* elem, llvm::Value* base, llvm::Value* index);
  void storeAt(llvm::Value* value, llvm::Value* base, llvm::Value* index);
  // Unaligned vector load/store of `lanes` elements at base[index].
  llvm::Value* loadVec(llvm::Value* base, llvm::Value* index, int lanes);
  void storeVec(llvm::Value* value, llvm::Value* base, llvm::Value* index);

  // for (i = begin; i < end; ++i) body(i)
  void loop(llvm::Value* begin, llvm::Value* end, const Body& body);
  void loop(int64_t begin, int64_t end, const Body& body) { loop(c64(begin), c64(end), body); }
  // A loop of `count` >= 1 iterations carrying values; returns their final values.
  std::vector<llvm::Value*> loopCarry(int64_t count, const std::vector<llvm::Value*>& init, const CarryBody& body);
  // if (cond) then()
  void when(llvm::Value* cond, const std::function<void()>& then);
  // Runs body(i) for i in [0, count) spread over the thread pool when
  // `parallel`, else in a plain loop. Not nestable.
  void parallelFor(int64_t count, const Body& body, bool parallel = true);

  // The number of threads of the pool running the step (i64; in the step
  // function, outside parallel bodies): lets a step pick its split at run
  // time.
  llvm::Value* numThreads();

  // Calls an LLVM intrinsic overloaded on the type of its first argument.
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);
  // A hint to fetch the cache line of base[index] for reading (no fault
  // when the address is not mapped).
  void prefetch(llvm::Value* base, llvm::Value* index);

 private:
  struct Env {
    llvm::Function* fn = nullptr;
    std::vector<llvm::Value*> tensors;  // i8*
    llvm::Value* workspace = nullptr;   // i8*
    llvm::Value* thread = nullptr;      // i64
  };
  llvm::StructType* ctxType();
  llvm::FunctionType* taskType();

  llvm::Module& module_;
  TargetTuning tuning_;
  llvm::IRBuilder<> builder_;
  std::string symbol_;
  int num_tensors_ = 0;
  int num_tasks_ = 0;
  llvm::Value* ctx_ = nullptr;  // of the step function
  Env env_;
  bool in_task_ = false;
};

}  // namespace vdla::cpu
