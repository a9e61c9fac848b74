#include "bench/implementations/kcoll_implementation.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {
namespace bench {
namespace {

class KcollImplementation final : public Implementation {
 public:
  // The options and the memory kind are the same for every call, and are found once: a row's time is the call's,
  // not the harness's (an 8-byte call takes a few hundred nanoseconds).
  KcollImplementation(Communicator* comm, Algorithm algorithm, std::string label, bool registered)
      : comm_(comm),
        algorithm_(algorithm),
        label_(std::move(label)),
        registered_(registered),
        // The buffers are where the communicator's kernels work: device memory on a cuda communicator (--exec cuda).
        memory_(comm->kernels() != nullptr ? comm->kernels()->memory() : MemoryKind::kHost) {
    options_.algorithm = algorithm;
  }

  std::string name() const override {
    std::string name(AlgorithmName(algorithm_));
    if (registered_ && algorithm_ != Algorithm::kDirect) absl::StrAppend(&name, " registered");
    if (!label_.empty()) absl::StrAppend(&name, " ", label_);
    return name;
  }
  std::string kind() const override { return "kcoll"; }
  bool registered() const override { return registered_; }

  absl::Status Run(const Call& c) override {
    return comm_->Call(c.collective, c.send, c.recv, c.layout.count, c.type, c.op.value_or(ReduceOp::kSum), c.root,
                       options_, memory_);
  }

  absl::Status Start(const Call& c) override {
    const size_t count = c.layout.count;
    const ReduceOp op = c.op.value_or(ReduceOp::kSum);
    if (!IsVariable(c.collective)) {
      pending_ = comm_->ICall(c.collective, c.send, c.recv, count, c.type, op, c.root, options_, memory_);
      return absl::OkStatus();
    }
    // The v-collectives with equal counts, laid out as Communicator::Call lays them (the blocking rows).
    const size_t n = static_cast<size_t>(comm_->size());
    counts_.assign(n, count);
    displs_.resize(n);
    for (size_t j = 0; j < n; ++j) displs_[j] = j * count;
    switch (c.collective) {
      case Collective::kAllGatherV:
        pending_ = comm_->IAllGatherV(c.send, count, c.recv, counts_.data(), displs_.data(), c.type, options_, memory_);
        break;
      case Collective::kAllToAllV:
        pending_ = comm_->IAllToAllV(c.send, counts_.data(), displs_.data(), c.recv, counts_.data(), displs_.data(),
                                     c.type, options_, memory_);
        break;
      case Collective::kReduceScatterV:
        pending_ = comm_->IReduceScatterV(c.send, c.recv, counts_.data(), c.type, op, options_, memory_);
        break;
      case Collective::kGatherV:
        pending_ =
            comm_->IGatherV(c.send, count, c.recv, counts_.data(), displs_.data(), c.type, c.root, options_, memory_);
        break;
      default:  // kScatterV
        pending_ =
            comm_->IScatterV(c.send, counts_.data(), displs_.data(), c.recv, count, c.type, c.root, options_, memory_);
        break;
    }
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    const absl::Status done = pending_.Wait();
    pending_ = Request();
    return done;
  }

 private:
  Communicator* comm_;
  Algorithm algorithm_;
  std::string label_;
  bool registered_;
  MemoryKind memory_;
  CallOptions options_;
  Request pending_;
  std::vector<size_t> counts_, displs_;  // a nonblocking v-collective's arrays, kept until it completed
};

}  // namespace

std::unique_ptr<Implementation> MakeKcollImplementation(Communicator* comm, Algorithm algorithm, std::string label,
                                                        bool registered) {
  return std::make_unique<KcollImplementation>(comm, algorithm, std::move(label), registered);
}

}  // namespace bench
}  // namespace kcoll
