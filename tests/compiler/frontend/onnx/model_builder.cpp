#include "model_builder.h"

#include <cstring>

namespace vdla::frontend::testing {

ModelBuilder::ModelBuilder(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("vdla-tests");
  importOpset("", opset);
  graph().set_name("test_graph");
}

void ModelBuilder::importOpset(const std::string& domain, int64_t version) {
  auto* op = model_.add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
}

onnx::ValueInfoProto& ModelBuilder::input(const std::string& name, std::vector<Dim> dims, int32_t elem_type) {
  onnx::ValueInfoProto* info = graph().add_input();
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (d.param.empty())
      dim->set_dim_value(d.value);
    else
      dim->set_dim_param(d.param);
  }
  return *info;
}

onnx::TensorProto floatTensor(std::vector<int64_t> dims, std::vector<float> values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  std::string raw(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  t.set_raw_data(raw);
  return t;
}

onnx::TensorProto& ModelBuilder::floatInitializer(const std::string& name, std::vector<int64_t> dims,
                                                  std::vector<float> values) {
  onnx::TensorProto* t = graph().add_initializer();
  *t = floatTensor(std::move(dims), std::move(values));
  t->set_name(name);
  return *t;
}

onnx::TensorProto& ModelBuilder::int64Initializer(const std::string& name, std::vector<int64_t> dims,
                                                  std::vector<int64_t> values) {
  onnx::TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return *t;
}

onnx::NodeProto& ModelBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs, const std::string& name) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

void ModelBuilder::output(const std::string& name) {
  onnx::ValueInfoProto* info = graph().add_output();
  info->set_name(name);
}

std::string ModelBuilder::bytes() const { return model_.SerializeAsString(); }

namespace {
onnx::AttributeProto& addAttr(onnx::NodeProto& node, const std::string& name,
                              onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return *a;
}
}  // namespace

void setInt(onnx::NodeProto& node, const std::string& name, int64_t value) {
  addAttr(node, name, onnx::AttributeProto::INT).set_i(value);
}
void setInts(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto& a = addAttr(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
}
void setFloat(onnx::NodeProto& node, const std::string& name, float value) {
  addAttr(node, name, onnx::AttributeProto::FLOAT).set_f(value);
}
void setString(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  addAttr(node, name, onnx::AttributeProto::STRING).set_s(value);
}

}  // namespace vdla::frontend::testing
