// The XRT backend. It uses only this part of XRT's native C++ API (headers
// under $XILINX_XRT/include, library xrt_coreutil), present with these
// signatures from XRT 2.11 (2021.1), when xrt::ip appeared, to the current
// 2.19/2025.x headers:
//
//   <xrt/xrt_device.h>  explicit xrt::device(unsigned int index);
//                       explicit xrt::device(const std::string& bdf);
//                       xrt::uuid xrt::device::load_xclbin(const std::string& xclbin_fnm);
//                       xrt::uuid xrt::device::get_xclbin_uuid() const;
//   <xrt/xrt_uuid.h>    std::string xrt::uuid::to_string() const;  xrt::uuid::operator bool() const;
//   <xrt/xrt_bo.h>      xrt::bo(const xrt::device&, size_t sz, xrt::bo::flags, xrt::memory_group);
//                       (in older releases the first parameter is xclDeviceHandle, to which
//                       xrt::device converts implicitly: the same call compiles against both)
//                       template<typename MapType> MapType xrt::bo::map();
//                       void xrt::bo::sync(xclBOSyncDirection, size_t sz, size_t offset);
//                       uint64_t xrt::bo::address() const;
//                       XCL_BO_SYNC_BO_TO_DEVICE, XCL_BO_SYNC_BO_FROM_DEVICE
//   <xrt/experimental/xrt_ip.h> (<experimental/xrt_ip.h> in older releases)
//                       xrt::ip(const xrt::device&, const xrt::uuid& xclbin_id, const std::string& name);
//                       uint32_t xrt::ip::read_register(uint32_t offset) const;
//                       void xrt::ip::write_register(uint32_t offset, uint32_t data);
//
// Every one of them reports failure by throwing a std::exception (a
// std::system_error carrying the driver's errno for device errors,
// std::out_of_range for a register offset outside the IP). This file turns
// them into vdla::Error naming the device, the xclbin or the IP.
//
// In CI this file is compiled against a test double of exactly these
// declarations (tests/driver/xrt_api/), served by the simulated accelerator;
// a build with VDLA_WITH_XRT compiles it unchanged against the real headers.
#include "vdla/driver/xrt_device.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_uuid.h>
#if __has_include(<xrt/experimental/xrt_ip.h>)
#include <xrt/experimental/xrt_ip.h>
#else
#include <experimental/xrt_ip.h>
#endif

#include "register_run.h"
#include "register_status.h"
#include "setting_number.h"
#include "vdla/driver/register_window.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/registers.h"

namespace vdla::driver {
namespace {

constexpr uint64_t kAlign = 4096;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

bool isIndex(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// A hint for XRT errors that carry an errno.
std::string errnoHint(const std::exception& e) {
  const auto* sys = dynamic_cast<const std::system_error*>(&e);
  if (!sys) return "";
  const int code = sys->code().value();
  if (code == EACCES || code == EPERM)
    return " (permission denied: add the user to the group owning /dev/dri/renderD* or /dev/xfa/*, or run as root)";
  return "";
}

// Recent XRT marks xrt::ip(device, uuid, name) deprecated in favour of
// xrt::ip(hw_context, name), which older XRT lacks; the deprecated form
// works on every version this backend supports.
xrt::ip openIp(const xrt::device& device, const xrt::uuid& uuid, const std::string& name) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return xrt::ip(device, uuid, name);
#pragma GCC diagnostic pop
}

// The accelerator's registers through XRT's register access on the IP.
class IpRegisterWindow : public RegisterWindow {
 public:
  IpRegisterWindow(xrt::ip& ip, std::string ip_name) : ip_(ip), ip_name_(std::move(ip_name)) {}
  uint32_t read32(uint32_t offset) const override {
    try {
      return ip_.read_register(offset);
    } catch (const std::exception& e) {
      throw Error(describe("reading", offset, e));
    }
  }
  void write32(uint32_t offset, uint32_t value) override {
    try {
      ip_.write_register(offset, value);
    } catch (const std::exception& e) {
      throw Error(describe("writing", offset, e));
    }
  }

