#include "collectives/rendezvous.h"

#include <netdb.h>
#include <unistd.h>

#include <opcert/backend_abi.h>
#include <opcert/sdk/error.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <cstring>
#include <random>

namespace opcert::torch_backend {
namespace {

// "opcert-torch1 <port> <tag> <host>": text, so that a bad id reads plainly in a debugger.
constexpr const char* kMagic = "opcert-torch1";

bool resolves(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  freeaddrinfo(found);
  return true;
}

std::string random_tag() {
  std::random_device device;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", device(), device());
  return text;
}

}  // namespace

std::vector<uint8_t> encode_rendezvous(const RendezvousId& id) {
  const std::string text = std::string(kMagic) + ' ' + std::to_string(id.port) + ' ' + id.tag + ' ' + id.host;
  if (text.size() > OPCERT_COMM_UNIQUE_ID_BYTES)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "the rendezvous host name '" + id.host +
                                                        "' is too long for a communicator id: set MASTER_ADDR to a shorter address");
  return {text.begin(), text.end()};
}

RendezvousId decode_rendezvous(const uint8_t* bytes, uint32_t size) {
  const std::string text(reinterpret_cast<const char*>(bytes), size);
  const std::string magic = std::string(kMagic) + ' ';
  const auto bad = [] {
    return sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "not a unique id of the torch backend (its comm_unique_id makes them)");
  };
  if (text.rfind(magic, 0) != 0) throw bad();
  const std::size_t port_end = text.find(' ', magic.size());
  const std::size_t tag_end = port_end == std::string::npos ? port_end : text.find(' ', port_end + 1);
  if (tag_end == std::string::npos || tag_end + 1 >= text.size()) throw bad();
  RendezvousId id;
  const long port = std::strtol(text.substr(magic.size(), port_end - magic.size()).c_str(), nullptr, 10);
  if (port <= 0 || port > 65535) throw bad();
  id.port = static_cast<uint16_t>(port);
  id.tag = text.substr(port_end + 1, tag_end - port_end - 1);
  id.host = text.substr(tag_end + 1);
  return id;
}

std::string rendezvous_host() {
  if (const char* master = std::getenv("MASTER_ADDR"); master != nullptr && *master != '\0') return master;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' && resolves(name)) return name;
  return "127.0.0.1";
}

RendezvousServer start_rendezvous_server() {
  c10d::TCPStoreOptions options;
  options.port = 0;  // the system picks a free one; getPort() tells which
  options.isServer = true;
  options.waitWorkers = false;
  RendezvousServer server;
  server.id.host = rendezvous_host();
  server.id.tag = random_tag();
  try {
    auto store = c10::make_intrusive<c10d::TCPStore>(server.id.host, options);
    server.id.port = store->getPort();
    server.store = store;
  } catch (const std::exception& e) {
    throw sdk::Error(OPCERT_ERROR_DEVICE, "cannot start the rendezvous store (c10d::TCPStore) on this host: " + std::string(e.what()));
  }
  if (server.id.port == 0) throw sdk::Error(OPCERT_ERROR_DEVICE, "the rendezvous store (c10d::TCPStore) did not say which port it took");
  return server;
}

c10::intrusive_ptr<c10d::Store> join_rendezvous(const RendezvousId& id, c10::intrusive_ptr<c10d::Store> server,
                                                std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<c10d::Store> store = std::move(server);
  if (!store) {
    c10d::TCPStoreOptions options;
    options.port = id.port;
    options.isServer = false;
    options.waitWorkers = false;
    options.timeout = timeout;
    store = c10::make_intrusive<c10d::TCPStore>(id.host, options);
  }
  store->setTimeout(timeout);
  return c10::make_intrusive<c10d::PrefixStore>(id.tag, store);
}

}  // namespace opcert::torch_backend
