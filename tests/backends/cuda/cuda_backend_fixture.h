// The CUDA backend opened once per test suite through its ABI entry point. Where it cannot
// initialise (no usable GPU: CI, the development machines) every test skips, saying why.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "loader/backend_handle.h"

extern "C" const opcert_api* opcert_cuda_backend_get_api(void);

namespace opcert {

class CudaBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      backend_ = BackendHandle::open(opcert_cuda_backend_get_api(), BackendSource{});
    } catch (const std::exception& e) {
      unavailable_ = e.what();
    }
  }
  static void TearDownTestSuite() { backend_.reset(); }
  void SetUp() override {
    if (!backend_) GTEST_SKIP() << "no CUDA backend here: " << unavailable_;
  }

  static inline std::unique_ptr<BackendHandle> backend_;
  static inline std::string unavailable_;
};

}  // namespace opcert
