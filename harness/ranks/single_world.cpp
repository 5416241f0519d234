#include "ranks/single_world.h"

#include <cstdio>
#include <unistd.h>

namespace opcert {
namespace {

class SingleWorld final : public World {
 public:
  explicit SingleWorld(std::string reason) : reason_(std::move(reason)) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  std::string launcher() const override { return "single"; }
  std::string single_rank_reason() const override { return reason_; }
  std::string library_version() const override { return ""; }
  bool broadcast(std::vector<uint8_t>&, int, Deadline) override { return true; }
  std::optional<int64_t> all_min(int64_t value, Deadline) override { return value; }
  bool send_to_root(const std::string&, Deadline) override { return false; }  // rank 0 is this rank
  std::optional<std::string> receive_from(int, Deadline) override { return std::nullopt; }
  [[noreturn]] void abort_job(int code) override {
    std::fflush(nullptr);
    _exit(code);
  }
  void finalize() override {}

 private:
  std::string reason_;
};

}  // namespace

std::unique_ptr<World> make_single_world(std::string reason) { return std::make_unique<SingleWorld>(std::move(reason)); }

}  // namespace opcert
