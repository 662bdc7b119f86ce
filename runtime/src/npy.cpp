#include "vdla/runtime/npy.h"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace vdla::rt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

const char* descrOf(DType d) {
  switch (d) {
    case DType::F32: return "<f4";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::Bool: return "|b1";
  }
  return "";
}

// The value of `key` in the header dictionary, as written ("'<f4'", "False",
// "(1, 3, 224, 224)").
std::string field(const std::string& header, const std::string& key, const std::string& path) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw std::runtime_error(path + ": .npy header has no '" + key + "'");
  size_t v = header.find(':', k);
  if (v == std::string::npos) throw std::runtime_error(path + ": .npy header is malformed");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (header[v] == '(') {
    end = header.find(')', v);
    if (end == std::string::npos) throw std::runtime_error(path + ": .npy header is malformed");
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  }
  return header.substr(v, end - v);
}

}  // namespace

Tensor loadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 6) != 0) throw std::runtime_error(path + ": not a NumPy .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (uint32_t(b[1]) << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) | (uint32_t(b[3]) << 24);
  } else {
    throw std::runtime_error(path + ": .npy format version " + std::to_string(major) + " is not supported");
  }
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) throw std::runtime_error(path + ": .npy header is cut short");

  const std::string descr = field(header, "descr", path);
  DType dtype = DType::F32;
  bool found = false;
  for (DType d : {DType::F32, DType::I8, DType::U8, DType::I32, DType::I64, DType::Bool})
    if (descr == std::string("'") + descrOf(d) + "'") dtype = d, found = true;
  if (!found)
    throw std::runtime_error(path + ": element type " + descr +
                             " is not supported (little-endian float32, int8, uint8, int32, int64 or bool)");
  if (field(header, "fortran_order", path) != "False")
    throw std::runtime_error(path + ": Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  const std::string dims = field(header, "shape", path);
  Shape shape;
  for (size_t i = 1; i + 1 < dims.size();) {
    while (i + 1 < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i + 1 >= dims.size()) break;
    size_t used = 0;
    long long d = 0;
    try {
      d = std::stoll(dims.substr(i), &used);
    } catch (const std::exception&) {
      throw std::runtime_error(path + ": .npy shape " + dims + " is malformed");
    }
    if (d < 0) throw std::runtime_error(path + ": .npy shape " + dims + " is malformed");
    shape.push_back(d);
    i += used;
  }
  Tensor t(dtype, shape);
  in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.byteSize()));
  if (in.gcount() != static_cast<std::streamsize>(t.byteSize()))
    throw std::runtime_error(path + ": holds " + std::to_string(in.gcount()) + " bytes of data, the header's " +
                             t.type().toString() + " needs " + std::to_string(t.byteSize()));
  return t;
}

void saveNpy(const std::string& path, const Tensor& t) {
  if (t.type().layout != Layout::RowMajor)
    throw std::runtime_error(path + ": a tensor in a packed layout (" + t.type().toString() +
                             ") has no .npy form; save it in row-major order");
  std::string dims = "(";
  for (size_t i = 0; i < t.shape().size(); ++i)
    dims += std::to_string(t.shape()[i]) + (t.shape().size() == 1 ? "," : i + 1 < t.shape().size() ? ", " : "");
  dims += ")";
  std::string header =
      std::string("{'descr': '") + descrOf(t.dtype()) + "', 'fortran_order': False, 'shape': " + dims + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out << header;
  out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.byteSize()));
  if (!out) throw std::runtime_error(path + ": error while writing");
}

}  // namespace vdla::rt
