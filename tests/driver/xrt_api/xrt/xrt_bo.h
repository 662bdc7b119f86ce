#pragma once
// TEST DOUBLE of XRT's <xrt/xrt_bo.h> (see ../xrt_test_card.h): the part of
// xrt::bo that driver/src/xrt_device.cpp uses, declared as XRT declares it.
// As on a PCIe card, a buffer object has two copies: the host buffer that
// map() returns and the device buffer the accelerator reads and writes (the
// card's memory), and only sync() moves bytes between them, so a backend
// that forgets a sync computes on stale data and its tests fail.
#include <cstddef>
#include <cstdint>
#include <memory>

// In XRT these come from "xrt.h" (xrt/deprecated/xrt.h), which xrt_bo.h includes.
enum xclBOSyncDirection {
  XCL_BO_SYNC_BO_TO_DEVICE = 0,
  XCL_BO_SYNC_BO_FROM_DEVICE,
};
typedef uint32_t xrtMemoryGroup;

namespace xrt {

class device;
using memory_group = xrtMemoryGroup;

class bo_impl;
class bo {
 public:
  // The values of XRT's XRT_BO_FLAGS_* (xrt_mem.h).
  enum class flags : uint32_t {
    normal = 0,
    cacheable = 1u << 24,
    device_only = 1u << 28,
    host_only = 1u << 29,
    p2p = 1u << 30,
    svm = 1u << 27,
  };

  bo() {}
  bo(const xrt::device& device, size_t sz, bo::flags flags, memory_group grp);
  bo(const bo& rhs) = default;
  bo& operator=(const bo& rhs) = default;
  bo(bo&& rhs) = default;
  bo& operator=(bo&& rhs) = default;
  bool operator==(const bo& rhs) const { return handle == rhs.handle; }
  explicit operator bool() const { return handle != nullptr; }

  size_t size() const;
  uint64_t address() const;
  void sync(xclBOSyncDirection dir, size_t sz, size_t offset);
  void sync(xclBOSyncDirection dir) { sync(dir, size(), 0); }
  void* map();
  template <typename MapType>
  MapType map() {
    return reinterpret_cast<MapType>(map());
  }

 private:
  std::shared_ptr<bo_impl> handle;
};

}  // namespace xrt
