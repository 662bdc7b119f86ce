#pragma once
// A TEST DOUBLE of the Xilinx Runtime (XRT), so that the XRT backend
// (driver/src/xrt_device.cpp) is compiled and its protocol exercised without
// XRT or a card. The headers under xrt/ declare exactly the classes and
// signatures of real XRT's native C++ API that the backend uses (listed at
// the top of xrt_device.cpp); only this test links them. A build with XRT
// (VDLA_WITH_XRT, /opt/xilinx/xrt) compiles the same backend against the
// real headers and library instead, and does not build this double.
//
// The double's devices are simulated cards that a test installs by index:
// the card's registers are a shared register window (zynq_window_bridge.h)
// served by a simulated accelerator, its memory is the shared DMA file that
// accelerator uses as DRAM. xrt::device finds a card by index or BDF,
// load_xclbin accepts only the card's xclbin file, xrt::ip opens only the
// card's IP of the loaded xclbin, xrt::bo allocates from the card's memory
// with a separate host copy moved only by sync().
#include <cstdint>
#include <memory>
#include <string>

namespace vdla::xrttest {

struct CardSpec {
  std::string bdf = "0000:17:00.1";
  std::string xclbin;  // the one xclbin file this card accepts
  std::string xclbin_uuid = "5d8b3a70-1c2e-4f6a-9b0d-7e4c2a1f3b58";
  std::string ip = "vdla_top";  // the IP's name in that xclbin
  std::string registers;        // the shared register window file (4 KiB)
  std::string memory;           // the device memory file
  uint64_t memory_base = 0;     // device address of its first byte
  uint64_t memory_size = 0;
  bool xclbin_loaded = false;  // the xclbin is already on the card (attach)
  int open_errno = 0;          // nonzero: opening the device fails with it (EACCES, ...)
};

// Installs a card as XRT device `index` for as long as it lives.
class InstalledCard {
 public:
  InstalledCard(unsigned index, const CardSpec& spec);
  ~InstalledCard();
  InstalledCard(const InstalledCard&) = delete;
  InstalledCard& operator=(const InstalledCard&) = delete;

  // How many sync() calls moved bytes to / from the card so far.
  uint64_t syncsToDevice() const;
  uint64_t syncsFromDevice() const;

 private:
  unsigned index_;
};

}  // namespace vdla::xrttest
