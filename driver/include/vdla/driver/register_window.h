#pragma once
// Memory-mapped access to the accelerator on a Zynq under Linux: a file region
// mapped into the process (a UIO device, /dev/mem, a u-dma-buf device, or in
// tests a shared-memory file) and the 32-bit register window on top of one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vdla::driver {

// `bytes` of `path` from byte `offset` (a multiple of the page size), mapped
// shared and read/write. Opening with `uncached` adds O_SYNC, which for
// /dev/mem and u-dma-buf gives an uncached mapping (no cache maintenance).
class MappedRegion {
 public:
  // Throws vdla::Error naming the path and the reason (not found, permission
  // denied, too small, mmap failure).
  MappedRegion(const std::string& path, uint64_t offset, uint64_t bytes, bool uncached);
  ~MappedRegion();
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  uint8_t* data() const { return data_; }
  uint64_t size() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// The accelerator's AXI-Lite registers (vdla/hw/registers.h).
class RegisterWindow {
 public:
  virtual ~RegisterWindow() = default;
  virtual uint32_t read32(uint32_t offset) const = 0;
  virtual void write32(uint32_t offset, uint32_t value) = 0;
};

// Registers in a mapped region: every access is one volatile 32-bit load or
// store, as the AXI-Lite slave requires. Offsets past the region throw.
class MappedRegisterWindow : public RegisterWindow {
 public:
  explicit MappedRegisterWindow(std::unique_ptr<MappedRegion> region);
  uint32_t read32(uint32_t offset) const override;
  void write32(uint32_t offset, uint32_t value) override;

 private:
  volatile uint32_t* word(uint32_t offset) const;
  std::unique_ptr<MappedRegion> region_;
};

// The /dev/uioN whose /sys/class/uio/uioN/name is `name`, and the size of its
// first map. Throws vdla::Error listing the UIO devices present if none is.
struct UioDevice {
  std::string path;
  uint64_t map_size = 0;
};
UioDevice findUioDevice(const std::string& name, const std::string& sysfs_root = "/sys/class/uio");

}  // namespace vdla::driver
