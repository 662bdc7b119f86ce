// The import driver: model checks, constants, inputs, nodes in dependency order
// (each normalised into its IR form and typed as soon as it is added, so that
// the next node's normaliser sees its input shapes), outputs, then the
// compiler's own shape inference and verifier over the whole graph.
#include "vdla/frontend/onnx_importer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <new>
#include <set>

#include "attributes.h"
#include "constant_node.h"
#include "external_data.h"
#include "import_limits.h"
#include "model_reader.h"
#include "op_normalize.h"
#include "shape_folding.h"
#include "tensor_proto.h"
#include "value_info.h"
#include "vdla/compiler/ir/op_registry.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::frontend {

namespace {

using detail::OnnxNode;

// Opset versions of the default domain the importer accepts.
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 21;
const char* const kMicrosoftDomain = "com.microsoft";

std::string normalizeDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string source, const OnnxImportOptions& options)
      : model_(model), source_(std::move(source)), options_(options), graph_(std::make_unique<ir::Graph>()) {}

  std::unique_ptr<ir::Graph> run() {
    readModelHeader();
    const onnx::GraphProto& g = model_.graph();
    graph_->name = g.name().empty() ? source_ : g.name();
    if (g.sparse_initializer_size() > 0) fail("sparse initializers are not supported");
    addInitializers(g);
    addInputs(g);
    for (size_t index : nodeOrder(g)) importNode(g, index);
    addOutputs(g);
    graph_->removeUnusedValues();
    try {
      passes::inferShapes(*graph_);
      ir::verifyGraphOrThrow(*graph_);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { throw OnnxImportError(source_ + ": " + reason); }

  // "node 3 'conv1' (Conv)": how messages name a node of the file.
  static std::string nodeLabel(const onnx::NodeProto& node, size_t index) {
    std::string label = "node " + std::to_string(index);
    if (!node.name().empty()) label += " '" + node.name() + "'";
    std::string domain = normalizeDomain(node.domain());
    label += " (" + (domain.empty() ? node.op_type() : domain + "." + node.op_type()) + ")";
    return label;
  }

  void readModelHeader() {
    if (!model_.has_graph()) fail("the model has no graph");
    if (model_.ir_version() < 3)
      fail("IR version " + std::to_string(model_.ir_version()) + " is not supported (3 or newer, with opset_import)");
    for (const onnx::OperatorSetIdProto& op : model_.opset_import()) {
      const std::string domain = normalizeDomain(op.domain());
      if (!opsets_.emplace(domain, op.version()).second) fail("opset_import lists domain '" + domain + "' twice");
    }
    auto it = opsets_.find("");
    if (it == opsets_.end()) fail("opset_import has no entry for the default ONNX domain");
    if (it->second < kMinOpset || it->second > kMaxOpset)
      fail("opset " + std::to_string(it->second) + " of the default domain is not supported (supported: " +
           std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset) + ")");
  }

  int64_t opsetFor(const std::string& domain) const {
    auto it = opsets_.find(domain);
    if (domain != "" && domain != kMicrosoftDomain)
      throw std::runtime_error("domain '" + domain + "' is not supported");
    if (it == opsets_.end())
      throw std::runtime_error("domain '" + domain + "' is not listed in the model's opset_import");
    return it->second;
  }

  void define(const std::string& name, ir::Value* v, const std::string& what) {
    if (name.empty()) fail(what + " has no name");
    if (!values_.emplace(name, v).second) fail(what + ": the name '" + name + "' is defined twice");
  }

  void addInitializers(const onnx::GraphProto& g) {
    for (const onnx::TensorProto& t : g.initializer()) {
      const std::string what = "initializer '" + t.name() + "'";
      if (t.name().empty()) fail("an initializer has no name");
      if (values_.count(t.name())) fail(what + " is defined twice");
      try {
        define(t.name(), graph_->addConstant(t.name(), detail::tensorFromProto(t)), what);
      } catch (const OnnxImportError&) {
        throw;
      } catch (const std::bad_alloc&) {
        fail(what + ": out of memory");
      } catch (const std::exception& e) {
        fail(what + ": " + e.what());
      }
    }
  }

  void addInputs(const onnx::GraphProto& g) {
    std::set<std::string> inputs;
    for (const onnx::ValueInfoProto& info : g.input()) {
      const std::string what = "graph input '" + info.name() + "'";
      if (!inputs.insert(info.name()).second) fail(what + " is listed twice");
      // Old exporters list initializers as inputs too; they stay constants.
      if (values_.count(info.name())) continue;
      try {
        rt::TensorType type = detail::inputType(info, options_);
        auto bound = options_.input_values.find(info.name());
        if (bound == options_.input_values.end()) {
          define(info.name(), graph_->addInput(info.name(), type), what);
          continue;
        }
        const rt::Tensor& value = bound->second;
        if (value.type() != type)
          throw std::runtime_error("input_values gives " + value.type().toString() + ", the input is " +
                                   type.toString());
        define(info.name(), graph_->addConstant(info.name(), value), what);
      } catch (const OnnxImportError&) {
        throw;
      } catch (const std::exception& e) {
        fail(what + ": " + e.what());
      }
    }
    for (const auto& [name, shape] : options_.input_shapes)
      if (!inputs.count(name)) fail("input_shapes names '" + name + "', which is not a graph input");
    for (const auto& [name, value] : options_.input_values)
      if (!inputs.count(name)) fail("input_values names '" + name + "', which is not a graph input");
  }

  // Node indices in dependency order (ONNX requires sorted nodes; not every
  // exporter complies). Refuses undefined inputs, values produced twice and cycles.
  std::vector<size_t> nodeOrder(const onnx::GraphProto& g) {
    const size_t n = static_cast<size_t>(g.node_size());
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < n; ++i) {
      const onnx::NodeProto& node = g.node(static_cast<int>(i));
      for (const std::string& out : node.output()) {
        if (out.empty()) continue;
        if (values_.count(out))
          fail(nodeLabel(node, i) + ": output '" + out + "' is also a graph input or initializer");
        if (!producer.emplace(out, i).second) fail(nodeLabel(node, i) + ": output '" + out + "' is produced twice");
      }
    }
    std::vector<std::vector<size_t>> readers(n);
    std::vector<size_t> pending(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const onnx::NodeProto& node = g.node(static_cast<int>(i));
      for (const std::string& in : node.input()) {
        if (in.empty() || values_.count(in)) continue;
        auto it = producer.find(in);
        if (it == producer.end())
          fail(nodeLabel(node, i) + ": input '" + in +
               "' is not defined (no graph input, initializer or node output has this name)");
        readers[it->second].push_back(i);
        ++pending[i];
      }
    }
    std::vector<size_t> order, ready;
    for (size_t i = n; i-- > 0;)
      if (pending[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      // Smallest index first so that sorted models keep their order.
      auto smallest = std::min_element(ready.begin(), ready.end());
      size_t i = *smallest;
      ready.erase(smallest);
      order.push_back(i);
      for (size_t r : readers[i])
        if (--pending[r] == 0) ready.push_back(r);
    }
    if (order.size() != n) {
      for (size_t i = 0; i < n; ++i)
        if (pending[i] > 0) fail(nodeLabel(g.node(static_cast<int>(i)), i) + ": is part of a cycle");
    }
    return order;
  }

  void importNode(const onnx::GraphProto& g, size_t index) {
    const onnx::NodeProto& proto = g.node(static_cast<int>(index));
    try {
      importNodeUnchecked(proto);
    } catch (const OnnxImportError&) {
      throw;
    } catch (const std::bad_alloc&) {
      fail(nodeLabel(proto, index) + ": out of memory");
    } catch (const std::exception& e) {
      fail(nodeLabel(proto, index) + ": " + e.what());
    }
  }

  void importNodeUnchecked(const onnx::NodeProto& proto) {
    if (proto.op_type().empty()) throw std::runtime_error("the node has no op_type");
    OnnxNode n;
    n.op_type = proto.op_type();
    n.domain = normalizeDomain(proto.domain());
    n.opset = opsetFor(n.domain);

    if (n.domain.empty() && n.op_type == "Constant") {
      rt::Tensor value = detail::constantNodeValue(proto);
      define(proto.output(0), graph_->addConstant(proto.output(0), std::move(value)), "Constant output");
      return;
    }
    const detail::OpSpec* spec = detail::findOpSpec(n.domain, n.op_type);
    if (!spec) throw std::runtime_error("operator is not supported");

    for (const std::string& name : proto.input()) n.inputs.push_back(name.empty() ? nullptr : values_.at(name));
    n.outputs.assign(proto.output().begin(), proto.output().end());
    const int num_inputs = static_cast<int>(n.inputs.size());
    if (num_inputs < spec->min_inputs || (spec->max_inputs >= 0 && num_inputs > spec->max_inputs))
      throw std::runtime_error(std::to_string(num_inputs) + " inputs, expected " + std::to_string(spec->min_inputs) +
                               ".." + (spec->max_inputs < 0 ? std::string("any") : std::to_string(spec->max_inputs)));
    for (int i = 0; i < spec->min_inputs; ++i)
      if (!n.inputs[static_cast<size_t>(i)])
        throw std::runtime_error("required input " + std::to_string(i) + " is missing");
    const size_t num_outputs = n.numPresentOutputs();
    if (num_outputs == 0) throw std::runtime_error("the node has no outputs");
    if (spec->max_outputs >= 0 && num_outputs > static_cast<size_t>(spec->max_outputs))
      throw std::runtime_error(std::to_string(num_outputs) + " outputs, expected at most " +
                               std::to_string(spec->max_outputs));

    n.attrs = detail::attributesFromNode(proto);
    for (const auto& [name, value] : n.attrs.all())
      if (std::find(spec->attributes.begin(), spec->attributes.end(), name) == spec->attributes.end())
        throw std::runtime_error("unsupported attribute '" + name + "'");
    if (spec->normalize) spec->normalize(n, *graph_);
    n.outputs.resize(n.numPresentOutputs());

    const std::string name = graph_->uniqueName(proto.name().empty() ? n.op_type : proto.name());
    ir::Node* node =
        graph_->addNode(n.op_type, n.inputs, n.outputs.size(), std::move(n.attrs), name, n.domain, n.outputs);
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) define(n.outputs[i], node->output(i), "output");

    const ir::OpInfo* info = ir::OpRegistry::builtin().find(node->qualifiedOp());
    if (!info) throw std::runtime_error("the compiler does not know this operator yet (no shape inference)");
    info->infer_types(*node);
    for (const ir::Value* out : node->outputs()) {
      if (!out->hasType()) throw std::runtime_error("shape inference left output '" + out->name() + "' untyped");
      detail::checkedNumElements(out->type().shape, out->type().dtype, "output '" + out->name() + "'");
    }
    std::vector<ir::Value*> folded;
    if (detail::foldShapeComputation(*graph_, node, &folded))
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (!n.outputs[i].empty()) values_[n.outputs[i]] = folded[i];
  }

  void addOutputs(const onnx::GraphProto& g) {
    if (g.output_size() == 0) fail("the graph has no outputs");
    for (const onnx::ValueInfoProto& info : g.output()) {
      auto it = values_.find(info.name());
      if (it == values_.end()) fail("graph output '" + info.name() + "' is not produced by any node");
      graph_->addOutput(it->second);
    }
  }

  const onnx::ModelProto& model_;
  const std::string source_;
  const OnnxImportOptions& options_;
  std::unique_ptr<ir::Graph> graph_;
  std::map<std::string, int64_t> opsets_;
  std::map<std::string, ir::Value*> values_;  // every defined ONNX value by name
};

}  // namespace

