#pragma once
// A shipped config with the gemm_requant extension (SETREQ and the GEMM flag
// requant): the builtin JSON with "gemm_requant": true added to its
// extensions, through hw::parseConfig (so the extension's requirements are
// checked). A config that already has the extension is returned as shipped,
// so that the tests run on the shipped configs once they enable it.
#include <string>

#include "vdla/hw/config.h"
#include "vdla/hw/error.h"

namespace vdla::progentest {

inline hw::HwConfig withGemmRequant(const std::string& name) {
  hw::HwConfig cfg = hw::loadConfig(name);
  if (cfg.gemm_requant) return cfg;
  const std::string* text = hw::builtinConfigText(name);
  const std::string key = "\"extensions\": {";
  const size_t at = text ? text->find(key) : std::string::npos;
  if (at == std::string::npos) throw Error("withGemmRequant: builtin config '" + name + "' has no extensions object");
  std::string json = *text;
  json.insert(at + key.size(), "\"gemm_requant\": true, ");
  return hw::parseConfig(json, "builtin:" + name + " with gemm_requant");
}

}  // namespace vdla::progentest