 private:
  std::string describe(const char* what, uint32_t offset, const std::exception& e) const {
    return std::string("XRT failed ") + what + " register " + hex(offset) + " of IP '" + ip_name_ + "': " + e.what();
  }
  xrt::ip& ip_;
  std::string ip_name_;
};

}  // namespace

XrtOptions XrtOptions::fromEnvironment() {
  XrtOptions o;
  if (!env("VDLA_XRT_DEVICE").empty()) o.device = env("VDLA_XRT_DEVICE");
  o.xclbin = env("VDLA_XRT_XCLBIN");
  if (!env("VDLA_XRT_IP").empty()) o.ip = env("VDLA_XRT_IP");
  if (!env("VDLA_XRT_MEM_GROUP").empty()) {
    const uint64_t group = parseSettingNumber(env("VDLA_XRT_MEM_GROUP"), "VDLA_XRT_MEM_GROUP");
    if (group > 0xffffffffu) throw Error("VDLA_XRT_MEM_GROUP: " + std::to_string(group) + " is not a memory group");
    o.memory_group = uint32_t(group);
  }
  return o;
}

struct XrtDevice::Xrt {
  struct Bo {
    xrt::bo bo;
    uint8_t* host = nullptr;  // XRT's host-side copy (map())
    uint64_t bytes = 0;
  };

  xrt::device device;
  xrt::uuid uuid;
  xrt::ip ip;
  std::unique_ptr<IpRegisterWindow> regs;
  std::mutex mutex;            // the buffer table
  std::map<uint64_t, Bo> bos;  // device address -> buffer object

  // The buffer object holding [addr, addr+bytes) and the offset in it;
  // nullptr if none does.
  Bo* find(uint64_t addr, uint64_t bytes, uint64_t* offset) {
    auto it = bos.upper_bound(addr);
    if (it == bos.begin()) return nullptr;
    --it;
    const uint64_t off = addr - it->first;
    if (off > it->second.bytes || bytes > it->second.bytes - off) return nullptr;
    *offset = off;
    return &it->second;
  }
};

XrtDevice::XrtDevice(const hw::HwConfig& cfg, const XrtOptions& options)
    : cfg_(cfg), options_(options), xrt_(std::make_unique<Xrt>()), run_(std::make_unique<BackgroundRun>()) {
  const std::string where = "XRT device '" + options.device + "'";
  try {
    xrt_->device =
        isIndex(options.device) ? xrt::device(unsigned(std::stoul(options.device))) : xrt::device(options.device);
  } catch (const std::exception& e) {
    const std::string hint = errnoHint(e);
    throw Error(
        (hint.empty() ? "device not found: cannot open " : "cannot open ") + where + ": " + e.what() +
        (hint.empty() ? " (`xbutil examine` lists the devices; set VDLA_XRT_DEVICE to an index or BDF)" : hint));
  }

  if (!options.xclbin.empty()) {
    try {
      xrt_->uuid = xrt_->device.load_xclbin(options.xclbin);
    } catch (const std::exception& e) {
      throw Error("cannot load xclbin '" + options.xclbin + "' on " + where + ": " + e.what() + errnoHint(e));
    }
  } else {
    try {
      xrt_->uuid = xrt_->device.get_xclbin_uuid();
    } catch (const std::exception& e) {
      throw Error("cannot read the xclbin loaded on " + where + ": " + e.what());
    }
    if (!xrt_->uuid)
      throw Error("no xclbin is loaded on " + where + ": set VDLA_XRT_XCLBIN to the VDLA xclbin to load");
  }

  try {
    xrt_->ip = openIp(xrt_->device, xrt_->uuid, options.ip);
  } catch (const std::exception& e) {
    // XRT reports a missing IP and one another process holds alike.
    throw Error("IP not found or not available: cannot open IP '" + options.ip + "' of xclbin " +
                xrt_->uuid.to_string() + " on " + where + ": " + e.what() +
                " (VDLA_XRT_IP must name the accelerator as the xclbin's IP_LAYOUT does, see `xclbinutil --info`; "
                "XRT grants an IP to one process at a time)");
  }
  xrt_->regs = std::make_unique<IpRegisterWindow>(xrt_->ip, options.ip);
  // Refuse a mismatched xclbin now rather than at the first run.
  checkConfigurationHash(cfg_, [this](uint32_t offset) { return xrt_->regs->read32(offset); });
}

// The worker uses the IP and the buffer objects: stop it first.
XrtDevice::~XrtDevice() { run_->finish(); }

Buffer XrtDevice::allocate(uint64_t bytes) {
  const uint64_t want = (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  Xrt::Bo b;
  try {
    b.bo = xrt::bo(xrt_->device, size_t(want), xrt::bo::flags::normal, xrt::memory_group(options_.memory_group));
    b.host = b.bo.map<uint8_t*>();
  } catch (const std::exception& e) {
    throw Error("cannot allocate a buffer of " + std::to_string(bytes) + " bytes in memory group " +
                std::to_string(options_.memory_group) + " of XRT device '" + options_.device + "': " + e.what());
  }
  b.bytes = want;
  const uint64_t addr = b.bo.address();
  if (addr % kAlign != 0)
    throw Error("XRT placed a buffer at device address " + hex(addr) +
                ", which is not 4 KiB aligned as the accelerator's entries require");
  if (addr + want > (uint64_t(1) << 32))
    throw Error("XRT placed a buffer of " + std::to_string(bytes) + " bytes at device address " + hex(addr) +
                ", beyond the 4 GiB that the accelerator's 32-bit addresses reach: choose a memory bank below 4 GiB "
                "with VDLA_XRT_MEM_GROUP");
  // Zero-filled on both sides, as Device promises.
  std::memset(b.host, 0, want);
  try {
    b.bo.sync(XCL_BO_SYNC_BO_TO_DEVICE, size_t(want), 0);
  } catch (const std::exception& e) {
    throw Error(std::string("XRT failed to clear a new buffer on the device: ") + e.what());
  }
  std::lock_guard<std::mutex> lock(xrt_->mutex);
  xrt_->bos[addr] = std::move(b);
  return Buffer{addr, bytes};
}

void XrtDevice::release(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(xrt_->mutex);
  if (xrt_->bos.erase(buffer.phys_addr) == 0) throw Error("release of a buffer that is not allocated on this device");
}

// Every host access moves exactly its bytes between XRT's host copy and the
// device (bo.sync): writes reach the device before any later launch, and a
// read after a run sees what the accelerator wrote. Syncing whole buffers
// around runs instead would write stale host bytes over the accelerator's
// results whenever the host wrote part of a buffer the accelerator also wrote.
void XrtDevice::write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "write");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(xrt_->mutex);
  uint64_t at = 0;
  Xrt::Bo* b = xrt_->find(buffer.phys_addr + offset, bytes, &at);
  if (!b) throw Error("write to a buffer that is not allocated on this device");
  std::memcpy(b->host + at, data, bytes);
  try {
    b->bo.sync(XCL_BO_SYNC_BO_TO_DEVICE, size_t(bytes), size_t(at));
  } catch (const std::exception& e) {
    throw Error(std::string("XRT failed to sync a buffer to the device: ") + e.what());
  }
}

