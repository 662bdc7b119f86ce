#pragma once
// The run loop of the backends that reach an accelerator running on its own
// clock only through its AXI-Lite registers (pynq: a mapped register window;
// xrt: XRT's register access), so that both speak exactly one protocol:
// configuration hash check, read-back of address and count, START, polling
// CTRL, errors and deadlocks explained from the status registers, and a
// worker thread so that wait() honours its timeout.
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <string>

#include "register_status.h"
#include "vdla/driver/device.h"
#include "vdla/driver/register_window.h"

namespace vdla::driver {

struct PollTiming {
  std::chrono::microseconds poll_interval{200};
  // How long every module must stay blocked with nothing changing before a
  // run is reported as deadlocked.
  std::chrono::milliseconds deadlock_after{100};
};

// Starts `count` instructions at `insn_addr` (startThroughRegisters) and polls
// CTRL until DONE. Throws vdla::Error explaining an ERROR, a deadlock, or
// "run cancelled" once `cancel` is set.
void runThroughRegisters(const hw::HwConfig& cfg, RegisterWindow& regs, const InstructionReader& insn,
                         uint64_t insn_addr, uint32_t count, const PollTiming& timing, const std::atomic<bool>& cancel);

// The message of a wait() that gave up: the timeout and MODULE_STATE, and
// `reset_hint`, how to stop the accelerator that may still be running.
std::string timeoutWaitingForDone(const RegisterWindow& regs, std::chrono::milliseconds timeout,
                                  const std::string& reset_hint);

// One program at a time on a worker thread, with Device's launch/wait
// semantics: launch refuses while a run is in progress, wait gives up after
// its timeout and cancels the run, the next launch waits for it to stop.
class BackgroundRun {
 public:
  ~BackgroundRun() { finish(); }

  // Runs `body` on the worker; an exception it throws becomes an Error result.
  // `device` names the backend in the refusal of a second launch.
  void launch(const std::string& device, std::function<RunResult()> body);
  // The finished run's result, or a Timeout result with `timeout_message()`.
  RunResult wait(std::chrono::milliseconds timeout, const std::function<std::string()>& timeout_message);
  // Set when the run should stop (timeout, destruction); bodies poll it.
  const std::atomic<bool>& cancelled() const { return cancel_; }
  // Cancels the run, if any, and waits for it to stop.
  void finish();

 private:
  std::atomic<bool> cancel_{false};
  std::future<RunResult> running_;
};

}  // namespace vdla::driver
