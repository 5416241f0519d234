// The CPU backend checks operands with the SDK's CallCheck (host memory is the default).
#pragma once

#include <opcert/sdk/call_check.h>

namespace opcert::cpu {

using sdk::CallCheck;
using sdk::shape_string;
using sdk::string_choice;

}  // namespace opcert::cpu
