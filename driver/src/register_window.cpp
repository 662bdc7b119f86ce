#include "vdla/driver/register_window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vdla/hw/error.h"

namespace vdla::driver {
namespace {

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string readLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

}  // namespace

MappedRegion::MappedRegion(const std::string& path, uint64_t offset, uint64_t bytes, bool uncached)
    : path_(path), bytes_(bytes) {
  const long page = sysconf(_SC_PAGESIZE);
  if (offset % uint64_t(page) != 0)
    throw Error(path + ": offset " + hex(offset) + " is not a multiple of the page size (" + std::to_string(page) +
                ")");
  if (bytes == 0) throw Error(path + ": nothing to map (size 0)");
  fd_ = ::open(path.c_str(), O_RDWR | (uncached ? O_SYNC : 0));
  if (fd_ < 0) {
    const int err = errno;
    std::string hint;
    if (err == ENOENT) hint = " (device not found: is the bitstream loaded and the driver bound?)";
    if (err == EACCES || err == EPERM) hint = " (permission denied: run as root or grant the user access to it)";
    throw Error("cannot open " + path + ": " + std::strerror(err) + hint);
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) < offset + bytes) {
    ::close(fd_);
    throw Error(path + ": file of " + std::to_string(st.st_size) + " bytes is smaller than the mapped range [" +
                hex(offset) + ", " + hex(offset + bytes) + ")");
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(offset));
  if (p == MAP_FAILED) {
    const int err = errno;
    ::close(fd_);
    throw Error("cannot map " + std::to_string(bytes) + " bytes at " + hex(offset) + " of " + path + ": " +
                std::strerror(err));
  }
  data_ = static_cast<uint8_t*>(p);
}

MappedRegion::~MappedRegion() {
  if (data_) ::munmap(data_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

MappedRegisterWindow::MappedRegisterWindow(std::unique_ptr<MappedRegion> region) : region_(std::move(region)) {}

volatile uint32_t* MappedRegisterWindow::word(uint32_t offset) const {
  if (offset % 4 != 0 || uint64_t(offset) + 4 > region_->size())
    throw Error("register offset " + hex(offset) + " is outside the " + std::to_string(region_->size()) +
                "-byte register window of " + region_->path());
  return reinterpret_cast<volatile uint32_t*>(region_->data() + offset);
}

uint32_t MappedRegisterWindow::read32(uint32_t offset) const { return *word(offset); }
void MappedRegisterWindow::write32(uint32_t offset, uint32_t value) { *word(offset) = value; }

UioDevice findUioDevice(const std::string& name, const std::string& sysfs_root) {
  namespace fs = std::filesystem;
  std::string present;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(sysfs_root, ec)) {
    const std::string dev = entry.path().filename().string();
    const std::string dev_name = readLine(entry.path().string() + "/name");
    present += (present.empty() ? "" : ", ") + dev + " (" + dev_name + ")";
    if (dev_name != name) continue;
    UioDevice d;
    d.path = "/dev/" + dev;
    d.map_size = std::stoull("0" + readLine(entry.path().string() + "/maps/map0/size"), nullptr, 0);
    if (d.map_size == 0) d.map_size = 0x1000;
    return d;
  }
  throw Error("device not found: no UIO device named '" + name + "' under " + sysfs_root +
              (present.empty() ? " (none present: is the bitstream loaded, with a device-tree overlay binding "
                                 "generic-uio to the accelerator?)"
                               : " (present: " + present + ")"));
}

}  // namespace vdla::driver
