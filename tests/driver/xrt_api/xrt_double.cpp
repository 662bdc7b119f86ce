// The TEST DOUBLE of XRT declared in xrt/ (see xrt_test_card.h): simulated
// cards over shared files, with XRT's behaviour where the backend depends on
// it (exceptions on failure, exclusive IP access, register offsets checked
// against the IP's range, separate host and device copies of each buffer).
#include <xrt/experimental/xrt_ip.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_uuid.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "vdla/driver/register_window.h"
#include "xrt_test_card.h"

namespace xrt_core {

// A simulated card: its register window and its memory, mapped from the
// files the test's WindowBridge serves.
class device {
 public:
  static constexpr uint64_t kRegisterBytes = 0x1000;
  explicit device(const vdla::xrttest::CardSpec& s)
      : spec(s),
        registers(s.registers, 0, kRegisterBytes, false),
        memory(s.memory, 0, s.memory_size, false),
        xclbin_loaded(s.xclbin_loaded) {}

  vdla::xrttest::CardSpec spec;
  vdla::driver::MappedRegion registers, memory;
  std::mutex mutex;  // everything below
  bool xclbin_loaded;
  bool ip_open = false;
  std::map<uint64_t, uint64_t> used;  // offset in memory -> bytes
  uint64_t syncs_to = 0, syncs_from = 0;
};

}  // namespace xrt_core

namespace {

std::mutex g_cards_mutex;
std::map<unsigned, std::shared_ptr<xrt_core::device>> g_cards;

std::shared_ptr<xrt_core::device> openCard(const std::shared_ptr<xrt_core::device>& card) {
  if (card->spec.open_errno)
    throw std::system_error(card->spec.open_errno, std::generic_category(), "open of device " + card->spec.bdf);
  return card;
}

bool allDigits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

namespace xrt {

// ---- uuid ----

uuid::uuid(const std::string& uuid_str) : bytes_{} {
  size_t n = 0;
  for (char c : uuid_str) {
    if (c == '-') continue;
    const int v = std::isxdigit(static_cast<unsigned char>(c)) ? std::stoi(std::string(1, c), nullptr, 16) : 0;
    if (n < 32) bytes_[n / 2] = static_cast<unsigned char>(bytes_[n / 2] | (v << (n % 2 ? 0 : 4)));
    ++n;
  }
}

std::string uuid::to_string() const {
  std::string s;
  char two[3];
  for (size_t i = 0; i < bytes_.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(two, sizeof two, "%02x", bytes_[i]);
    s += two;
  }
  return s;
}

uuid::operator bool() const {
  for (unsigned char b : bytes_)
    if (b) return true;
  return false;
}

// ---- device ----

device::device(unsigned int didx) {
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  const auto it = g_cards.find(didx);
  if (it == g_cards.end())
    throw std::system_error(ENODEV, std::generic_category(), "no device with index " + std::to_string(didx));
  handle = openCard(it->second);
}

device::device(const std::string& bdf) {
  if (allDigits(bdf)) {
    *this = device(static_cast<unsigned int>(std::stoul(bdf)));
    return;
  }
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  for (const auto& [index, card] : g_cards)
    if (card->spec.bdf == bdf) {
      handle = openCard(card);
      return;
    }
  throw std::system_error(ENODEV, std::generic_category(), "no device with BDF " + bdf);
}

uuid device::load_xclbin(const std::string& xclbin_fnm) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(xclbin_fnm, ec))
    throw std::system_error(ENOENT, std::generic_category(), "cannot read xclbin file '" + xclbin_fnm + "'");
  std::lock_guard<std::mutex> lock(handle->mutex);
  if (fs::canonical(xclbin_fnm, ec) != fs::canonical(handle->spec.xclbin, ec))
    throw std::system_error(EINVAL, std::generic_category(),
                            "xclbin '" + xclbin_fnm + "' is not built for the platform of device " + handle->spec.bdf);
  handle->xclbin_loaded = true;
  return uuid(handle->spec.xclbin_uuid);
}

uuid device::get_xclbin_uuid() const {
  std::lock_guard<std::mutex> lock(handle->mutex);
  return handle->xclbin_loaded ? uuid(handle->spec.xclbin_uuid) : uuid();
}

// ---- ip ----

class ip_impl {
 public:
  explicit ip_impl(std::shared_ptr<xrt_core::device> c) : card(std::move(c)) {}
  ~ip_impl() {
    std::lock_guard<std::mutex> lock(card->mutex);
    card->ip_open = false;
  }
  volatile uint32_t* word(uint32_t offset) const {
    if (offset % 4 != 0 || uint64_t(offset) + 4 > xrt_core::device::kRegisterBytes)
      throw std::out_of_range("offset " + std::to_string(offset) + " is outside the address range of IP '" +
                              card->spec.ip + "'");
    return reinterpret_cast<volatile uint32_t*>(card->registers.data() + offset);
  }
  std::shared_ptr<xrt_core::device> card;
};

