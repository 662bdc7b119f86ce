#include "vdla/driver/zynq_device.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "register_run.h"
#include "register_status.h"
#include "setting_number.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/registers.h"

namespace vdla::driver {
namespace {

namespace regs = hw::regs;
constexpr uint64_t kAlign = 4096;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string readLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

bool writeSysfs(const std::string& path, const std::string& value) {
  std::ofstream f(path);
  f << value;
  return bool(f.flush());
}

}  // namespace

ZynqOptions ZynqOptions::fromEnvironment() {
  ZynqOptions o;
  if (!env("VDLA_ZYNQ_REGS").empty()) o.registers = env("VDLA_ZYNQ_REGS");
  if (!env("VDLA_ZYNQ_REGS_OFFSET").empty())
    o.registers_offset = parseSettingNumber(env("VDLA_ZYNQ_REGS_OFFSET"), "VDLA_ZYNQ_REGS_OFFSET");
  if (!env("VDLA_ZYNQ_DMA").empty()) o.dma = env("VDLA_ZYNQ_DMA");
  if (!env("VDLA_ZYNQ_DMA_PHYS").empty())
    o.dma_phys = parseSettingNumber(env("VDLA_ZYNQ_DMA_PHYS"), "VDLA_ZYNQ_DMA_PHYS");
  if (!env("VDLA_ZYNQ_DMA_SIZE").empty())
    o.dma_size = parseSettingNumber(env("VDLA_ZYNQ_DMA_SIZE"), "VDLA_ZYNQ_DMA_SIZE");
  o.dma_cached = env("VDLA_ZYNQ_DMA_CACHED") == "1";
  return o;
}

ZynqDevice::ZynqDevice(const hw::HwConfig& cfg, const ZynqOptions& options)
    : cfg_(cfg), options_(options), run_(std::make_unique<BackgroundRun>()) {
  // Registers: a UIO device found by name, or a path with an offset.
  std::string reg_path = options.registers;
  uint64_t reg_size = options.registers_size;
  if (reg_path.rfind("uio:", 0) == 0) {
    const UioDevice uio = findUioDevice(reg_path.substr(4));
    reg_path = uio.path;
    reg_size = uio.map_size;
  }
  if (reg_size < regs::kSpanBytes)
    throw Error(reg_path + ": register window of " + std::to_string(reg_size) + " bytes is smaller than the " +
                std::to_string(regs::kSpanBytes) + " bytes of the VDLA register map");
  regs_ = std::make_unique<MappedRegisterWindow>(
      std::make_unique<MappedRegion>(reg_path, options.registers_offset, reg_size, /*uncached=*/true));

  // DMA memory: u-dma-buf reports its physical address and size in sysfs.
  const std::string name = std::filesystem::path(options.dma).filename().string();
  const std::string sysfs = "/sys/class/u-dma-buf/" + name;
  if (std::filesystem::exists(sysfs)) dma_sysfs_ = sysfs;
  uint64_t phys = options.dma_phys, size = options.dma_size;
  if (phys == 0 || size == 0) {
    if (dma_sysfs_.empty())
      throw Error("device not found: " + options.dma + " is not a u-dma-buf device (no " + sysfs +
                  "); load the u-dma-buf module, or give VDLA_ZYNQ_DMA_PHYS and VDLA_ZYNQ_DMA_SIZE");
    if (phys == 0) phys = parseSettingNumber(readLine(dma_sysfs_ + "/phys_addr"), dma_sysfs_ + "/phys_addr");
    if (size == 0) size = parseSettingNumber(readLine(dma_sysfs_ + "/size"), dma_sysfs_ + "/size");
  }
  if (phys % kAlign != 0) throw Error(options.dma + ": physical address is not 4 KiB aligned");
  if (phys + size > (uint64_t(1) << 32))
    throw Error(options.dma + ": DMA region ends above 4 GiB, which the accelerator's 32-bit addresses cannot reach");
  options_.dma_phys = phys;
  options_.dma_size = size;
  dma_ = std::make_unique<MappedRegion>(options.dma, 0, size, /*uncached=*/!options.dma_cached);
}

// The worker uses the register window and the DMA mapping: stop it first.
ZynqDevice::~ZynqDevice() { run_->finish(); }

Buffer ZynqDevice::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t want = (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  uint64_t at = 0;
  for (const auto& [offset, size] : used_) {  // first fit between used blocks
    if (offset - at >= want) break;
    at = (offset + size + kAlign - 1) / kAlign * kAlign;
  }
  if (at + want > options_.dma_size)
    throw Error("out of DMA memory: " + std::to_string(bytes) + " bytes do not fit the " +
                std::to_string(options_.dma_size) + "-byte region of " + options_.dma);
  used_[at] = want;
  std::memset(dma_->data() + at, 0, want);
  return Buffer{options_.dma_phys + at, bytes};
}

void ZynqDevice::release(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (buffer.phys_addr < options_.dma_phys || used_.erase(buffer.phys_addr - options_.dma_phys) == 0)
    throw Error("release of a buffer that is not allocated on this device");
}

uint8_t* ZynqDevice::hostPointer(uint64_t phys, uint64_t bytes) const {
  if (phys < options_.dma_phys || phys - options_.dma_phys > options_.dma_size ||
      bytes > options_.dma_size - (phys - options_.dma_phys))
    return nullptr;
  return dma_->data() + (phys - options_.dma_phys);
}

void ZynqDevice::write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "write");
  if (bytes == 0) return;
  uint8_t* p = hostPointer(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("write to a buffer that is not allocated on this device");
  std::memcpy(p, data, bytes);
}

