#include "bench/calibration/vendor_sweep.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "calibration/calibrate.h"
#include "collectives/communicator.h"
#include "models/profile_json.h"

namespace kcoll {
namespace bench {
namespace {

// Calls per timing: about 16 MiB of calls, at least 3 and at most 200, so that a timing spans more than one
// scheduler slice where ranks share cores (a 2-call timing there measured the scheduler: 1.5x off at 512 KiB).
int CallsPerTiming(size_t bytes) { return static_cast<int>(std::clamp<size_t>((size_t{16} << 20) / bytes, 3, 200)); }

// The communicator `auto` runs on: its profile is read from a file, so each rank writes rank 0's to one of its own.
absl::StatusOr<std::unique_ptr<Communicator>> CommunicatorWith(MPI_Comm comm, const models::Profile& profile,
                                                               const VendorSweepOptions& o) {
  char path[] = "/tmp/kcoll-vendor-sweep-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return absl::InternalError("vendor sweep: cannot create a temporary file in /tmp for the profile");
  close(fd);
  const absl::Status saved = models::SaveProfile(profile, path);
  absl::StatusOr<std::unique_ptr<Communicator>> created = absl::InternalError("vendor sweep: not created");
  if (!saved.ok()) {
    created = saved;
  } else {
    CommunicatorOptions options;
    options.backend = ExecBackend::kSerial;
    options.transport = o.transport;
    options.ranks_per_node = o.ranks_per_node;
    options.profile_path = path;
    options.numerics = Numerics::kFast;
    options.timeout = absl::InfiniteDuration();
    options.check_args = false;
    created = Communicator::Create(comm, options);
  }
  unlink(path);
  return created;
}

// `sizes` (increasing), each timed in both forms on both sides, the passes alternating the sides size by size; each
// size keeps its fastest pass of the slowest rank, so every rank returns the same points.
absl::StatusOr<std::vector<calibration::VendorPoint>> MeasureSizes(Communicator& kcoll, MPI_Comm mpi,
                                                                   const std::vector<size_t>& sizes, int passes) {
  // Out of place sums ones; in place keeps zeros, which no number of calls grows into infinities.
  const size_t most = sizes.empty() ? 0 : sizes.back() / sizeof(float);
  std::vector<float> ones(most, 1.0f), out(most, 0.0f), in_place(most, 0.0f);
  CallOptions automatic, vendor;
  vendor.algorithm = Algorithm::kVendor;
  // times[(pass * sizes + i) * 4 + form]: kcoll out, kcoll in, MPI out, MPI in (seconds per call on this rank).
  constexpr int kForms = 4;
  std::vector<double> times(static_cast<size_t>(passes) * sizes.size() * kForms, 0.0);
  absl::Status failed;
  for (int pass = 0; pass < passes && failed.ok(); ++pass) {
    for (size_t i = 0; i < sizes.size() && failed.ok(); ++i) {
      const int count = static_cast<int>(sizes[i] / sizeof(float));
      const int calls = CallsPerTiming(sizes[i]);
      auto run = [&](int form) -> absl::Status {
        const bool apart = form % 2 == 0;
        const float* send = apart ? ones.data() : in_place.data();
        float* recv = apart ? out.data() : in_place.data();
        // MPI's side is what `auto` would run in its place: MPI_Allreduce through kcoll's call (the vendor algorithm),
        // whose checks and counters a handed-over call pays too.
        return kcoll.AllReduce(send, recv, count, DataType::kFloat32, ReduceOp::kSum, form < 2 ? automatic : vendor);
      };
      for (int k = 0; k < kForms && failed.ok(); ++k) {
        const int form = pass % 2 == 0 ? k : (k + 2) % kForms;  // the two sides take turns going first
        failed = run(form);                                     // warm
        MPI_Barrier(mpi);
        const auto start = std::chrono::steady_clock::now();
        for (int c = 0; c < calls && failed.ok(); ++c) failed = run(form);
        times[(static_cast<size_t>(pass) * sizes.size() + i) * kForms + form] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
      }
    }
  }
  // The ranks call together and fail together (the same calls on the same communicator): one agreement suffices.
  int ok_here = failed.ok() ? 1 : 0, ok_everywhere = 0;
  MPI_Allreduce(&ok_here, &ok_everywhere, 1, MPI_INT, MPI_MIN, mpi);
  if (ok_everywhere == 1) {
    MPI_Allreduce(MPI_IN_PLACE, times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX, mpi);
  }
  KCOLL_RETURN_IF_ERROR(failed);
  if (ok_everywhere != 1) return absl::InternalError("vendor sweep: an AllReduce failed on another rank");
  std::vector<calibration::VendorPoint> points;
  for (size_t i = 0; i < sizes.size(); ++i) {
    double fastest[kForms];
    std::fill(fastest, fastest + kForms, std::numeric_limits<double>::infinity());
    for (int pass = 0; pass < passes; ++pass) {
      for (int form = 0; form < kForms; ++form) {
        fastest[form] = std::min(fastest[form], times[(static_cast<size_t>(pass) * sizes.size() + i) * kForms + form]);
      }
    }
    points.push_back({static_cast<int64_t>(sizes[i]), fastest[0], fastest[1], fastest[2], fastest[3]});
  }
  return points;
}

}  // namespace

absl::StatusOr<std::vector<calibration::VendorPoint>> MeasureVendorSweep(MPI_Comm comm, const models::Profile& profile,
                                                                         const VendorSweepOptions& o) {
  if (!(o.finest_factor > 1)) {
    return absl::InvalidArgumentError(absl::StrCat("vendor sweep: finest_factor=", o.finest_factor, " must be > 1"));
  }
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<Communicator> kcoll, CommunicatorWith(comm, profile, o));
  MPI_Comm mpi = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &mpi) != MPI_SUCCESS) return absl::InternalError("vendor sweep: MPI_Comm_dup failed");
  std::vector<size_t> sizes;
  for (double s : calibration::SweepSizes(o.min_bytes, o.max_bytes, o.step_factor)) {
    const size_t bytes = std::max<size_t>(sizeof(float), static_cast<size_t>(s) / sizeof(float) * sizeof(float));
    if (sizes.empty() || bytes > sizes.back()) sizes.push_back(bytes);
  }
  const int passes = std::max(1, o.passes);
  absl::StatusOr<std::vector<calibration::VendorPoint>> points = MeasureSizes(*kcoll, mpi, sizes, passes);
  // Then between neighbours with different winners, halving the gap (in log size) until it is at most finest_factor:
  // a few sizes per boundary, not a finer sweep of every size. Every rank holds the same points, so all choose alike.
  for (int round = 0; round < 16 && points.ok(); ++round) {
    const std::vector<int64_t> between = calibration::SizesBetweenWinners(*points, o.finest_factor);
    if (between.empty()) break;
    absl::StatusOr<std::vector<calibration::VendorPoint>> more =
        MeasureSizes(*kcoll, mpi, std::vector<size_t>(between.begin(), between.end()), passes);
    if (!more.ok()) {
      points = more.status();
      break;
    }
    points->insert(points->end(), more->begin(), more->end());
    std::sort(points->begin(), points->end(),
              [](const calibration::VendorPoint& a, const calibration::VendorPoint& b) { return a.bytes < b.bytes; });
  }
  MPI_Comm_free(&mpi);
  return points;
}

}  // namespace bench
}  // namespace kcoll
