#include "vdla/runtime/artifact_signature.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "vdla/runtime/artifact.h"

#ifdef VDLA_WITH_SODIUM
#include <sodium.h>
#endif

namespace vdla::rt {

namespace {

constexpr char kTrailerMagic[8] = {'V', 'D', 'L', 'A', 'S', 'I', 'G', '1'};
constexpr const char* kPublicTag = "vdla-ed25519-public";
constexpr const char* kSecretTag = "vdla-ed25519-secret";

void requireSupport(const std::string& what) {
  if (!signaturesSupported())
    throw ArtifactError(what + ": this build has no signature support (it was built without libsodium)");
#ifdef VDLA_WITH_SODIUM
  if (sodium_init() < 0) throw ArtifactError(what + ": libsodium failed to initialise");
#endif
}

std::string toHex(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

template <size_t N>
std::array<uint8_t, N> readKeyFile(const std::string& path, const char* tag) {
  std::ifstream in(path);
  if (!in) throw ArtifactError(path + ": cannot open key file");
  std::string got_tag, hex;
  in >> got_tag >> hex;
  if (got_tag != tag) throw ArtifactError(path + ": not a " + std::string(tag) + " key file");
  if (hex.size() != 2 * N)
    throw ArtifactError(path + ": key has " + std::to_string(hex.size() / 2) + " bytes, expected " + std::to_string(N));
  std::array<uint8_t, N> key{};
  for (size_t i = 0; i < N; ++i) {
    auto nibble = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      throw ArtifactError(path + ": key is not hexadecimal");
    };
    key[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return key;
}

void writeKeyFile(const std::string& path, const char* tag, const uint8_t* key, size_t n, bool secret) {
  {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw ArtifactError(path + ": cannot create key file");
  }
  if (secret && ::chmod(path.c_str(), 0600) != 0)
    throw ArtifactError(path + ": cannot restrict the key file to its owner");
  std::ofstream out(path, std::ios::trunc);
  out << tag << " " << toHex(key, n) << "\n";
  if (!out) throw ArtifactError(path + ": cannot write key file");
}

std::mutex trust_mutex;
bool trust_initialised = false;
TrustedKeys process_trust;

}  // namespace

bool signaturesSupported() {
#ifdef VDLA_WITH_SODIUM
  return true;
#else
  return false;
#endif
}

KeyPair generateKeyPair() {
  requireSupport("keygen");
  KeyPair k;
#ifdef VDLA_WITH_SODIUM
  crypto_sign_keypair(k.public_key.data(), k.secret_key.data());
#endif
  return k;
}

void saveKeyPair(const KeyPair& keys, const std::string& stem) {
  writeKeyFile(stem + ".key", kSecretTag, keys.secret_key.data(), keys.secret_key.size(), true);
  writeKeyFile(stem + ".pub", kPublicTag, keys.public_key.data(), keys.public_key.size(), false);
}

PublicKey loadPublicKey(const std::string& path) { return readKeyFile<32>(path, kPublicTag); }
SecretKey loadSecretKey(const std::string& path) { return readKeyFile<64>(path, kSecretTag); }
std::string publicKeyHex(const PublicKey& key) { return toHex(key.data(), key.size()); }

bool hasSignatureTrailer(const uint8_t* data, size_t size) {
  return size >= kSignatureTrailerBytes && std::memcmp(data + size - 8, kTrailerMagic, 8) == 0;
}

size_t artifactPayloadSize(const uint8_t* data, size_t size) {
  return hasSignatureTrailer(data, size) ? size - kSignatureTrailerBytes : size;
}

std::vector<uint8_t> signArtifactBytes(const uint8_t* data, size_t size, const SecretKey& key) {
  requireSupport("sign");
  const size_t payload = artifactPayloadSize(data, size);
  std::vector<uint8_t> out(data, data + payload);
  out.resize(payload + kSignatureTrailerBytes);
  // The public key is the second half of an Ed25519 secret key.
  std::memcpy(out.data() + payload, key.data() + 32, 32);
#ifdef VDLA_WITH_SODIUM
  crypto_sign_detached(out.data() + payload + 32, nullptr, data, payload, key.data());
#endif
  std::memcpy(out.data() + payload + 96, kTrailerMagic, 8);
  return out;
}

TrustedKeys loadTrustedKeys(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ArtifactError(dir + ": not a directory of trusted keys (*.pub)");
  TrustedKeys t;
  t.source = dir;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".pub") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) t.keys.push_back(loadPublicKey(f));
  if (t.keys.empty()) throw ArtifactError(dir + ": no trusted keys (*.pub files) in the directory");
  return t;
}

void setTrustedKeys(TrustedKeys keys) {
  std::lock_guard<std::mutex> lock(trust_mutex);
  process_trust = std::move(keys);
  trust_initialised = true;
}

const TrustedKeys& trustedKeys() {
  std::lock_guard<std::mutex> lock(trust_mutex);
  if (!trust_initialised) {
    trust_initialised = true;
    if (const char* dir = std::getenv("VDLA_TRUSTED_KEYS"); dir && *dir) {
      process_trust = loadTrustedKeys(dir);
      process_trust.source = std::string("$VDLA_TRUSTED_KEYS (") + dir + ")";
    }
  }
  return process_trust;
}

void verifyArtifactSignature(const uint8_t* data, size_t size, const TrustedKeys& keys, const std::string& source) {
  const std::string trust = "keys trusted from " + keys.source;
  if (!signaturesSupported())
    throw ArtifactError(source + ": artifacts must be signed by " + trust +
                        ", but this runtime was built without signature support (libsodium); refusing it");
  requireSupport(source);
  if (!hasSignatureTrailer(data, size))
    throw ArtifactError(source + ": unsigned artifact; refusing it (" + trust + ")");
  const size_t payload = size - kSignatureTrailerBytes;
  PublicKey signer;
  std::memcpy(signer.data(), data + payload, 32);
  if (std::find(keys.keys.begin(), keys.keys.end(), signer) == keys.keys.end())
    throw ArtifactError(source + ": signed by key " + publicKeyHex(signer).substr(0, 16) +
                        "..., which is not trusted; refusing it (" + trust + ")");
#ifdef VDLA_WITH_SODIUM
  if (crypto_sign_verify_detached(data + payload + 32, data, payload, signer.data()) != 0)
    throw ArtifactError(source + ": the signature does not match the contents (altered after signing); refusing it");
#endif
}

}  // namespace vdla::rt
