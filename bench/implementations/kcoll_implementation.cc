#include "bench/implementations/kcoll_implementation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/kernels.h"

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
    // The buffers are where the communicator's kernels work: device memory on a cuda communicator (--exec cuda).
    const MemoryKind memory = comm_->kernels() != nullptr ? comm_->kernels()->memory() : MemoryKind::kHost;
    return comm_->Call(c.collective, c.send, c.recv, c.layout.count, c.type, c.op.value_or(ReduceOp::kSum), c.root,
                       options, memory);
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
