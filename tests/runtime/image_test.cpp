// Image decoding, resizing, cropping and ImageNet preprocessing.
//
// Reference values for the real photograph were computed independently with
// PIL 9.4 (decoding; it uses the same system libjpeg, so pixels are equal):
//   im = Image.open(f).convert("RGB")
// and the small resizing cases with PIL's Image.resize(size, Image.BILINEAR).
// The whole preprocessing is compared with torchvision's, photo by photo, in
// torchvision_preprocess_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "vdla/runtime/image.h"
#include "vdla/runtime/imagenet.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace vdla::rt {
namespace {

#ifndef VDLA_SHARED_DATA_DIR
#define VDLA_SHARED_DATA_DIR ""
#endif

std::string calibImage(const std::string& name) { return std::string(VDLA_SHARED_DATA_DIR) + "/images/calib/" + name; }

#define REQUIRE_FILE(path)                                                    \
  do {                                                                        \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << (path); \
  } while (0)

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "/image_test_" + name; }

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes, size_t n) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
}

// A w x h image with channels c whose sample (x, y, k) is f(x, y, k).
template <typename F>
std::vector<uint8_t> pattern(int w, int h, int c, F f) {
  std::vector<uint8_t> p(size_t(w) * h * c);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) p[(size_t(y) * w + x) * c + k] = static_cast<uint8_t>(f(x, y, k));
  return p;
}

