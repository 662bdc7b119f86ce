#include "vdla/api/version.h"

namespace vdla::api {

const char* version() { return VDLA_VERSION; }

}  // namespace vdla::api
