// Signed artifacts. An artifact is a program: its CPU steps may carry a
// shared library that the runtime loads and runs, and its accelerator
// programs drive the device. The checksum in its header catches damage, not
// intent: anyone can recompute it. A signature can only be made with the
// secret key, so a deployment that trusts a set of public keys refuses every
// artifact that none of them signed, before any of its contents is loaded.
//
// A signed artifact file is the artifact's bytes followed by a trailer:
//   [artifact bytes][public key: 32][Ed25519 signature of the artifact bytes: 64]["VDLASIG1": 8]
// The trailer is detached from what it signs (the artifact itself is
// unchanged), and a runtime that trusts no keys reads a signed file like an
// unsigned one. Keys are text files: "vdla-ed25519-public <hex>" (*.pub) and
// "vdla-ed25519-secret <hex>" (*.key, readable by its owner only).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vdla::rt {

using PublicKey = std::array<uint8_t, 32>;
using SecretKey = std::array<uint8_t, 64>;
constexpr size_t kSignatureTrailerBytes = 32 + 64 + 8;

// Whether this build can make and check signatures (libsodium found).
bool signaturesSupported();

struct KeyPair {
  PublicKey public_key{};
  SecretKey secret_key{};
};
KeyPair generateKeyPair();
// Writes STEM.pub and STEM.key (mode 0600); throws naming the file.
void saveKeyPair(const KeyPair& keys, const std::string& stem);
PublicKey loadPublicKey(const std::string& path);
SecretKey loadSecretKey(const std::string& path);
std::string publicKeyHex(const PublicKey& key);

// The signed file image of artifact bytes (a signature already there is replaced).
std::vector<uint8_t> signArtifactBytes(const uint8_t* data, size_t size, const SecretKey& key);
// The size of the artifact bytes within a file image (without a trailer).
size_t artifactPayloadSize(const uint8_t* data, size_t size);
bool hasSignatureTrailer(const uint8_t* data, size_t size);

// The public keys artifacts must be signed by. Empty: nothing is checked.
struct TrustedKeys {
  std::vector<PublicKey> keys;
  std::string source;  // where they came from, for messages
  bool empty() const { return keys.empty(); }
};
// Every *.pub file of a directory; throws when there is none or one is malformed.
TrustedKeys loadTrustedKeys(const std::string& dir);

// The process's trust: set by the application (vdla run --trusted-keys), else
// read once from $VDLA_TRUSTED_KEYS (a directory) when that is set.
void setTrustedKeys(TrustedKeys keys);
const TrustedKeys& trustedKeys();

// Throws ArtifactError unless the file image carries a valid signature by
// one of `keys`: unsigned, signed by another key, or altered after signing
// are all refused, naming `source`.
void verifyArtifactSignature(const uint8_t* data, size_t size, const TrustedKeys& keys, const std::string& source);

}  // namespace vdla::rt