template <typename F>
void expectImageError(F&& f, const std::vector<std::string>& fragments) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << fragments.front();
  } catch (const ImageError& e) {
    for (const auto& frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- decoding

TEST(ImageDecode, PngRgbGreyAndRgbaExactly) {
  const int w = 7, h = 5;
  auto rgb = pattern(w, h, 3, [](int x, int y, int k) { return x * 30 + y * 7 + k * 50; });
  const std::string p3 = tempPath("rgb.png");
  ASSERT_TRUE(stbi_write_png(p3.c_str(), w, h, 3, rgb.data(), w * 3));
  Image im = loadImage(p3);
  ASSERT_EQ(im.width, w);
  ASSERT_EQ(im.height, h);
  EXPECT_EQ(im.pixels, rgb);

  auto grey = pattern(w, h, 1, [](int x, int y, int) { return x * 11 + y * 40; });
  const std::string p1 = tempPath("grey.png");
  ASSERT_TRUE(stbi_write_png(p1.c_str(), w, h, 1, grey.data(), w));
  im = loadImage(p1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 3; ++k) ASSERT_EQ(im.at(x, y, k), grey[size_t(y) * w + x]) << x << "," << y;

  // Alpha is dropped, not composited (PIL's convert("RGB")).
  auto rgba = pattern(w, h, 4, [](int x, int y, int k) { return k == 3 ? x * 20 : x * 30 + y * 7 + k * 50; });
  const std::string p4 = tempPath("rgba.png");
  ASSERT_TRUE(stbi_write_png(p4.c_str(), w, h, 4, rgba.data(), w * 4));
  im = loadImage(p4);
  EXPECT_EQ(im.pixels, rgb);
  for (const auto& p : {p1, p3, p4}) std::remove(p.c_str());
}

TEST(ImageDecode, JpegCloseToTheSource) {
  const int w = 64, h = 48;
  auto rgb = pattern(w, h, 3, [](int x, int y, int k) { return k == 0 ? x * 4 : k == 1 ? y * 5 : 128; });
  const std::string path = tempPath("smooth.jpg");
  ASSERT_TRUE(stbi_write_jpg(path.c_str(), w, h, 3, rgb.data(), 100));
  Image im = loadImage(path);
  ASSERT_EQ(im.width, w);
  ASSERT_EQ(im.height, h);
  double err = 0;
  for (size_t i = 0; i < rgb.size(); ++i) err = std::max(err, std::abs(double(im.pixels[i]) - rgb[i]));
  EXPECT_LE(err, 8.0);  // lossy, but a smooth ramp at quality 100 stays close
  std::remove(path.c_str());
}

TEST(ImageDecode, RealPhotographMatchesPil) {
  const std::string path = calibImage("n01644900_tailed_frog.JPEG");
  REQUIRE_FILE(path);
  Image im = loadImage(path);
  ASSERT_EQ(im.width, 430);
  ASSERT_EQ(im.height, 299);
  int64_t sums[3] = {0, 0, 0};
  for (size_t i = 0; i < im.pixels.size(); ++i) sums[i % 3] += im.pixels[i];
  EXPECT_EQ(sums[0], 18936885);
  EXPECT_EQ(sums[1], 15885301);
  EXPECT_EQ(sums[2], 12288318);
  auto px = [&](int x, int y) { return std::vector<int>{im.at(x, y, 0), im.at(x, y, 1), im.at(x, y, 2)}; };
  EXPECT_EQ(px(0, 0), (std::vector<int>{185, 146, 117}));
  EXPECT_EQ(px(17, 123), (std::vector<int>{142, 114, 77}));
  EXPECT_EQ(px(429, 298), (std::vector<int>{190, 149, 119}));
  EXPECT_EQ(px(200, 150), (std::vector<int>{97, 87, 75}));
}

TEST(ImageDecode, EveryCalibrationImageDecodes) {
  const std::string dir = std::string(VDLA_SHARED_DATA_DIR) + "/images/calib";
  REQUIRE_FILE(dir);
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    Image im = loadImage(entry.path().string());
    EXPECT_GT(im.width, 0);
    EXPECT_EQ(im.pixels.size(), size_t(im.width) * im.height * 3);
    ++n;
  }
  EXPECT_GT(n, 0);
}

TEST(ImageDecode, BadFilesAreRefusedNamingTheFile) {
  expectImageError([] { loadImage(tempPath("does_not_exist.jpg")); }, {"does_not_exist.jpg: cannot open image"});
  const std::string empty = tempPath("empty.jpg");
  writeBytes(empty, {}, 0);
  expectImageError([&] { loadImage(empty); }, {"empty.jpg: empty file, not an image"});
  const std::string text = tempPath("text.png");
  std::ofstream(text) << "this is not an image";
  expectImageError([&] { loadImage(text); }, {"text.png: not a JPEG or PNG image"});
  std::vector<uint8_t> gif = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0};
  EXPECT_THROW(decodeImage(gif.data(), gif.size(), "x.gif"), ImageError);
  for (const auto& p : {empty, text}) std::remove(p.c_str());
}

TEST(ImageDecode, TruncatedJpegIsRefused) {
  const int w = 64, h = 64;
  auto rgb = pattern(w, h, 3, [](int x, int y, int k) { return (x * y + k * 31) & 0xff; });
  const std::string good = tempPath("good.jpg");
  ASSERT_TRUE(stbi_write_jpg(good.c_str(), w, h, 3, rgb.data(), 90));
  std::vector<uint8_t> bytes = readBytes(good);
  ASSERT_NO_THROW(decodeImage(bytes.data(), bytes.size(), "good.jpg"));
  // Cut in the headers, in the entropy-coded data, and just before EOI.
  for (size_t n : {size_t(3), size_t(20), size_t(200), bytes.size() / 2, bytes.size() - 2}) {
    expectImageError([&] { decodeImage(bytes.data(), n, "cut.jpg"); }, {"cut.jpg: bad JPEG image"});
  }
  std::remove(good.c_str());
}

TEST(ImageDecode, TruncatedRealJpegIsRefused) {
  const std::string path = calibImage("n01910747_jellyfish.JPEG");
  REQUIRE_FILE(path);
  std::vector<uint8_t> bytes = readBytes(path);
  const std::string cut = tempPath("cut_jellyfish.JPEG");
  writeBytes(cut, bytes, bytes.size() * 2 / 3);
  expectImageError([&] { loadImage(cut); }, {"cut_jellyfish.JPEG: bad JPEG image", "Premature end"});
  std::remove(cut.c_str());
}

