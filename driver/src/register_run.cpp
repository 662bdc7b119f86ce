#include "register_run.h"

#include <cstdio>
#include <thread>

#include "vdla/hw/error.h"
#include "vdla/hw/registers.h"

namespace vdla::driver {

namespace regs = hw::regs;

void runThroughRegisters(const hw::HwConfig& cfg, RegisterWindow& regs_window, const InstructionReader& insn,
                         uint64_t insn_addr, uint32_t count, const PollTiming& timing,
                         const std::atomic<bool>& cancel) {
  auto reg = [&regs_window](uint32_t offset) { return regs_window.read32(offset); };
  startThroughRegisters(
      cfg, reg, [&regs_window](uint32_t offset, uint32_t value) { regs_window.write32(offset, value); }, insn_addr,
      count);
  // A run in which every module stays blocked on tokens or queue room, with
  // nothing changing, for deadlock_after is a deadlock: the hardware would
  // wait forever, and the timeout the caller chose may be much longer.
  uint32_t last_state = ~0u, last_tokens = ~0u, last_indices = ~0u;
  auto unchanged_since = std::chrono::steady_clock::now();
  while (true) {
    if (cancel.load(std::memory_order_relaxed)) throw Error("run cancelled");
    const uint32_t ctrl = reg(regs::kCtrl);
    if (ctrl & regs::kCtrlError) throw Error(describeRegisterError(cfg, reg, insn));
    if ((ctrl & regs::kCtrlDone) && !(ctrl & regs::kCtrlRunning)) return;
    const uint32_t state = reg(regs::kModuleState), tokens = reg(regs::kTokens);
    uint32_t indices = 0;
    for (uint32_t m = 0; m < 4; ++m) indices = indices * 31 + reg(regs::kFetchIndex + 4 * m);
    bool blocked =
        ((state & 0xf) == regs::kStFetchWaitQueue || (state & 0xf) == regs::kStFetchDone) && (state >> 4) != 0;
    for (int m = 1; m < 4; ++m) {
      const uint32_t s = (state >> (4 * m)) & 0xf;
      blocked = blocked && (s == regs::kStIdle || s == regs::kStWaitToken || s == regs::kStWaitRoom);
    }
    const auto now = std::chrono::steady_clock::now();
    if (!blocked || state != last_state || tokens != last_tokens || indices != last_indices) {
      last_state = state, last_tokens = tokens, last_indices = indices;
      unchanged_since = now;
    } else if (now - unchanged_since >= timing.deadlock_after) {
      throw Error(describeDeadlock(cfg, reg, insn));
    }
    std::this_thread::sleep_for(timing.poll_interval);
  }
}

std::string timeoutWaitingForDone(const RegisterWindow& regs_window, std::chrono::milliseconds timeout,
                                  const std::string& reset_hint) {
  const uint32_t state = regs_window.read32(regs::kModuleState);
  char text[16];
  std::snprintf(text, sizeof text, "%04x", state & 0xffff);
  return "timeout waiting for DONE: the program did not finish within " + std::to_string(timeout.count()) +
         " ms (MODULE_STATE 0x" + text + "; the accelerator may still be running: " + reset_hint + ")";
}

void BackgroundRun::finish() {
  cancel_ = true;
  if (running_.valid()) running_.wait();
  running_ = {};
}

void BackgroundRun::launch(const std::string& device, std::function<RunResult()> body) {
  if (!cancel_ && running_.valid() && running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    throw Error("launch while a program is still running on the " + device + " device (wait for it first)");
  finish();
  cancel_ = false;
  running_ = std::async(std::launch::async, [body = std::move(body)] {
    RunResult r;
    const auto start = std::chrono::steady_clock::now();
    try {
      r = body();
    } catch (const std::exception& e) {
      r.status = RunResult::Status::Error;
      r.message = e.what();
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  });
}

RunResult BackgroundRun::wait(std::chrono::milliseconds timeout, const std::function<std::string()>& timeout_message) {
  if (!running_.valid()) throw Error("wait without a launched program");
  if (running_.wait_for(timeout) != std::future_status::ready) {
    cancel_ = true;
    RunResult r;
    r.status = RunResult::Status::Timeout;
    r.message = timeout_message();
    return r;
  }
  return running_.get();
}

}  // namespace vdla::driver
