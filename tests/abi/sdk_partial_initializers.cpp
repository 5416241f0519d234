// Every aggregate of today's C++ SDK that a plugin fills, initialised with one designated member:
// under -Wall -Wextra -Werror this compiles only while every other member has a default member
// initializer (backend.h says why), so a member added tomorrow without one fails here before it
// fails a vendor's build. A new aggregate in the SDK gets its line here. (The GEMM operands derive
// from GemmDims, and a class with a base takes no designated initializers at all.)
#include <opcert/sdk/backend.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/collective_implementations.h>
#include <opcert/sdk/ops.h>

namespace sdk = opcert::sdk;

sdk::Support support{.supported = true};
sdk::Implementation implementation{.key = "partial.softmax.one"};
sdk::BackendInfo backend_info{.name = "partial"};
sdk::DeviceInfo device_info{.name = "host"};
sdk::ImplementationId implementation_id{.key = "partial.softmax.one"};
sdk::CollectiveTarget collective_target{.device_type = OPCERT_DEVICE_CPU};
sdk::AttentionOperands attention{.layout = sdk::AttentionLayout::kBshd};
sdk::CollectiveOperands collective{.x = std::nullopt};
sdk::CollectiveArgs collective_args{.op = sdk::Collective::kAllReduce};
sdk::NormOperands norm{.x = std::nullopt};
sdk::QuantizeOperands quantize{.x = std::nullopt};
sdk::RopeOperands rope{.q = std::nullopt};
sdk::SoftmaxOperands softmax{.x = std::nullopt};
