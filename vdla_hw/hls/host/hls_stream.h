#pragma once
// Host-side stand-in for the vendor's hls_stream.h, used only when the Vitis
// HLS headers are absent. Like the vendor's C-simulation model the stream is
// an unbounded FIFO: the depth that synthesis gives it is enforced by the code
// that writes it (fetch counts the commands in each queue, vdla_top.cpp),
// never by the stream. Reading an empty
// stream is a bug of the caller, reported with the stream's name (the vendor
// model would print a warning and return garbage).
#include <cstddef>
#include <deque>
#include <stdexcept>
#include <string>

namespace hls {

template <typename T>
class stream {
 public:
  stream() : name_("unnamed") {}
  explicit stream(const char* name) : name_(name) {}
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  bool empty() const { return fifo_.empty(); }
  bool full() const { return false; }
  std::size_t size() const { return fifo_.size(); }
  void write(const T& v) { fifo_.push_back(v); }
  T read() {
    if (fifo_.empty()) throw std::logic_error("hls::stream '" + name_ + "': read of an empty stream");
    T v = fifo_.front();
    fifo_.pop_front();
    return v;
  }
  bool read_nb(T& v) {
    if (fifo_.empty()) return false;
    v = read();
    return true;
  }
  bool write_nb(const T& v) {
    write(v);
    return true;
  }
  void operator<<(const T& v) { write(v); }
  void operator>>(T& v) { v = read(); }

 private:
  std::string name_;
  std::deque<T> fifo_;
};

}  // namespace hls