void XrtDevice::read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "read");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(xrt_->mutex);
  uint64_t at = 0;
  Xrt::Bo* b = xrt_->find(buffer.phys_addr + offset, bytes, &at);
  if (!b) throw Error("read from a buffer that is not allocated on this device");
  try {
    b->bo.sync(XCL_BO_SYNC_BO_FROM_DEVICE, size_t(bytes), size_t(at));
  } catch (const std::exception& e) {
    throw Error(std::string("XRT failed to sync a buffer from the device: ") + e.what());
  }
  std::memcpy(data, b->host + at, bytes);
}

RunResult XrtDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  // The program text as the host wrote it, for error messages and the
  // instruction statistics (the accelerator never writes it).
  auto host = [this](uint64_t addr, uint64_t bytes) -> const uint8_t* {
    std::lock_guard<std::mutex> lock(xrt_->mutex);
    uint64_t at = 0;
    Xrt::Bo* b = xrt_->find(addr, bytes, &at);
    return b ? b->host + at : nullptr;
  };
  auto insn = [&host, insn_addr](uint32_t index, uint8_t bytes[16]) {
    const uint8_t* p = host(insn_addr + uint64_t(index) * hw::kInstructionBytes, hw::kInstructionBytes);
    if (!p) return false;
    std::memcpy(bytes, p, hw::kInstructionBytes);
    return true;
  };
  runThroughRegisters(cfg_, *xrt_->regs, insn, insn_addr, count,
                      PollTiming{options_.poll_interval, options_.deadlock_after}, run_->cancelled());
  RunResult r;
  r.stats = statsAfterRun(
      cfg_, [this](uint32_t offset) { return xrt_->regs->read32(offset); },
      host(insn_addr, uint64_t(count) * hw::kInstructionBytes), count);
  return r;
}

void XrtDevice::launch(uint64_t insn_addr, uint32_t count) {
  run_->launch("xrt", [this, insn_addr, count] { return runProgram(insn_addr, count); });
}

RunResult XrtDevice::wait(std::chrono::milliseconds timeout) {
  return run_->wait(timeout, [this, timeout] {
    return timeoutWaitingForDone(*xrt_->regs, timeout, "reload the xclbin (xbutil reset) before the next run");
  });
}

}  // namespace vdla::driver
