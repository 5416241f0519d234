#include "collectives/collective_impls.h"

#include <opcert/sdk/collective_implementations.h>

#include <string>

#include "collectives/torch_comm.h"

namespace opcert::torch_backend {
namespace {

constexpr double kDefaultTimeoutSeconds = 300.0;

TorchComm& comm_of(opcert_comm* comm) {
  if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
  return *reinterpret_cast<TorchComm*>(comm);
}

// The transport a key ends in ("torch.all_reduce.nccl").
Transport transport_of(std::string_view key) {
  return key.ends_with(".nccl") ? Transport::kNccl : Transport::kGloo;
}

at::Device device_of(opcert_device d) {
  if (d.type == OPCERT_DEVICE_CUDA) return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d.index));
  if (d.type == OPCERT_DEVICE_CPU) return at::Device(at::kCPU);
  throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "the torch backend has no device of type " + std::to_string(d.type));
}

// Why `transport` cannot run on memory of `device_type` ("" when it can).
std::string memory_mismatch(Transport transport, int32_t device_type) {
  const bool cuda = device_type == OPCERT_DEVICE_CUDA;
  if (transport == Transport::kNccl && !cuda) return "the nccl keys run on CUDA memory; this rank's device is the host (use the gloo keys)";
  if (transport == Transport::kGloo && cuda) return "the gloo keys run on host memory; this rank's device is a CUDA device (use the nccl keys)";
  return "";
}

// A transport's memory (Gloo: the host, NCCL: CUDA), the ranks a query assumes, and the one limit
// beyond the contract: the transport being in this LibTorch.
sdk::CollectiveTarget target(Transport transport, std::function<int()> nranks) {
  return {transport == Transport::kNccl ? OPCERT_DEVICE_CUDA : OPCERT_DEVICE_CPU, std::move(nranks),
          [transport](const sdk::CollectiveOperands&) { return transport_missing(transport); }};
}

}  // namespace

TorchCollectives::~TorchCollectives() = default;

std::vector<sdk::Implementation> TorchCollectives::implementations() {
  std::vector<sdk::Implementation> impls;
  for (const Transport transport : {Transport::kGloo, Transport::kNccl}) {
    const std::string description =
        transport == Transport::kGloo ? "torch.distributed's Gloo process group (c10d::ProcessGroupGloo) on host memory"
                                      : "torch.distributed's NCCL process group (c10d::ProcessGroupNCCL) on CUDA memory";
    const sdk::CollectiveTarget on = target(transport, [this] { return ranks_.load(); });
    for (auto& impl : sdk::collective_implementations("torch", transport_name(transport), description, on))
      impls.push_back(std::move(impl));
  }
  return impls;
}

uint32_t TorchCollectives::comm_unique_id(uint8_t* id) {
  auto server = std::make_unique<RendezvousServer>(start_rendezvous_server());
  const std::vector<uint8_t> bytes = encode_rendezvous(server->id);
  std::copy(bytes.begin(), bytes.end(), id);
  const std::lock_guard lock(mutex_);
  server_ = std::move(server);  // an older one nobody joined is dropped
  return static_cast<uint32_t>(bytes.size());
}

opcert_comm* TorchCollectives::comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id,
                                         uint32_t id_bytes, double timeout_seconds) {
  const RendezvousId rendezvous = decode_rendezvous(id, id_bytes);
  c10::intrusive_ptr<c10d::Store> server;
  {
    const std::lock_guard lock(mutex_);
    if (server_ && server_->id.tag == rendezvous.tag) server = std::move(server_->store);
    if (server) server_.reset();
  }
  if (rank == 0 && !server)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "rank 0 must make the unique id it initialises with (comm_unique_id)");
  const auto timeout = std::chrono::milliseconds(
      static_cast<int64_t>((timeout_seconds > 0 ? timeout_seconds : kDefaultTimeoutSeconds) * 1000.0));
  auto comm = TorchComm::create(device_of(device), rank, nranks, rendezvous, std::move(server), timeout);
  ranks_ = nranks;
  const std::lock_guard lock(mutex_);
  comms_.insert(comm.get());
  return reinterpret_cast<opcert_comm*>(comm.release());
}

void TorchCollectives::comm_destroy(opcert_comm* comm) {
  TorchComm* c = &comm_of(comm);
  {
    const std::lock_guard lock(mutex_);
    comms_.erase(c);
  }
  delete c;
}

void TorchCollectives::comm_abort(opcert_comm* comm) { comm_of(comm).abort(); }

void TorchCollectives::run_collective(const sdk::OpCall& call, opcert_comm* comm) {
  TorchComm& c = comm_of(comm);
  const sdk::Implementation& impl = backend_->implementation(std::string(call.impl_key()));
  const sdk::Collective which = sdk::collective_of(impl.op);
  const Transport transport = transport_of(impl.key);
  if (std::string why = transport_missing(transport); !why.empty()) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, why);
  if (transport != c.transport())
    throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, memory_mismatch(transport, c.device().is_cuda() ? OPCERT_DEVICE_CUDA : OPCERT_DEVICE_CPU));
  c.run(sdk::checked_collective(call, which, c.nranks(), target(transport, nullptr)));
}

void TorchCollectives::drain(opcert_device device) {
  const at::Device d = device_of(device);
  std::vector<TorchComm*> mine;
  {
    const std::lock_guard lock(mutex_);
    for (TorchComm* c : comms_)
      if (c->device() == d) mine.push_back(c);
  }
  for (TorchComm* c : mine) c->drain();
}

}  // namespace opcert::torch_backend
