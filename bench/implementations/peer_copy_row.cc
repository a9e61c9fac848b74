#include "bench/implementations/peer_copy_row.h"

#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "bench/model/cache_line_exchange.h"

namespace kcoll {
namespace bench {
namespace {

// Copies `bytes` from `remote` in process `pid` to `local`; the kernel may copy less than asked in one call.
absl::Status ReadFromPeer(pid_t pid, uintptr_t remote, unsigned char* local, size_t bytes) {
  while (bytes > 0) {
    iovec to{local, bytes};
    iovec from{reinterpret_cast<void*>(remote), bytes};
    const ssize_t n = process_vm_readv(pid, &to, 1, &from, 1, 0);
    if (n <= 0) {
      return absl::InternalError(absl::StrCat("peer_copy: process_vm_readv from pid ", pid, ": ",
                                              n < 0 ? std::strerror(errno) : "copied nothing"));
    }
    remote += static_cast<size_t>(n);
    local += n;
    bytes -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
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
  int nranks = 0, rank = 0;
  MPI_Comm_size(comm, &nranks);
  MPI_Comm_rank(comm, &rank);
  // Each rank reads a word of every peer's once, so that a machine that forbids it (ptrace scope) says so here.
  struct Probe {
    int64_t pid;
    uint64_t address;
  };
  const uint64_t word = 0x6b636f6c6cULL;
  const Probe mine{static_cast<int64_t>(getpid()), reinterpret_cast<uintptr_t>(&word)};
  std::vector<Probe> all(nranks);
  MPI_Allgather(&mine, sizeof(Probe), MPI_BYTE, all.data(), sizeof(Probe), MPI_BYTE, comm);
  std::vector<pid_t> pids;
  int failed_errno = 0;
  for (int r = 0; r < nranks; ++r) {
    pids.push_back(static_cast<pid_t>(all[r].pid));
    if (r == rank) continue;
    uint64_t theirs = 0;
    iovec to{&theirs, sizeof(theirs)};
    iovec from{reinterpret_cast<void*>(all[r].address), sizeof(theirs)};
    const ssize_t n = process_vm_readv(pids.back(), &to, 1, &from, 1, 0);
    if (n < 0) {
      failed_errno = errno;
    } else if (n != static_cast<ssize_t>(sizeof(theirs)) || theirs != word) {
      failed_errno = EIO;
    }
  }
  int worst = 0;
  MPI_Allreduce(&failed_errno, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer_copy: a rank cannot read its peers' memory with process_vm_readv (", std::strerror(worst),
                     "; /proc/sys/kernel/yama/ptrace_scope above 0 forbids it)"));
  }
  MPI_Barrier(comm);  // no rank leaves (and drops its probe word) while a peer may still read it
  return std::unique_ptr<Implementation>(new PeerCopyRow(*std::move(exchange), std::move(pids)));
}

}  // namespace bench
}  // namespace kcoll
