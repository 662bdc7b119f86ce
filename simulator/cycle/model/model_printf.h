#pragma once
// The printf of the Verilator runtime in a checked cycle model
// (model/CMakeLists.txt, VDLA_MODEL_CHECKS): compiled with
// VL_PRINTF=vdla_model_printf and this header forced in, so that what the
// runtime prints -- a failed assertion's "%Error: file:line: Assertion failed
// in ...: <message>" -- is kept for the harness (vdlaModelTakeOutput()), which
// turns it into the simulator's error, instead of going to stdout, where it
// would land in the middle of a tool's output.
#include <string>

void vdla_model_printf(const char* format, ...);
// What was printed since the last call, and empties it.
std::string vdlaModelTakeOutput();
