#pragma once
// The model options of the model commands (compile, run, inspect, profile,
// explore); where a model comes from is the API layer's (vdla/api/model_source.h).
#include "cli.h"
#include "vdla/api/model_source.h"
#include "vdla/api/report_format.h"

namespace vdla::cli {

using api::classifyModel;
using api::loadModelGraph;
using api::ModelKind;
using api::modelKindName;
using api::ModelOptions;
using api::zooModelList;

// Adds --batch, --image-size and --seed.
void addModelOptions(po::options_description& options);
ModelOptions modelOptionsFrom(const po::variables_map& vm);
// True when any of them was given explicitly.
bool modelOptionsGiven(const po::variables_map& vm);

using api::formatBytes;
using api::formatCount;
using api::formatSeconds;

}  // namespace vdla::cli
