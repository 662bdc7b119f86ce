#include "emitter.h"

#include <stdexcept>

#include <llvm/IR/Intrinsics.h>

namespace vdla::cpu {

using namespace llvm;

StepEmitter::StepEmitter(Module& module, const TargetTuning& tuning)
    : module_(module), tuning_(tuning), builder_(module.getContext()) {}

StructType* StepEmitter::ctxType() {
  // vdla_native_ctx: { void* pool; parallel_for; uint8_t* workspace; int64_t num_threads }
  if (StructType* t = StructType::getTypeByName(context(), "vdla_native_ctx")) return t;
  Type* i8p = i8()->getPointerTo();
  Type* pf =
      FunctionType::get(builder_.getVoidTy(), {i8p, i64(), taskType()->getPointerTo(), i8p}, false)->getPointerTo();
  return StructType::create(context(), {i8p, pf, i8p, i64()}, "vdla_native_ctx");
}

FunctionType* StepEmitter::taskType() {
  return FunctionType::get(builder_.getVoidTy(), {i8()->getPointerTo(), i64(), i64(), i64()}, false);
}

void StepEmitter::begin(const std::string& symbol, int num_tensors) {
  symbol_ = symbol;
  num_tensors_ = num_tensors;
  num_tasks_ = 0;
  Type* i8p = i8()->getPointerTo();
  FunctionType* ft = FunctionType::get(builder_.getVoidTy(), {i8p->getPointerTo(), ctxType()->getPointerTo()}, false);
  Function* fn = Function::Create(ft, GlobalValue::ExternalLinkage, symbol, module_);
  fn->addFnAttr(Attribute::NoUnwind);
  builder_.SetInsertPoint(BasicBlock::Create(context(), "entry", fn));
  Value* tensors = fn->getArg(0);
  ctx_ = fn->getArg(1);
  // Every pointer is loaded once here: later stores through float pointers
  // could alias the array for all LLVM knows, which would block hoisting.
  env_ = Env{};
  env_.fn = fn;
  for (int i = 0; i < num_tensors; ++i)
    env_.tensors.push_back(builder_.CreateLoad(i8p, builder_.CreateConstInBoundsGEP1_64(i8p, tensors, i)));
  env_.workspace = builder_.CreateLoad(i8p, builder_.CreateStructGEP(ctxType(), ctx_, 2));
  env_.thread = c64(0);
}

void StepEmitter::finish() {
  builder_.CreateRetVoid();
  ctx_ = nullptr;
  env_ = Env{};
}

void StepEmitter::abandon(const std::string& symbol) {
  builder_.ClearInsertionPoint();
  // The step function first: it holds the only uses of its tasks.
  std::vector<Function*> doomed;
  if (Function* fn = module_.getFunction(symbol)) doomed.push_back(fn);
  for (int i = 0;; ++i) {
    Function* task = module_.getFunction(symbol + ".task" + std::to_string(i));
    if (!task) break;
    doomed.push_back(task);
  }
  for (Function* f : doomed) f->dropAllReferences();
  for (Function* f : doomed) f->eraseFromParent();
  ctx_ = nullptr;
  env_ = Env{};
  in_task_ = false;
}

Value* StepEmitter::tensor(int slot, Type* elem) {
  if (slot < 0 || slot >= static_cast<int>(env_.tensors.size()))
    throw std::logic_error("StepEmitter: tensor slot " + std::to_string(slot) + " out of range");
  return builder_.CreateBitCast(env_.tensors[slot], elem->getPointerTo());
}

Value* StepEmitter::sharedWorkspace(Type* elem) { return builder_.CreateBitCast(env_.workspace, elem->getPointerTo()); }

Value* StepEmitter::threadWorkspace(int64_t shared_bytes, int64_t thread_bytes, Type* elem) {
  Value* offset = builder_.CreateAdd(c64(shared_bytes), builder_.CreateMul(env_.thread, c64(thread_bytes)));
  Value* p = builder_.CreateInBoundsGEP(i8(), env_.workspace, offset);
  return builder_.CreateBitCast(p, elem->getPointerTo());
}

Value* StepEmitter::at(Value* base, Value* index) {
  return builder_.CreateInBoundsGEP(base->getType()->getPointerElementType(), base, index);
}

Value* StepEmitter::loadAt(Type* elem, Value* base, Value* index) { return builder_.CreateLoad(elem, at(base, index)); }

void StepEmitter::storeAt(Value* value, Value* base, Value* index) { builder_.CreateStore(value, at(base, index)); }

Value* StepEmitter::loadVec(Value* base, Value* index, int lanes) {
  Type* elem = base->getType()->getPointerElementType();
  Type* vt = FixedVectorType::get(elem, lanes);
  Value* p = builder_.CreateBitCast(at(base, index), vt->getPointerTo());
  return builder_.CreateAlignedLoad(vt, p, MaybeAlign(elem->getPrimitiveSizeInBits() / 8));
}

void StepEmitter::storeVec(Value* value, Value* base, Value* index) {
  Type* elem = base->getType()->getPointerElementType();
  Value* p = builder_.CreateBitCast(at(base, index), value->getType()->getPointerTo());
  builder_.CreateAlignedStore(value, p, MaybeAlign(elem->getPrimitiveSizeInBits() / 8));
}

void StepEmitter::loop(Value* begin, Value* end, const Body& body) {
  Function* fn = builder_.GetInsertBlock()->getParent();
  BasicBlock* pre = builder_.GetInsertBlock();
  BasicBlock* body_bb = BasicBlock::Create(context(), "loop", fn);
  BasicBlock* exit = BasicBlock::Create(context(), "loop.end", fn);
  builder_.CreateCondBr(builder_.CreateICmpSLT(begin, end), body_bb, exit);
  builder_.SetInsertPoint(body_bb);
  PHINode* iv = builder_.CreatePHI(i64(), 2, "i");
  iv->addIncoming(begin, pre);
  body(iv);
  Value* next = builder_.CreateAdd(iv, c64(1), "", true, true);
  iv->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateICmpSLT(next, end), body_bb, exit);
  builder_.SetInsertPoint(exit);
}