TEST(ImageDecode, TruncatedAndDamagedPngIsRefused) {
  const int w = 40, h = 30;
  auto rgb = pattern(w, h, 3, [](int x, int y, int k) { return (x * 13 + y * 29 + k * 7) & 0xff; });
  const std::string good = tempPath("good.png");
  ASSERT_TRUE(stbi_write_png(good.c_str(), w, h, 3, rgb.data(), w * 3));
  std::vector<uint8_t> bytes = readBytes(good);
  for (size_t n : {size_t(8), size_t(20), size_t(40), bytes.size() / 2, bytes.size() - 13}) {
    expectImageError([&] { decodeImage(bytes.data(), n, "cut.png"); }, {"cut.png: bad PNG image"});
  }
  std::remove(good.c_str());
}

// ---------------------------------------------------------------- geometry

PlanarImage planar(int w, int h, std::vector<float> values) {
  PlanarImage p;
  p.channels = 1;
  p.width = w;
  p.height = h;
  p.data = std::move(values);
  return p;
}

TEST(ImageResize, HalvingAveragesNeighbours) {
  // 4x2 -> 2x1: source x = (x + 0.5) * 2 - 0.5 = 0.5 and 2.5, y = 0.5.
  PlanarImage in = planar(4, 2, {0, 10, 20, 30, 40, 50, 60, 70});
  PlanarImage out = resizeBilinear(in, 2, 1);
  EXPECT_FLOAT_EQ(out.at(0, 0, 0), (0 + 10 + 40 + 50) / 4.0f);
  EXPECT_FLOAT_EQ(out.at(0, 0, 1), (20 + 30 + 60 + 70) / 4.0f);
}

