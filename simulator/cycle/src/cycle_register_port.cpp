#include "vdla/sim/cycle_register_port.h"

#include <cstdio>
#include <mutex>

#include "model_registry.h"
#include "vdla/hw/error.h"

namespace vdla::sim {
namespace {

// The AXI-Lite slave decodes 12 address bits; the harness would silently
// drop the rest, so a wider or unaligned offset is refused here instead.
void checkOffset(uint32_t offset, const char* access) {
  if (offset % 4 == 0 && offset < 0x1000) return;
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", offset);
  throw Error(std::string("register ") + access + " at offset " + text +
              ": not a 32-bit register of the 4 KiB AXI-Lite window");
}

}  // namespace

CycleRegisterPort::CycleRegisterPort(const hw::HwConfig& cfg, Dram& dram, std::optional<DramTiming> timing)
    : cfg_(cfg) {
  const CycleModelFactory make = requireCycleModel(cfg);
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  harness_ = make(cfg_, dram, timing.value_or(defaultDramTiming(cfg_)));
  harness_->reset();
}

CycleRegisterPort::~CycleRegisterPort() {
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  harness_.reset();
}

// Each harness owns a SystemC context; another simulator in the process may
// have made its own current since this port was last used.
CycleHarness& CycleRegisterPort::activeHarness() {
  harness_->activate();
  return *harness_;
}

uint32_t CycleRegisterPort::read(uint32_t offset) {
  checkOffset(offset, "read");
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  return activeHarness().axilRead(offset);
}

void CycleRegisterPort::write(uint32_t offset, uint32_t value) {
  checkOffset(offset, "write");
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  activeHarness().axilWrite(offset, value);
}

void CycleRegisterPort::step(uint64_t cycles) {
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  activeHarness().runCycles(cycles);
}

void CycleRegisterPort::reset() {
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  activeHarness().reset();
}

uint64_t CycleRegisterPort::cycle() const {
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  return harness_->cycle();
}

}  // namespace vdla::sim
