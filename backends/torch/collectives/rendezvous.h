// How the torch backend's ranks find each other: rank 0 starts a c10d TCPStore server on a free
// port when the harness asks it for the communicator's unique id, and the id's bytes (which the
// harness broadcasts over MPI) carry the server's host and port and a random tag that scopes the
// keys of this one communicator. Every rank then joins the store and builds its process group.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace opcert::torch_backend {

struct RendezvousId {
  std::string host;  // where rank 0's store listens
  uint16_t port = 0;
  std::string tag;   // scopes this communicator's keys in the store
};

/// The id's bytes (at most OPCERT_COMM_UNIQUE_ID_BYTES).
std::vector<uint8_t> encode_rendezvous(const RendezvousId& id);
/// Reads bytes encode_rendezvous made; throws sdk::Error (INVALID_ARGUMENT) for anything else.
RendezvousId decode_rendezvous(const uint8_t* bytes, uint32_t size);

/// The address the other ranks reach rank 0 at: MASTER_ADDR, else this host's name when it
/// resolves, else 127.0.0.1.
std::string rendezvous_host();

/// Rank 0's side: a store server on a free port of this host, and the id that names it.
struct RendezvousServer {
  RendezvousId id;
  c10::intrusive_ptr<c10d::Store> store;
};
RendezvousServer start_rendezvous_server();

/// The store a rank works in: rank 0's own server (when given) or a client of id's server,
/// scoped by the id's tag. Blocks until connected or `timeout` passed (then throws).
c10::intrusive_ptr<c10d::Store> join_rendezvous(const RendezvousId& id, c10::intrusive_ptr<c10d::Store> server,
                                                std::chrono::milliseconds timeout);

}  // namespace opcert::torch_backend
