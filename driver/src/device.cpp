#include "vdla/driver/device.h"

#include "vdla/driver/fsim_device.h"
#include "vdla/driver/zynq_device.h"
#ifdef VDLA_HAVE_HLS_CSIM
#include "vdla/driver/hls_device.h"
#endif
#include "vdla/hw/error.h"
#ifdef VDLA_HAVE_CYCLE_SIM
#include "vdla/driver/cycle_device.h"
#endif
#ifdef VDLA_HAVE_XRT
#include "vdla/driver/xrt_device.h"
#endif

namespace vdla::driver {

RunResult Device::run(uint64_t insn_addr, uint32_t count, std::chrono::milliseconds timeout) {
  launch(insn_addr, count);
  return wait(timeout);
}

std::vector<std::string> deviceBackends() {
  std::vector<std::string> names = {"fsim"};
#ifdef VDLA_HAVE_CYCLE_SIM
  names.push_back("cycle");
#endif
#ifdef VDLA_HAVE_HLS_CSIM
  names.push_back("hls");
#endif
  return names;
}

std::unique_ptr<Device> createDevice(const std::string& backend, const hw::HwConfig& cfg) {
  return createDevice(backend, cfg, DeviceOptions{});
}

std::unique_ptr<Device> createDevice(const std::string& backend, const hw::HwConfig& cfg,
                                     const DeviceOptions& options) {
  if (backend == "fsim") {
    if (!options.empty())
      throw Error("the fsim device has no clock: --trace, --waves and --max-cycles need the cycle device");
    return std::make_unique<FsimDevice>(cfg);
  }
#ifdef VDLA_HAVE_HLS_CSIM
  if (backend == "hls") {
    if (!options.empty())
      throw Error(
          "the hls device (C simulation) has no clock: --trace, --waves and --max-cycles need the cycle device");
    return std::make_unique<HlsDevice>(cfg);
  }
#endif
  // A board: not in deviceBackends(), which lists what runs on any machine.
  if (backend == "pynq") {
    if (!options.empty()) throw Error("the pynq device has no trace, waveform or cycle limit");
    return std::make_unique<ZynqDevice>(cfg, ZynqOptions::fromEnvironment());
  }
#ifdef VDLA_HAVE_XRT
  // An XRT device (Alveo card, embedded XRT platform): like a board, not in deviceBackends().
  if (backend == "xrt") {
    if (!options.empty()) throw Error("the xrt device has no trace, waveform or cycle limit");
    return std::make_unique<XrtDevice>(cfg, XrtOptions::fromEnvironment());
  }
#endif
#ifdef VDLA_HAVE_CYCLE_SIM
  if (backend == "cycle") return std::make_unique<CycleDevice>(cfg, options);
#endif
  std::string names;
  for (const auto& n : deviceBackends()) names += (names.empty() ? "" : ", ") + n;
#ifdef VDLA_HAVE_XRT
  const char* boards = "; on a Zynq board: pynq; through XRT: xrt";
#else
  const char* boards = "; on a Zynq board: pynq";
#endif
  throw Error("unknown device '" + backend + "' (this build has: " + names + boards + ")");
}

void checkBufferRange(const Buffer& buffer, uint64_t offset, uint64_t bytes, const char* what) {
  if (offset > buffer.size || bytes > buffer.size - offset)
    throw Error(std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                " is outside the buffer of " + std::to_string(buffer.size) + " bytes");
}

}  // namespace vdla::driver
