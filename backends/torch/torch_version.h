// Compile-time LibTorch version checks. The backend builds against LibTorch 1.13 (Debian) and
// 2.x (PyTorch wheels on GPU machines); newer API is used only behind these guards.
#pragma once

#include <torch/version.h>

/// True when the LibTorch this file is compiled against is at least major.minor.
#define OPCERT_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))
