#include "bench/kcoll_implementation.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace bench {
namespace {

class KcollImplementation final : public Implementation {
 public:
  KcollImplementation(Communicator* comm, Algorithm algorithm, std::string label, bool registered)
      : comm_(comm), algorithm_(algorithm), label_(std::move(label)), registered_(registered) {}

  std::string name() const override {
    std::string name(AlgorithmName(algorithm_));
    if (registered_ && algorithm_ != Algorithm::kDirect) absl::StrAppend(&name, " registered");
    if (!label_.empty()) absl::StrAppend(&name, " ", label_);
    return name;
  }
  std::string kind() const override { return "kcoll"; }
  bool registered() const override { return registered_; }

  absl::Status Run(const Call& c) override {
    CallOptions options;
    options.algorithm = algorithm_;
    const ReduceOp op = c.op.value_or(ReduceOp::kSum);
    const size_t n = c.layout.count;
    switch (c.collective) {
      case Collective::kAllReduce:
        return comm_->AllReduce(c.send, c.recv, n, c.type, op, options);
      case Collective::kReduceScatter:
        return comm_->ReduceScatter(c.send, c.recv, n, c.type, op, options);
      case Collective::kAllGather:
        return comm_->AllGather(c.send, c.recv, n, c.type, options);
      case Collective::kBroadcast:
        return comm_->Broadcast(c.send, c.recv, n, c.type, c.root, options);
      case Collective::kReduce:
        return comm_->Reduce(c.send, c.recv, n, c.type, op, c.root, options);
      case Collective::kAllToAll:
        return comm_->AllToAll(c.send, c.recv, n, c.type, options);
      case Collective::kGather:
        return comm_->Gather(c.send, c.recv, n, c.type, c.root, options);
      case Collective::kScatter:
        return comm_->Scatter(c.send, c.recv, n, c.type, c.root, options);
      case Collective::kSendRecv:
        return comm_->SendRecv(c.send, c.recv, n, c.type, options);
      case Collective::kBarrier:
        return comm_->Barrier(options);
    }
    return absl::InvalidArgumentError(absl::StrCat("collective ", static_cast<int>(c.collective), " invalid"));
  }

 private:
  Communicator* comm_;
  Algorithm algorithm_;
  std::string label_;
  bool registered_;
};

}  // namespace

std::unique_ptr<Implementation> MakeKcollImplementation(Communicator* comm, Algorithm algorithm, std::string label,
                                                        bool registered) {
  return std::make_unique<KcollImplementation>(comm, algorithm, std::move(label), registered);
}

}  // namespace bench
}  // namespace kcoll
