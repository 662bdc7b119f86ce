#pragma once
// Calibration samples for quantising an fp32 model: photos preprocessed as
// ImageNet models expect them, at the model's input size.
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/tensor.h"

namespace vdla::api {

// Image files (JPEG/PNG) in a directory, sorted by name; throws vdla::Error
// naming the directory when there are none.
std::vector<std::string> imageFilesIn(const std::string& dir);

// The input tensor of an f32[N,3,S,S] image model for one photo: resized to
// S*256/224, centre-cropped to S, normalised; the batch filled with copies.
// Throws vdla::Error naming the file or the model's input type.
rt::Tensor imageInputFor(const std::string& image_path, const rt::TensorType& input_type);

// One sample per image (the first `count` of the directory's, sorted), as
// CompileOptions::calibration takes them.
std::vector<std::vector<rt::Tensor>> calibrationFromImages(const std::string& dir, int count, const ir::Graph& graph);

}  // namespace vdla::api
