#include "bench/implementations/gloo_peer.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "gloo/allreduce.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"

namespace kcoll {
namespace bench {
namespace {

template <class T>
absl::StatusOr<gloo::AllreduceOptions::Func> ReduceFunction(ReduceOp op) {
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::kSum:
      return gloo::AllreduceOptions::Func(static_cast<Fn>(&gloo::sum<T>));
    case ReduceOp::kProd:
      return gloo::AllreduceOptions::Func(static_cast<Fn>(&gloo::product<T>));
    case ReduceOp::kMin:
      return gloo::AllreduceOptions::Func(static_cast<Fn>(&gloo::min<T>));
    case ReduceOp::kMax:
      return gloo::AllreduceOptions::Func(static_cast<Fn>(&gloo::max<T>));
    case ReduceOp::kAvg:
      return absl::UnimplementedError("Gloo has no average reduction");
  }
  return absl::InvalidArgumentError("invalid reduce op");
}

class GlooPeer final : public Implementation {
 public:
  GlooPeer(std::shared_ptr<gloo::rendezvous::Context> context) : context_(std::move(context)) {}

  std::string name() const override { return "gloo"; }
  std::string kind() const override { return "gloo"; }

  absl::Status Run(const Call& c) override {
    if (c.collective != Collective::kAllReduce) {
      return absl::UnimplementedError("the Gloo peer runs all_reduce only");
    }
    switch (c.type) {
      case DataType::kInt8:
        return Typed<int8_t>(c);
      case DataType::kUint8:
        return Typed<uint8_t>(c);
      case DataType::kInt32:
        return Typed<int32_t>(c);
      case DataType::kUint32:
        return Typed<uint32_t>(c);
      case DataType::kInt64:
        return Typed<int64_t>(c);
      case DataType::kUint64:
        return Typed<uint64_t>(c);
      case DataType::kFloat32:
        return Typed<float>(c);
      case DataType::kFloat64:
        return Typed<double>(c);
      case DataType::kFloat16:
      case DataType::kBfloat16:
        break;
    }
    return absl::UnimplementedError(absl::StrCat("the Gloo peer has no ", DataTypeName(c.type), " reduction"));
  }

 private:
  template <class T>
  absl::Status Typed(const Call& c) {
    auto fn = ReduceFunction<T>(c.op.value_or(ReduceOp::kSum));
    if (!fn.ok()) return fn.status();
    if (c.layout.count == 0) return absl::OkStatus();
    try {
      gloo::AllreduceOptions opts(context_);
      if (!c.in_place) opts.setInput(const_cast<T*>(static_cast<const T*>(c.send)), c.layout.count);
      opts.setOutput(static_cast<T*>(c.recv), c.layout.count);
      opts.setReduceFunction(*fn);
      opts.setTag(0);
      gloo::allreduce(opts);
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("gloo::allreduce: ", e.what()));
    }
    return absl::OkStatus();
  }

  std::shared_ptr<gloo::rendezvous::Context> context_;
};

}  // namespace

bool GlooAvailable() { return true; }

absl::StatusOr<std::unique_ptr<Implementation>> MakeGlooPeer(MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  // Rank 0 makes the rendezvous directory; everyone learns its name.
  char dir[4096] = {0};
  if (rank == 0) {
    const char* base = GetEnv("KCOLL_GLOO_STORE_DIR");
    if (base == nullptr || *base == '\0') base = GetEnv("TMPDIR");
    if (base == nullptr || *base == '\0') base = "/tmp";
    std::string templ = absl::StrCat(base, "/kcoll-gloo-XXXXXX");
    if (templ.size() < sizeof(dir)) {
      std::memcpy(dir, templ.c_str(), templ.size() + 1);
      if (mkdtemp(dir) == nullptr) dir[0] = '\0';
    }
  }
  MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, comm);
  if (dir[0] == '\0') return absl::InternalError("Gloo peer: cannot create a rendezvous directory");
  std::string error;
  std::shared_ptr<gloo::rendezvous::Context> context;
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore file_store(dir);
    gloo::rendezvous::PrefixStore store("kcoll-bench", file_store);
    context = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
    context->connectFullMesh(store, device);
  } catch (const std::exception& e) {
    error = e.what();
  }
  int failed = error.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  // Everyone is connected (or gave up): the rendezvous files are no longer needed.
  if (rank == 0) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  if (failed) {
    return absl::InternalError(absl::StrCat("Gloo peer: connecting the ranks failed",
                                            error.empty() ? " on another rank" : absl::StrCat(": ", error)));
  }
  return std::unique_ptr<Implementation>(new GlooPeer(std::move(context)));
}

}  // namespace bench
}  // namespace kcoll
