// Signed artifacts: with trusted keys configured, an artifact is refused
// before it is parsed unless one of them signed exactly these bytes (a
// flipped byte, a signature by an untrusted key and a stripped signature are
// all refused, naming the reason); without trusted keys a signed artifact
// loads like any other.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vdla/runtime/artifact.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::rt {
namespace {

namespace fs = std::filesystem;

// A small valid artifact: one ReLU step.
std::vector<uint8_t> artifactBytes() {
  Artifact a;
  a.model_name = "signed";
  ArtifactTensor x, y;
  x.name = "x";
  x.type = {DType::F32, {4}, Layout::RowMajor};
  y.name = "y";
  y.type = x.type;
  a.tensors = {x, y};
  a.inputs = {0};
  ArtifactStep s;
  s.kernel = "ref.Relu";
  s.name = "relu";
  s.inputs = {0};
  s.outputs = {1};
  a.steps = {s};
  a.outputs = {1};
  return serializeArtifact(a);
}

class ArtifactSignature : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(signaturesSupported()) << "this build has no libsodium (libsodium-dev)";
    dir_ = fs::temp_directory_path() / ("vdla-sig-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "trusted");
    saveKeyPair(generateKeyPair(), (dir_ / "build").string());
    saveKeyPair(generateKeyPair(), (dir_ / "stranger").string());
    fs::copy_file(dir_ / "build.pub", dir_ / "trusted" / "build.pub");
    trusted_ = loadTrustedKeys((dir_ / "trusted").string());
  }
  void TearDown() override {
    setTrustedKeys({});
    fs::remove_all(dir_);
  }
  std::vector<uint8_t> signedBy(const std::string& stem, const std::vector<uint8_t>& bytes) {
    return signArtifactBytes(bytes.data(), bytes.size(), loadSecretKey((dir_ / (stem + ".key")).string()));
  }
  std::string refusal(const std::vector<uint8_t>& bytes) {
    setTrustedKeys(trusted_);
    try {
      deserializeArtifact(bytes, "a.vdla");
    } catch (const ArtifactError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  TrustedKeys trusted_;
};

TEST_F(ArtifactSignature, TrustedSignatureLoads) {
  const std::vector<uint8_t> plain = artifactBytes();
  const std::vector<uint8_t> signed_bytes = signedBy("build", plain);
  ASSERT_EQ(signed_bytes.size(), plain.size() + kSignatureTrailerBytes);
  EXPECT_TRUE(std::equal(plain.begin(), plain.end(), signed_bytes.begin())) << "the signature is detached";
  EXPECT_EQ(refusal(signed_bytes), "");
  setTrustedKeys(trusted_);
  EXPECT_EQ(deserializeArtifact(signed_bytes, "a.vdla").steps.at(0).name, "relu");
  // Signing again replaces the signature rather than stacking one.
  EXPECT_EQ(signedBy("build", signed_bytes), signed_bytes);
}

TEST_F(ArtifactSignature, EveryFlippedByteIsRefused) {
  const std::vector<uint8_t> signed_bytes = signedBy("build", artifactBytes());
  for (size_t i = 0; i < signed_bytes.size(); ++i) {
    std::vector<uint8_t> bad = signed_bytes;
    bad[i] ^= 0x10;
    EXPECT_NE(refusal(bad), "") << "byte " << i << " flipped and still accepted";
  }
  std::vector<uint8_t> bad = signed_bytes;
  bad[40] ^= 1;  // inside the artifact: the signature no longer matches
  EXPECT_NE(refusal(bad).find("altered after signing"), std::string::npos) << refusal(bad);
}

TEST_F(ArtifactSignature, UntrustedKeyIsRefused) {
  // A tampered artifact re-signed with a key the deployment does not trust.
  std::vector<uint8_t> plain = artifactBytes();
  plain[40] ^= 1;
  const std::string why = refusal(signedBy("stranger", plain));
  EXPECT_NE(why.find("not trusted"), std::string::npos) << why;
}

TEST_F(ArtifactSignature, StrippedSignatureIsRefused) {
  const std::vector<uint8_t> signed_bytes = signedBy("build", artifactBytes());
  const std::vector<uint8_t> stripped(signed_bytes.begin(),
                                      signed_bytes.end() - std::ptrdiff_t(kSignatureTrailerBytes));
  const std::string why = refusal(stripped);
  EXPECT_NE(why.find("unsigned artifact; refusing it"), std::string::npos) << why;
}

TEST_F(ArtifactSignature, WithoutTrustedKeysSignedAndUnsignedLoad) {
  setTrustedKeys({});
  EXPECT_NO_THROW(deserializeArtifact(artifactBytes(), "plain.vdla"));
  EXPECT_NO_THROW(deserializeArtifact(signedBy("build", artifactBytes()), "signed.vdla"));
}

TEST_F(ArtifactSignature, BadTrustedKeyDirectoriesAreErrors) {
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(loadTrustedKeys((dir_ / "empty").string()), ArtifactError);
  EXPECT_THROW(loadTrustedKeys((dir_ / "missing").string()), ArtifactError);
  std::ofstream(dir_ / "trusted" / "broken.pub") << "vdla-ed25519-public 12zz\n";
  EXPECT_THROW(loadTrustedKeys((dir_ / "trusted").string()), ArtifactError);
  // A secret key is never taken for a public one.
  EXPECT_THROW(loadPublicKey((dir_ / "build.key").string()), ArtifactError);
  EXPECT_EQ(fs::status(dir_ / "build.key").permissions() & fs::perms::others_read, fs::perms::none);
}

}  // namespace
}  // namespace vdla::rt