void ZynqDevice::read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "read");
  if (bytes == 0) return;
  const uint8_t* p = hostPointer(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("read from a buffer that is not allocated on this device");
  std::memcpy(data, p, bytes);
}

// Cached mappings need the CPU caches written back before the accelerator
// reads DRAM and invalidated before the CPU reads its results; u-dma-buf does
// both through sysfs. Uncached (O_SYNC) mappings need nothing.
void ZynqDevice::syncDma(const char* direction) {
  if (!options_.dma_cached) return;
  if (dma_sysfs_.empty() || !writeSysfs(dma_sysfs_ + "/sync_offset", "0") ||
      !writeSysfs(dma_sysfs_ + "/sync_size", std::to_string(options_.dma_size)) ||
      !writeSysfs(dma_sysfs_ + "/" + direction, "1"))
    throw Error(std::string("cache maintenance failed: cannot write ") + direction + " of " +
                (dma_sysfs_.empty() ? options_.dma : dma_sysfs_) +
                " (use an uncached mapping: unset VDLA_ZYNQ_DMA_CACHED)");
}

RunResult ZynqDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  RunResult r;
  auto insn = [this, insn_addr](uint32_t index, uint8_t bytes[16]) {
    const uint8_t* p = hostPointer(insn_addr + uint64_t(index) * hw::kInstructionBytes, hw::kInstructionBytes);
    if (!p) return false;
    std::memcpy(bytes, p, hw::kInstructionBytes);
    return true;
  };
  syncDma("sync_for_device");
  runThroughRegisters(cfg_, *regs_, insn, insn_addr, count, PollTiming{options_.poll_interval, options_.deadlock_after},
                      run_->cancelled());
  syncDma("sync_for_cpu");
  r.stats = statsAfterRun(
      cfg_, [this](uint32_t offset) { return regs_->read32(offset); },
      hostPointer(insn_addr, uint64_t(count) * hw::kInstructionBytes), count);
  return r;
}

void ZynqDevice::launch(uint64_t insn_addr, uint32_t count) {
  run_->launch("pynq", [this, insn_addr, count] { return runProgram(insn_addr, count); });
}

RunResult ZynqDevice::wait(std::chrono::milliseconds timeout) {
  return run_->wait(timeout, [this, timeout] {
    return timeoutWaitingForDone(*regs_, timeout, "reload the bitstream before the next run");
  });
}

}  // namespace vdla::driver
