// ImageNet preprocessing against torchvision's own, image by image: the shared
// photographs, and PNG, greyscale JPEG and CMYK JPEG files generated with PIL.
// torchvision_preprocess.py (run with VDLA_TORCH_PYTHON, which must have torch,
// torchvision and PIL) writes torchvision's tensors and its intermediate
// images; the runtime's must agree within 2/255 of a pixel value before
// Normalize. The decoded and resized 8-bit images are compared as well, so a
// failure says which step differs.
//
// Without torchvision these tests fail rather than skip: a comparison that
// quietly does not run would let the preprocessing drift unnoticed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "vdla/runtime/image.h"
#include "vdla/runtime/imagenet.h"
#include "vdla/runtime/npy.h"

namespace vdla::rt {
namespace {

namespace fs = std::filesystem;

// The tolerance, two grey levels: in levels for 8-bit images; for tensors in
// ToTensor's units (0..1, before Normalize), with room for the float rounding
// that undoing Normalize adds.
constexpr int kToleranceLevels = 2;
constexpr double kTolerance = kToleranceLevels / 255.0 + 1e-6;

const std::string kPython = VDLA_TORCH_PYTHON;
const std::string kScriptDir = VDLA_RUNTIME_TEST_DIR;

// A fresh directory under the system's temporary one, removed with its files.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "vdla_preprocess_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a directory like " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command with its output captured; the failure explains itself
// with the command and what it printed.
::testing::AssertionResult runCommand(const std::string& command, const fs::path& log) {
  const int status = std::system((command + " >" + shellQuote(log.string()) + " 2>&1").c_str());
  if (status == 0) return ::testing::AssertionSuccess();
  std::ifstream in(log);
  std::stringstream output;
  output << in.rdbuf();
  const std::string how = status != -1 && WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                            : "status " + std::to_string(status);
  return ::testing::AssertionFailure() << "command failed (" << how << "): " << command << "\n" << output.str();
}

::testing::AssertionResult torchvisionAvailable(const fs::path& scratch) {
  const std::string probe = shellQuote(kPython) + " -c 'import torch, torchvision, PIL, numpy'";
  ::testing::AssertionResult ok = runCommand(probe, scratch / "probe.log");
  if (ok) return ok;
  return ::testing::AssertionFailure()
         << "the comparison with torchvision needs " << kPython
         << " with torch, torchvision, PIL and numpy (Debian: python3-torch python3-torchvision python3-pil "
            "python3-numpy; or configure with -DVDLA_TORCH_PYTHON=/path/to/python3). "
         << ok.message();
}

// Writes torchvision's tensors and intermediate images of `images` into `out`.
::testing::AssertionResult torchvisionPreprocess(const std::vector<fs::path>& images, const fs::path& out) {
  std::string command = shellQuote(kPython) + " " + shellQuote(kScriptDir + "/torchvision_preprocess.py") + " " +
                        shellQuote(out.string());
  for (const fs::path& image : images) command += " " + shellQuote(image.string());
  return runCommand(command, out / "torchvision.log");
}

// Grey levels (0..255) by which two 8-bit images differ at most; -1 when their
// sizes differ.
int maxLevelDifference(const Image& ours, const Tensor& theirs) {
  if (theirs.dtype() != DType::U8 || theirs.shape() != Shape{ours.height, ours.width, 3}) return -1;
  const uint8_t* t = theirs.data<uint8_t>();
  int max = 0;
  for (size_t i = 0; i < ours.pixels.size(); ++i) max = std::max(max, std::abs(int{ours.pixels[i]} - int{t[i]}));
  return max;
}

struct Difference {
  double max = 0;  // pixel units, before Normalize
  double mean = 0;
};

// |ours - theirs| times the channel's std, which undoes Normalize's division,
// so that it reads in ToTensor's units (a grey level is 1/255).
Difference tensorDifference(const Tensor& ours, const Tensor& theirs, const std::array<float, 3>& stddev) {
  const int64_t plane = ours.numElements() / 3;
  const float* a = ours.data<float>();
  const float* b = theirs.data<float>();
  Difference d;
  for (int64_t i = 0; i < ours.numElements(); ++i) {
    const double diff = std::abs(double{a[i]} - double{b[i]}) * stddev[static_cast<size_t>(i / plane)];
    d.max = std::max(d.max, diff);
    d.mean += diff;
  }
  d.mean /= static_cast<double>(ours.numElements());
  return d;
}

// One image through the runtime, against torchvision's files in `out`.
void compareWithTorchvision(const fs::path& path, const fs::path& out, Difference* difference) {
  SCOPED_TRACE(path.string());
  const PreprocessOptions options;
  const std::string stem = (out / path.filename()).string();
  const Image decoded = loadImage(path.string());
  EXPECT_EQ(maxLevelDifference(decoded, loadNpy(stem + ".decoded.npy")), 0) << "decoded pixels differ from PIL's";
  int w = 0, h = 0;
  resizedSize(decoded.width, decoded.height, options.resize, &w, &h);
  const Image resized = resizeBilinearAntialiased(decoded, w, h);
  const int resize_levels = maxLevelDifference(resized, loadNpy(stem + ".resized.npy"));
  EXPECT_GE(resize_levels, 0) << "resized to " << w << "x" << h << ", torchvision to another size";
  EXPECT_LE(resize_levels, kToleranceLevels) << "resized pixels differ from PIL's by " << resize_levels << " levels";

  const Tensor ours = preprocessImageNet(decoded, options);
  const Tensor theirs = loadNpy(stem + ".npy");
  ASSERT_EQ(theirs.dtype(), DType::F32);
  ASSERT_EQ(theirs.shape(), (Shape{3, options.crop, options.crop}));
  ASSERT_EQ(ours.numElements(), theirs.numElements());
  *difference = tensorDifference(ours, theirs, options.stddev);
  EXPECT_LE(difference->max, kTolerance) << "max |runtime - torchvision| = " << difference->max * 255 << "/255";
  std::printf("  %-48s max %.3g/255, mean %.3g/255 (resized 8-bit image: max %d levels apart)\n",
              path.filename().string().c_str(), difference->max * 255, difference->mean * 255, resize_levels);
}

// Preprocesses every image with the runtime and with torchvision, checks that
// they agree and prints the differences.
void expectLikeTorchvision(const std::vector<fs::path>& images) {
  ASSERT_FALSE(images.empty());
  ScratchDir out;
  ASSERT_TRUE(torchvisionAvailable(out.path()));
  ASSERT_TRUE(torchvisionPreprocess(images, out.path()));
  Difference worst;
  for (const fs::path& path : images) {
    Difference d;
    compareWithTorchvision(path, out.path(), &d);
    worst.max = std::max(worst.max, d.max);
    worst.mean += d.mean / static_cast<double>(images.size());
  }
  std::printf("%zu images: max |runtime - torchvision| %.3g/255, mean %.3g/255 (before Normalize)\n", images.size(),
              worst.max * 255, worst.mean * 255);
}

TEST(TorchvisionPreprocess, SharedPhotographs) {
  const fs::path dir = fs::path(VDLA_SHARED_DATA_DIR) / "images" / "calib";
  if (!fs::exists(dir)) GTEST_SKIP() << "missing " << dir;
  std::vector<fs::path> photos;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file()) photos.push_back(entry.path());
  std::sort(photos.begin(), photos.end());
  expectLikeTorchvision(photos);
}

// Images PIL writes (make_test_images.py), in the formats whose conversion to
// RGB has its own rules.
class GeneratedImages : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(torchvisionAvailable(images_.path()));
    ASSERT_TRUE(runCommand(shellQuote(kPython) + " " + shellQuote(kScriptDir + "/make_test_images.py") + " " +
                               shellQuote(images_.path().string()),
                           images_.path() / "make_test_images.log"));
  }
  fs::path image(const std::string& name) const { return images_.path() / name; }

 private:
  ScratchDir images_;
};

TEST_F(GeneratedImages, PngRgbRgbaAndPalette) {
  expectLikeTorchvision({image("rgb.png"), image("rgba.png"), image("palette.png")});
}

TEST_F(GeneratedImages, GreyJpegEnlarged) { expectLikeTorchvision({image("grey.jpg")}); }

TEST_F(GeneratedImages, CmykJpeg) { expectLikeTorchvision({image("cmyk.jpg")}); }

}  // namespace
}  // namespace vdla::rt
