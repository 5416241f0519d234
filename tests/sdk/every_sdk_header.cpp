// Every public SDK header in one translation unit, for the warnings test (tests/sdk/CMakeLists.txt):
// a plugin author compiles them under -Wall -Wextra -Wpedantic -Werror with GCC and Clang.
#include <opcert/backend_abi.h>
#include <opcert/sdk/api_table.h>
#include <opcert/sdk/attribute_check.h>
#include <opcert/sdk/backend.h>
#include <opcert/sdk/call_check.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/collective_args.h>
#include <opcert/sdk/collective_implementations.h>
#include <opcert/sdk/error.h>
#include <opcert/sdk/gemm_fp8_operands.h>
#include <opcert/sdk/gemm_int8_operands.h>
#include <opcert/sdk/gemm_shapes.h>
#include <opcert/sdk/implementation_registry.h>
#include <opcert/sdk/number_codecs.h>
#include <opcert/sdk/op_call.h>
#include <opcert/sdk/ops.h>

// Instantiate what the optimizer looks into (-Wrestrict and friends need code, not declarations).
int main() {
  opcert_op_call call{sizeof(opcert_op_call), "x", nullptr, 0, nullptr, 0, nullptr, 0};
  const opcert::sdk::OpCall c(call);
  opcert::sdk::CallCheck check(c, false);
  (void)check.input("x", false);
  return opcert::sdk::f32_to_int8(1.5f) == 2 ? 0 : 1;
}
