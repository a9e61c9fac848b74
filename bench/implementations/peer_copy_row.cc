#include "bench/implementations/peer_copy_row.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "bench/model/cache_line_exchange.h"
#include "collectives/transport/shm/process_memory.h"

namespace kcoll {
namespace bench {
namespace {

// ReadFromProcess, with the error named.
absl::Status ReadFromPeer(pid_t pid, uintptr_t remote, unsigned char* local, size_t bytes) {
  if (ReadFromProcess(pid, remote, local, bytes)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("peer_copy: process_vm_readv from pid ", pid, ": ", std::strerror(errno)));
}

class PeerCopyRow final : public Implementation {
 public:
  PeerCopyRow(std::unique_ptr<CacheLineExchange> exchange, std::vector<pid_t> pids)
      : exchange_(std::move(exchange)), pids_(std::move(pids)), sends_(pids_.size()) {}

  std::string name() const override { return kPeerCopyRowName; }
  std::string kind() const override { return kPeerCopyRowKind; }
  bool checked() const override { return false; }
  // What the reads left: block i from the last peer read of those that hold it (tests look at it).
  const void* Result(const Call& /*call*/) const override { return scratch_.data(); }

  absl::Status Run(const Call& c) override {
    if (c.collective != Collective::kAllReduce) {
      return absl::UnimplementedError(
          absl::StrCat("peer_copy moves an all_reduce's bytes, not ", CollectiveName(c.collective), "'s"));
    }
    const size_t bytes = c.layout.count * DataTypeSize(c.type);
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    const uintptr_t mine = reinterpret_cast<uintptr_t>(c.send);
    absl::Status status = exchange_->Exchange(&mine, sizeof(mine), [&](int rank, const void* payload) {
      std::memcpy(&sends_[rank], payload, sizeof(uintptr_t));
    });
    if (!status.ok()) return status;
    // Block i of the message: [i * block, (i + 1) * block), the last one taking the remainder.
    const int n = static_cast<int>(pids_.size()), me = exchange_->rank();
    const size_t block = bytes / n;
    auto span = [&](int i) { return std::pair<size_t, size_t>(i * block, i == n - 1 ? bytes - i * block : block); };
    for (int step = 1; step < n && status.ok(); ++step) {
      const int peer = (me + step) % n;  // the peers in turn, each from its own next rank: no two start on one
      for (int i : {me, peer}) {
        const auto [offset, length] = span(i);
        status = ReadFromPeer(pids_[peer], sends_[peer] + offset, scratch_.data() + offset, length);
        if (!status.ok()) break;
      }
    }
    // Every rank has read what it needs before any leaves: a send buffer stays put while a peer reads it.
    const absl::Status done = exchange_->Exchange(&mine, 0, [](int, const void*) {});
    return status.ok() ? done : status;
  }

 private:
  std::unique_ptr<CacheLineExchange> exchange_;
  std::vector<pid_t> pids_;
  std::vector<uintptr_t> sends_;
  std::vector<unsigned char> scratch_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Implementation>> MakePeerCopyRow(MPI_Comm comm) {
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> exchange = CacheLineExchange::Create(comm);
  if (!exchange.ok()) {
    return absl::Status(exchange.status().code(),
                        absl::StrCat("peer_copy: its ranks must share one host: ", exchange.status().message()));
  }
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  std::vector<int64_t> all(nranks);
  const int64_t mine = getpid();
  MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm);
  const std::vector<pid_t> pids(all.begin(), all.end());
  // A machine that forbids reading the peers (ptrace scope) says so here, on every rank.
  if (!CanReadEveryRanksMemory(comm, pids)) {
    return absl::FailedPreconditionError(
        "peer_copy: the ranks cannot read each other's memory with process_vm_readv (/proc/sys/kernel/yama/"
        "ptrace_scope above 0 forbids it)");
  }
  return std::unique_ptr<Implementation>(new PeerCopyRow(*std::move(exchange), std::move(pids)));
}

}  // namespace bench
}  // namespace kcoll
