#pragma once
// TEST DOUBLE of XRT's <xrt/xrt_device.h> (see ../xrt_test_card.h): the
// part of xrt::device that driver/src/xrt_device.cpp uses, declared as XRT
// declares it (explicit constructors from an index and from a BDF string,
// load_xclbin from a file, get_xclbin_uuid). Like XRT, every failure throws
// a std::exception. The devices are the simulated cards a test installs.
#include <memory>
#include <string>

#include "xrt/xrt_uuid.h"

namespace xrt_core {
class device;  // in XRT the core device; here a simulated card
}

namespace xrt {

class device {
 public:
  device() = default;
  ~device() = default;
  explicit device(unsigned int didx);
  explicit device(const std::string& bdf);
  explicit device(int didx) : device(static_cast<unsigned int>(didx)) {}
  device(const device& rhs) = default;
  device& operator=(const device& rhs) = default;
  device(device&& rhs) = default;
  device& operator=(device&& rhs) = default;

  uuid load_xclbin(const std::string& xclbin_fnm);
  uuid get_xclbin_uuid() const;

  std::shared_ptr<xrt_core::device> get_handle() const { return handle; }
  explicit operator bool() const { return handle != nullptr; }

 private:
  std::shared_ptr<xrt_core::device> handle;
};

}  // namespace xrt
