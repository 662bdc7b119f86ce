#pragma once
// TEST DOUBLE of XRT's <xrt/experimental/xrt_ip.h> (see ../../xrt_test_card.h):
// xrt::ip as driver/src/xrt_device.cpp uses it, declared as XRT declares it.
// Like XRT it opens the IP exclusively and throws std::out_of_range for an
// offset outside the IP's address range. Registers are the shared register
// window that a test's WindowBridge serves with a simulated accelerator.
#include <cstdint>
#include <memory>
#include <string>

#include "xrt/xrt_device.h"
#include "xrt/xrt_uuid.h"

namespace xrt {

class ip_impl;
class ip {
 public:
  ip() {}
  ip(const xrt::device& device, const xrt::uuid& xclbin_id, const std::string& name);

  void write_register(uint32_t offset, uint32_t data);
  uint32_t read_register(uint32_t offset) const;

 private:
  std::shared_ptr<ip_impl> handle;
};

}  // namespace xrt
