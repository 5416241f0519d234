// Every op's operand parser (docs/OPS.md, one header per op under opcert/sdk/ops/) and the
// implementation helper built on them (checked_implementation.h), for a backend that implements
// many ops. Each parser reads a call into typed operands and records the first contract violation
// in a CallCheck; see docs/ABI.md, "Operand parsers".
#pragma once

#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/attention.h>
#include <opcert/sdk/ops/collectives.h>
#include <opcert/sdk/ops/gemm.h>
#include <opcert/sdk/ops/gemm_fp8.h>
#include <opcert/sdk/ops/gemm_int8.h>
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/quantize.h>
#include <opcert/sdk/ops/rms_norm.h>
#include <opcert/sdk/ops/rope.h>
#include <opcert/sdk/ops/softmax.h>