std::vector<Value*> StepEmitter::loopCarry(int64_t count, const std::vector<Value*>& init, const CarryBody& body) {
  if (count < 1) throw std::logic_error("StepEmitter::loopCarry needs at least one iteration");
  Function* fn = builder_.GetInsertBlock()->getParent();
  BasicBlock* pre = builder_.GetInsertBlock();
  BasicBlock* body_bb = BasicBlock::Create(context(), "kloop", fn);
  BasicBlock* exit = BasicBlock::Create(context(), "kloop.end", fn);
  builder_.CreateBr(body_bb);
  builder_.SetInsertPoint(body_bb);
  PHINode* iv = builder_.CreatePHI(i64(), 2, "k");
  iv->addIncoming(c64(0), pre);
  std::vector<PHINode*> phis;
  std::vector<Value*> carried;
  for (Value* v : init) {
    PHINode* p = builder_.CreatePHI(v->getType(), 2);
    p->addIncoming(v, pre);
    phis.push_back(p);
    carried.push_back(p);
  }
  std::vector<Value*> next_values = body(iv, carried);
  Value* next = builder_.CreateAdd(iv, c64(1), "", true, true);
  BasicBlock* latch = builder_.GetInsertBlock();
  iv->addIncoming(next, latch);
  for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next_values[i], latch);
  builder_.CreateCondBr(builder_.CreateICmpSLT(next, c64(count)), body_bb, exit);
  builder_.SetInsertPoint(exit);
  return next_values;
}

void StepEmitter::when(Value* cond, const std::function<void()>& then) {
  Function* fn = builder_.GetInsertBlock()->getParent();
  BasicBlock* then_bb = BasicBlock::Create(context(), "then", fn);
  BasicBlock* done = BasicBlock::Create(context(), "endif", fn);
  builder_.CreateCondBr(cond, then_bb, done);
  builder_.SetInsertPoint(then_bb);
  then();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

void StepEmitter::parallelFor(int64_t count, const Body& body, bool parallel) {
  if (count <= 0) return;
  if (!parallel || count == 1 || in_task_) {
    loop(0, count, body);
    return;
  }
  Type* i8p = i8()->getPointerTo();
  // The closure: the step's tensor pointers, then the workspace.
  ArrayType* closure_type = ArrayType::get(i8p, num_tensors_ + 1);
  Value* closure;
  {
    IRBuilder<> entry(&env_.fn->getEntryBlock(), env_.fn->getEntryBlock().begin());
    closure = entry.CreateAlloca(closure_type);
  }
  for (int i = 0; i <= num_tensors_; ++i)
    builder_.CreateStore(i < num_tensors_ ? env_.tensors[i] : env_.workspace,
                         builder_.CreateConstInBoundsGEP2_64(closure_type, closure, 0, i));

  Function* task = Function::Create(taskType(), GlobalValue::InternalLinkage,
                                    symbol_ + ".task" + std::to_string(num_tasks_++), module_);
  task->addFnAttr(Attribute::NoUnwind);
  const Env saved = env_;
  IRBuilderBase::InsertPoint saved_ip = builder_.saveIP();
  builder_.SetInsertPoint(BasicBlock::Create(context(), "entry", task));
  Value* slots = builder_.CreateBitCast(task->getArg(0), i8p->getPointerTo());
  env_ = Env{};
  env_.fn = task;
  for (int i = 0; i < num_tensors_; ++i)
    env_.tensors.push_back(builder_.CreateLoad(i8p, builder_.CreateConstInBoundsGEP1_64(i8p, slots, i)));
  env_.workspace = builder_.CreateLoad(i8p, builder_.CreateConstInBoundsGEP1_64(i8p, slots, num_tensors_));
  env_.thread = task->getArg(3);
  in_task_ = true;
  loop(task->getArg(1), task->getArg(2), body);
  builder_.CreateRetVoid();
  in_task_ = false;
  env_ = saved;
  builder_.restoreIP(saved_ip);

  Value* pool = builder_.CreateLoad(i8p, builder_.CreateStructGEP(ctxType(), ctx_, 0));
  Type* pf_type = ctxType()->getElementType(1);
  Value* pf = builder_.CreateLoad(pf_type, builder_.CreateStructGEP(ctxType(), ctx_, 1));
  builder_.CreateCall(FunctionType::get(builder_.getVoidTy(), {i8p, i64(), taskType()->getPointerTo(), i8p}, false), pf,
                      {pool, c64(count), task, builder_.CreateBitCast(closure, i8p)});
}

Value* StepEmitter::numThreads() {
  if (in_task_ || !ctx_) throw std::logic_error("StepEmitter::numThreads outside the step function");
  return builder_.CreateLoad(i64(), builder_.CreateStructGEP(ctxType(), ctx_, 3));
}

Value* StepEmitter::intrinsic(Intrinsic::ID id, std::vector<Value*> args) {
  Function* f = Intrinsic::getDeclaration(&module_, id, {args.front()->getType()});
  return builder_.CreateCall(f, args);
}

void StepEmitter::prefetch(Value* base, Value* index) {
  Value* address = builder_.CreateBitCast(at(base, index), builder_.getInt8PtrTy());
  // Read, high temporal locality (into L1), data cache.
  intrinsic(Intrinsic::prefetch, {address, c32(0), c32(3), c32(1)});
}

}  // namespace vdla::cpu