TEST(ImageResize, UpscalingClampsAtTheBorders) {
  // 2x1 -> 4x1: source x = (x + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25 (upper tap clamped).
  PlanarImage out = resizeBilinear(planar(2, 1, {0, 100}), 4, 1);
  EXPECT_FLOAT_EQ(out.at(0, 0, 0), 0);
  EXPECT_FLOAT_EQ(out.at(0, 0, 1), 25);
  EXPECT_FLOAT_EQ(out.at(0, 0, 2), 75);
  EXPECT_FLOAT_EQ(out.at(0, 0, 3), 100);
  // Same size: the identity.
  PlanarImage same = resizeBilinear(planar(3, 2, {1, 2, 3, 4, 5, 6}), 3, 2);
  EXPECT_EQ(same.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// A one-channel pattern as an RGB image (the three channels equal).
Image greyImage(int w, int h, const std::vector<int>& values) {
  Image im;
  im.width = w;
  im.height = h;
  for (int v : values) im.pixels.insert(im.pixels.end(), 3, static_cast<uint8_t>(v));
  return im;
}

std::vector<int> firstChannel(const Image& im) {
  std::vector<int> out;
  for (size_t i = 0; i < im.pixels.size(); i += 3) out.push_back(im.pixels[i]);
  return out;
}

TEST(ImageResizeAntialiased, HalvingWidensTheTent) {
  // 4 -> 2: scale 2, so the tent reaches 2 input pixels either side. Output 0
  // is centred at 1.0 and reads inputs 0..2 at distances 0.5, 0.5, 1.5 (tent
  // 0.75, 0.75, 0.25, normalised 3/7, 3/7, 1/7); output 1 likewise mirrored.
  Image out = resizeBilinearAntialiased(greyImage(4, 1, {0, 70, 140, 210}), 2, 1);
  ASSERT_EQ(out.width, 2);
  ASSERT_EQ(out.height, 1);
  EXPECT_EQ(firstChannel(out), (std::vector<int>{(3 * 0 + 3 * 70 + 140) / 7, (70 + 3 * 140 + 3 * 210) / 7}));
}

TEST(ImageResizeAntialiased, EnlargingIsPlainBilinear) {
  // Centres at 0.25, 0.75, 1.25, 1.75; the tent keeps radius 1 and the border
  // pixels repeat.
  EXPECT_EQ(firstChannel(resizeBilinearAntialiased(greyImage(2, 1, {0, 100}), 4, 1)),
            (std::vector<int>{0, 25, 75, 100}));
}

TEST(ImageResizeAntialiased, HalvesRoundUp) {
  EXPECT_EQ(firstChannel(resizeBilinearAntialiased(greyImage(2, 1, {0, 1}), 1, 1)), (std::vector<int>{1}));
  EXPECT_EQ(firstChannel(resizeBilinearAntialiased(greyImage(2, 1, {0, 255}), 1, 1)), (std::vector<int>{128}));
}

TEST(ImageResizeAntialiased, RowsFirstRoundedToEightBits) {
  // Rows: (0 + 1) / 2 = 0.5 -> 1 and (0 + 3) / 2 = 1.5 -> 2; then the column:
  // 1.5 -> 2. In float (or columns first) the answer would be 1.
  EXPECT_EQ(firstChannel(resizeBilinearAntialiased(greyImage(2, 2, {0, 1, 0, 3}), 1, 1)), (std::vector<int>{2}));
  EXPECT_EQ(firstChannel(resizeBilinearAntialiased(greyImage(2, 2, {0, 0, 1, 3}), 1, 1)), (std::vector<int>{1}));
}

TEST(ImageResizeAntialiased, SameSizeIsTheIdentityAndBadSizesAreRefused) {
  Image im = greyImage(3, 2, {10, 20, 30, 40, 50, 60});
  im.pixels[4] = 99;  // channels need not be equal
  EXPECT_EQ(resizeBilinearAntialiased(im, 3, 2).pixels, im.pixels);
  EXPECT_THROW(resizeBilinearAntialiased(im, 0, 2), ImageError);
  EXPECT_THROW(resizeBilinearAntialiased(Image{}, 2, 2), ImageError);
}

TEST(ImageCrop, CentreWithRoundHalfToEven) {
  std::vector<float> row7 = {0, 1, 2, 3, 4, 5, 6};
  // (7 - 2) / 2 = 2.5 -> 2; (6 - 3) / 2 = 1.5 -> 2; (5 - 2) / 2 = 1.5 -> 2.
  EXPECT_EQ(centerCrop(planar(7, 1, row7), 2, 1).data, (std::vector<float>{2, 3}));
  EXPECT_EQ(centerCrop(planar(6, 1, {0, 1, 2, 3, 4, 5}), 3, 1).data, (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(centerCrop(planar(5, 1, {0, 1, 2, 3, 4}), 2, 1).data, (std::vector<float>{2, 3}));
  EXPECT_EQ(centerCrop(planar(1, 5, {0, 1, 2, 3, 4}), 1, 3).data, (std::vector<float>{1, 2, 3}));
  EXPECT_THROW(centerCrop(planar(2, 1, {0, 1}), 3, 1), ImageError);
}

TEST(ImagePreprocess, ResizedSizeTruncatesTheLongSide) {
  int w = 0, h = 0;
  resizedSize(430, 299, 256, &w, &h);
  EXPECT_EQ(w, 368);  // int(256 * 430 / 299) = int(368.16)
  EXPECT_EQ(h, 256);
  resizedSize(500, 375, 256, &w, &h);
  EXPECT_EQ(w, 341);  // int(341.33)
  EXPECT_EQ(h, 256);
  resizedSize(300, 400, 256, &w, &h);
  EXPECT_EQ(w, 256);
  EXPECT_EQ(h, 341);  // int(341.33)
  // Extreme aspect ratios are refused rather than allocated.
  Image thin;
  thin.width = 1;
  thin.height = 1 << 20;
  thin.pixels.assign(size_t(3) << 20, 0);
  EXPECT_THROW(preprocessImageNet(thin), ImageError);
}

// A synthetic image whose preprocessing is computed by hand: an 8x4 image
// resized to short side 4 stays 8x4 (identity), the 2x2 centre crop starts at
// (3, 1), and each value is normalised.
TEST(ImagePreprocess, SyntheticImageByHand) {
  Image im;
  im.width = 8;
  im.height = 4;
  im.pixels = pattern(8, 4, 3, [](int x, int y, int k) { return x * 10 + y * 50 + k; });
  PreprocessOptions opt;
  opt.resize = 4;
  opt.crop = 2;
  Tensor t = preprocessImageNet(im, opt);
  ASSERT_EQ(t.shape(), (Shape{1, 3, 2, 2}));
  const float* v = t.data<float>();
  for (int k = 0; k < 3; ++k)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        float pixel = float((x + 3) * 10 + (y + 1) * 50 + k);
        float want = (pixel / 255.0f - opt.mean[k]) / opt.stddev[k];
        EXPECT_NEAR(v[(k * 2 + y) * 2 + x], want, 1e-6) << k << "," << y << "," << x;
      }
  // A uniform mid-grey image normalises to the same value everywhere.
  im.pixels.assign(im.pixels.size(), 128);
  Tensor g = preprocessImageNet(im, opt);
  EXPECT_NEAR(g.data<float>()[0], (128 / 255.0f - 0.485f) / 0.229f, 1e-6);
  EXPECT_NEAR(g.data<float>()[11], (128 / 255.0f - 0.406f) / 0.225f, 1e-6);
}

// ---------------------------------------------------------------- labels, top-k

TEST(ImageNet, TopKOrdersAndBreaksTiesByIndex) {
  Tensor logits = Tensor::fromVector<float>({2, 5}, {0, 3, 1, 3, -1, /* row 1 */ 5, 4, 3, 2, 1});
  std::vector<Prediction> top = topK(logits, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].index, 1);
  EXPECT_EQ(top[1].index, 3);
  EXPECT_EQ(top[2].index, 2);
  EXPECT_FLOAT_EQ(top[0].score, 3);
  double z = std::exp(0.0) + 2 * std::exp(3.0) + std::exp(1.0) + std::exp(-1.0);
  EXPECT_NEAR(top[0].probability, std::exp(3.0) / z, 1e-6);
  std::vector<Prediction> row1 = topK(logits, 10, 1);
  ASSERT_EQ(row1.size(), 5u);  // k larger than the class count
  EXPECT_EQ(row1[4].index, 4);
  EXPECT_THROW(topK(logits, 1, 2), std::invalid_argument);
  Tensor nan = Tensor::fromVector<float>({3}, {NAN, 1, 0});
  EXPECT_EQ(topK(nan, 1)[0].index, 1);
}

TEST(ImageNet, LabelsFile) {
  const std::string path = tempPath("labels.txt");
  std::ofstream(path) << "tench\r\ngoldfish  \ngreat white shark\n\n\n";
  EXPECT_EQ(loadClassLabels(path), (std::vector<std::string>{"tench", "goldfish", "great white shark"}));
  std::ofstream(path) << "\n\n";
  EXPECT_THROW(loadClassLabels(path), std::runtime_error);
  std::remove(path.c_str());
  try {
    loadClassLabels(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("labels.txt: cannot open labels file"), std::string::npos) << e.what();
  }
  const std::string shared = std::string(VDLA_SHARED_DATA_DIR) + "/imagenet_classes.txt";
  if (std::filesystem::exists(shared)) {
    std::vector<std::string> names = loadClassLabels(shared);
    ASSERT_EQ(names.size(), 1000u);
    EXPECT_EQ(names[0], "tench");
  }
}

}  // namespace
}  // namespace vdla::rt