std::unique_ptr<ir::Graph> importOnnxBytes(const std::string& bytes, const std::string& source_name,
                                           const OnnxImportOptions& options) {
  onnx::ModelProto model = detail::parseModel(bytes, source_name);
  try {
    detail::loadExternalData(model, options.external_data_dir, source_name);
  } catch (const std::runtime_error& e) {
    throw OnnxImportError(e.what());
  }
  return Importer(model, source_name, options).run();
}

std::unique_ptr<ir::Graph> importOnnxFile(const std::string& path, const OnnxImportOptions& options) {
  // External data lies beside the model unless the caller says otherwise.
  OnnxImportOptions with_dir = options;
  if (with_dir.external_data_dir.empty()) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    with_dir.external_data_dir = parent.empty() ? "." : parent.string();
  }
  return importOnnxBytes(detail::readFileBytes(path), path, with_dir);
}

std::vector<std::string> supportedOnnxOperators() {
  std::vector<std::string> names = detail::supportedOpNames();
  names.push_back("Constant");
  std::sort(names.begin(), names.end());
  return names;
}

rt::Tensor onnxTensorFromBytes(const std::string& bytes, const std::string& source_name) {
  onnx::TensorProto proto = detail::parseTensor(bytes, source_name);
  try {
    return detail::tensorFromProto(proto);
  } catch (const std::bad_alloc&) {
    throw OnnxImportError(source_name + ": out of memory");
  } catch (const std::exception& e) {
    throw OnnxImportError(source_name + ": tensor '" + proto.name() + "': " + e.what());
  }
}

rt::Tensor loadOnnxTensorFile(const std::string& path) {
  return onnxTensorFromBytes(detail::readFileBytes(path), path);
}

}  // namespace vdla::frontend
