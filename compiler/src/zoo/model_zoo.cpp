#include "vdla/compiler/zoo/model_zoo.h"

#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "vdla/compiler/passes/shape_inference.h"
#include "zoo_models.h"

namespace vdla::zoo {

namespace {

struct ZooEntry {
  const char* name;
  int64_t min_image_size;
  std::function<void(detail::ModelBuilder&, const ZooOptions&)> build;
};

const std::vector<ZooEntry>& entries() {
  static const std::vector<ZooEntry> table = {
      {"resnet18", 32, [](auto& b, const auto& o) { detail::buildResNet(b, 18, o); }},
      {"resnet34", 32, [](auto& b, const auto& o) { detail::buildResNet(b, 34, o); }},
      {"resnet50", 32, [](auto& b, const auto& o) { detail::buildResNet(b, 50, o); }},
      {"mobilenetv2", 32, detail::buildMobileNetV2},
      {"cnn", 8, detail::buildSmallCnn},
  };
  return table;
}

std::string joinedNames() {
  std::string s;
  for (const auto& n : modelNames()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.push_back(e.name);
  return names;
}

bool isZooModel(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return true;
  return false;
}

std::unique_ptr<ir::Graph> buildModel(const std::string& name, const ZooOptions& options) {
  const ZooEntry* entry = nullptr;
  for (const auto& e : entries())
    if (name == e.name) entry = &e;
  if (!entry) throw std::invalid_argument("unknown zoo model '" + name + "' (built in: " + joinedNames() + ")");
  if (options.batch < 1) throw std::invalid_argument(name + ": batch must be at least 1");
  if (options.num_classes < 1) throw std::invalid_argument(name + ": num_classes must be at least 1");
  if (options.image_size < entry->min_image_size)
    throw std::invalid_argument(name + ": image_size must be at least " + std::to_string(entry->min_image_size) +
                                ", got " + std::to_string(options.image_size));
  auto graph = std::make_unique<ir::Graph>();
  graph->name = name;
  detail::ModelBuilder builder(*graph, options.seed);
  entry->build(builder, options);
  passes::inferShapes(*graph);
  return graph;
}

int64_t parameterCount(const ir::Graph& graph) {
  std::unordered_set<const ir::Value*> running_stats;
  for (const ir::Node* node : graph.nodes())
    if (node->op() == "BatchNormalization" && node->domain().empty())
      for (size_t i = 3; i <= 4; ++i)
        if (node->input(i)) running_stats.insert(node->input(i));
  int64_t total = 0;
  for (const ir::Value* c : graph.constants()) {
    const rt::Tensor& t = c->constant();
    if (t.dtype() == rt::DType::F32 && t.rank() >= 1 && !running_stats.count(c)) total += t.numElements();
  }
  return total;
}

}  // namespace vdla::zoo