ip::ip(const xrt::device& device, const xrt::uuid& xclbin_id, const std::string& name) {
  if (!device) throw std::runtime_error("xrt::ip of an empty xrt::device");
  const auto card = device.get_handle();
  std::lock_guard<std::mutex> lock(card->mutex);
  if (!card->xclbin_loaded || xclbin_id != uuid(card->spec.xclbin_uuid))
    throw std::runtime_error("xclbin " + xclbin_id.to_string() + " is not loaded on device " + card->spec.bdf);
  if (name != card->spec.ip)
    throw std::runtime_error("no IP named '" + name + "' in the IP_LAYOUT of xclbin " + xclbin_id.to_string());
  if (card->ip_open) throw std::runtime_error("IP '" + name + "' is already opened with exclusive access");
  card->ip_open = true;
  handle = std::make_shared<ip_impl>(card);
}

void ip::write_register(uint32_t offset, uint32_t data) { *handle->word(offset) = data; }
uint32_t ip::read_register(uint32_t offset) const { return *handle->word(offset); }

// ---- bo ----

class bo_impl {
 public:
  bo_impl(std::shared_ptr<xrt_core::device> c, uint64_t off, size_t sz)
      : card(std::move(c)), offset(off), size(sz), host(static_cast<uint8_t*>(std::aligned_alloc(4096, sz))) {
    if (!host) throw std::bad_alloc();
  }
  ~bo_impl() {
    std::free(host);
    std::lock_guard<std::mutex> lock(card->mutex);
    card->used.erase(offset);
  }
  std::shared_ptr<xrt_core::device> card;
  uint64_t offset;
  size_t size;
  uint8_t* host;
};

bo::bo(const xrt::device& device, size_t sz, bo::flags flags, memory_group grp) {
  if (!device) throw std::runtime_error("xrt::bo on an empty xrt::device");
  const auto card = device.get_handle();
  if (grp != 0)
    throw std::system_error(EINVAL, std::generic_category(),
                            "memory group " + std::to_string(grp) + " is not connected in the loaded xclbin");
  if (flags != bo::flags::normal) throw std::system_error(EINVAL, std::generic_category(), "unsupported bo flags");
  // Page-aligned sizes, first fit, as XRT's allocator places them.
  const uint64_t want = (std::max<uint64_t>(sz, 1) + 4095) / 4096 * 4096;
  std::lock_guard<std::mutex> lock(card->mutex);
  uint64_t at = 0;
  for (const auto& [offset, bytes] : card->used) {
    if (offset - at >= want) break;
    at = offset + (bytes + 4095) / 4096 * 4096;
  }
  if (at + want > card->memory.size())
    throw std::system_error(ENOMEM, std::generic_category(), "cannot allocate " + std::to_string(sz) + " bytes");
  card->used[at] = want;
  // New buffers hold whatever was there before, on both sides.
  std::memset(card->memory.data() + at, 0x5a, want);
  handle = std::make_shared<bo_impl>(card, at, sz);
  std::memset(handle->host, 0xa5, sz);
}

size_t bo::size() const { return handle->size; }
uint64_t bo::address() const { return handle->card->spec.memory_base + handle->offset; }
void* bo::map() { return handle->host; }

void bo::sync(xclBOSyncDirection dir, size_t sz, size_t offset) {
  if (offset > handle->size || sz > handle->size - offset)
    throw std::system_error(EINVAL, std::generic_category(), "sync range outside the buffer");
  uint8_t* device_bytes = handle->card->memory.data() + handle->offset + offset;
  std::lock_guard<std::mutex> lock(handle->card->mutex);
  if (dir == XCL_BO_SYNC_BO_TO_DEVICE) {
    std::memcpy(device_bytes, handle->host + offset, sz);
    handle->card->syncs_to++;
  } else {
    std::memcpy(handle->host + offset, device_bytes, sz);
    handle->card->syncs_from++;
  }
}

}  // namespace xrt

namespace vdla::xrttest {

InstalledCard::InstalledCard(unsigned index, const CardSpec& spec) : index_(index) {
  auto card = std::make_shared<xrt_core::device>(spec);
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  g_cards[index] = std::move(card);
}

InstalledCard::~InstalledCard() {
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  g_cards.erase(index_);
}

uint64_t InstalledCard::syncsToDevice() const {
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  const auto& card = g_cards.at(index_);
  std::lock_guard<std::mutex> card_lock(card->mutex);
  return card->syncs_to;
}

uint64_t InstalledCard::syncsFromDevice() const {
  std::lock_guard<std::mutex> lock(g_cards_mutex);
  const auto& card = g_cards.at(index_);
  std::lock_guard<std::mutex> card_lock(card->mutex);
  return card->syncs_from;
}

}  // namespace vdla::xrttest
