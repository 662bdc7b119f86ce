#pragma once
// TEST DOUBLE of XRT's <xrt/xrt_uuid.h> (see ../xrt_test_card.h): the part
// of xrt::uuid that driver/src/xrt_device.cpp uses, with XRT's public
// declarations. The real class wraps libuuid's uuid_t; this one keeps the
// 16 bytes itself, so the double needs no libuuid.
#include <array>
#include <string>

namespace xrt {

class uuid {
 public:
  uuid() : bytes_{} {}
  // A string of 36 characters with '-' at 8, 13, 18 and 23; "" is the null uuid.
  explicit uuid(const std::string& uuid_str);
  uuid(const uuid& rhs) = default;
  uuid(uuid&&) = default;
  uuid& operator=(const uuid& rhs) = default;
  uuid& operator=(uuid&&) = default;

  std::string to_string() const;
  // True if this uuid is not null.
  operator bool() const;
  bool operator==(const uuid& rhs) const { return bytes_ == rhs.bytes_; }
  bool operator!=(const uuid& rhs) const { return bytes_ != rhs.bytes_; }

 private:
  std::array<unsigned char, 16> bytes_;
};

}  // namespace xrt
