// Byte-level helpers of the artifact file format (docs/artifact.md): a writer
// that appends little-endian fields and a bounds-checked reader that throws
// ArtifactError naming the file and section instead of reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/runtime/artifact.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the artifact reader/writer assumes a little-endian host"
#endif

namespace vdla::rt::artifact_format {

constexpr size_t kHeaderSize = 64;
constexpr size_t kSectionEntrySize = 64;
constexpr size_t kSectionNameBytes = 48;  // NUL-padded; at most 47 characters
constexpr size_t kAlignment = 64;
constexpr size_t kChecksumStart = 32;  // the checksum covers [32, file_size)
constexpr uint32_t kMaxRank = 32;
constexpr const char* kBlobPrefix = "blob.";

enum class AttrKind : uint8_t { Int = 0, Float = 1, String = 2, Ints = 3, Floats = 4, Tensor = 5 };

inline size_t alignUp(size_t n, size_t a = kAlignment) { return (n + a - 1) / a * a; }

class Writer {
 public:
  std::vector<uint8_t> bytes;

  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
  }
  void putU8(uint8_t v) { put(v); }
  void putU32(uint32_t v) { put(v); }
  void putU64(uint64_t v) { put(v); }
  void putI32(int32_t v) { put(v); }
  void putI64(int64_t v) { put(v); }
  void putF64(double v) { put(v); }
  void putString(const std::string& s) {
    putU32(static_cast<uint32_t>(s.size()));
    putBytes(s.data(), s.size());
  }
  void putBytes(const void* p, size_t n) {
    if (n == 0) return;
    size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
  }
  void padTo(size_t alignment) { bytes.resize(alignUp(bytes.size(), alignment), 0); }
};

class Reader {
 public:
  // `where` names the file and section in errors: "model.vdla: section 'steps'".
  Reader(const uint8_t* data, size_t size, std::string where) : data_(data), size_(size), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ArtifactError(where_ + ": " + what + " (at byte " + std::to_string(pos_) + " of " + std::to_string(size_) +
                        ")");
  }
  size_t remaining() const { return size_ - pos_; }
  size_t position() const { return pos_; }
  bool atEnd() const { return pos_ == size_; }

  void need(size_t n, const char* what) const {
    if (n > remaining())
      fail(std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left");
  }
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  uint8_t getU8(const char* what) { return get<uint8_t>(what); }
  uint32_t getU32(const char* what) { return get<uint32_t>(what); }
  uint64_t getU64(const char* what) { return get<uint64_t>(what); }
  int32_t getI32(const char* what) { return get<int32_t>(what); }
  int64_t getI64(const char* what) { return get<int64_t>(what); }
  double getF64(const char* what) { return get<double>(what); }
  std::string getString(const char* what) {
    uint32_t n = getU32(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  // A count of items that each take at least `min_item_bytes`; refuses counts
  // the remaining bytes cannot hold, so that a damaged count never allocates.
  uint32_t getCount(const char* what, size_t min_item_bytes) {
    uint32_t n = getU32(what);
    if (min_item_bytes && n > remaining() / min_item_bytes)
      fail(std::string("bad ") + what + " " + std::to_string(n) + ": only " + std::to_string(remaining()) +
           " bytes left");
    return n;
  }
  const uint8_t* getBytes(size_t n, const char* what) {
    need(n, what);
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string where_;
};

}  // namespace vdla::rt::artifact_format
