#include "mpi_drop_in/comm_registry.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/backend.h"
#include "mpi_drop_in/device_memory.h"
#include "mpi_drop_in/nonblocking.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// What the attribute holds for one MPI communicator.
struct Entry {
  MPI_Comm mpi = MPI_COMM_NULL;
  std::unique_ptr<Communicator> kcoll;
  std::string forward_reason;  // empty when kcoll runs the calls
  // The device route's communicator (device_route.h), made at its first call; `device_tried` once that call was made.
  std::unique_ptr<Communicator> device;
  bool device_tried = false;
};

std::mutex registry_mutex;
int keyval = MPI_KEYVAL_INVALID;
std::vector<Entry*>* live = new std::vector<Entry*>();  // in creation order
bool started_kokkos = false;
bool hooked_kokkos_finalize = false;

// The last communicator looked up on this thread: most programs call collectives on one communicator, and this skips
// the attribute lookup. `generation` changes whenever an entry is deleted, so a reused handle is never mistaken.
uint64_t generation = 1;
thread_local MPI_Comm last_comm = MPI_COMM_NULL;
thread_local Entry* last_entry = nullptr;
thread_local uint64_t last_generation = 0;

void Release(Entry* entry) {
  if (entry->device != nullptr) {
    EnterKcoll inside;
    entry->device->Finalize().IgnoreError();
    entry->device.reset();
  }
  if (entry->kcoll != nullptr) {
    CompleteRequestsOf(entry->kcoll.get());  // nonblocking calls still in flight (MPI lets a communicator go first)
    EnterKcoll inside;
    entry->kcoll->Finalize().IgnoreError();
    entry->kcoll.reset();
  }
}

int DeleteEntry(MPI_Comm, int, void* value, void*) {
  auto* entry = static_cast<Entry*>(value);
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto it = live->begin(); it != live->end(); ++it) {
      if (*it == entry) {
        live->erase(it);
        break;
      }
    }
    ++generation;
  }
  Release(entry);
  delete entry;
  return MPI_SUCCESS;
}

// An application that started Kokkos itself may finalise it before MPI_Finalize: the kcoll communicators go first,
// while their kernels can still free their memory, and the calls after that go to MPI.
void ReleaseBeforeKokkosFinalize() {
  std::vector<Entry*> entries;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    entries = *live;
    ++generation;
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    Release(*it);
    if ((*it)->forward_reason.empty()) (*it)->forward_reason = "Kokkos finalized";
  }
}

// Whether Kokkos runs, started here when nobody has started it (Kokkos cannot start again once finalised).
bool StartKokkosOnce() {
  if (KokkosRunning()) {
    if (!started_kokkos && !hooked_kokkos_finalize) AtKokkosFinalize(ReleaseBeforeKokkosFinalize);
    hooked_kokkos_finalize = true;
    return true;
  }
  if (hooked_kokkos_finalize || started_kokkos) return false;
  // One thread per rank unless the user says otherwise: the ranks of an MPI job already fill the cores.
  std::vector<std::string> args = {"kcoll_mpi", "--kokkos-disable-warnings"};
  if (std::getenv("OMP_NUM_THREADS") == nullptr) args.push_back("--kokkos-threads=1");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  int argc = static_cast<int>(argv.size());
  char** argv_data = argv.data();
  started_kokkos = StartKokkos(&argc, &argv_data);
  return KokkosRunning();
}

Entry* Create(MPI_Comm comm) {
  auto entry = std::make_unique<Entry>();
  entry->mpi = comm;
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  if (inter) {
    entry->forward_reason = "intercommunicator";
  } else if (size < 2) {
    entry->forward_reason = "one rank";
  } else if (!DeviceModeStatus().ok()) {
    entry->forward_reason = "KCOLL_MPI_DEVICE not honoured";
    std::fprintf(stderr, "kcoll_mpi: the calls on a communicator of %d ranks go to MPI: %s\n", size,
                 DeviceModeStatus().ToString().c_str());
  } else {
    EnterKcoll inside;
    absl::StatusOr<std::unique_ptr<Communicator>> made =
        StartKokkosOnce() ? Communicator::Create(comm) : absl::FailedPreconditionError("Kokkos was finalized");
    if (!KokkosRunning()) {
      entry->forward_reason = "Kokkos finalized";
    } else if (made.ok()) {
      entry->kcoll = *std::move(made);
    } else {
      entry->forward_reason = "kcoll could not be created";
      std::fprintf(stderr,
                   "kcoll_mpi: kcoll could not be created on a communicator of %d ranks, its calls go to MPI: %s\n",
                   size, made.status().ToString().c_str());
    }
  }
  Entry* raw = entry.release();
  PMPI_Comm_set_attr(comm, keyval, raw);
  std::lock_guard<std::mutex> lock(registry_mutex);
  live->push_back(raw);
  return raw;
}

}  // namespace

bool DropInEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("KCOLL_MPI");
    if (value == nullptr) return true;
    const std::string text(value);
    return !(text == "off" || text == "0" || text == "OFF");
  }();
  return enabled;
}

namespace {

void EnsureKeyval() {
  if (keyval != MPI_KEYVAL_INVALID) return;
  std::lock_guard<std::mutex> lock(registry_mutex);
  if (keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteEntry, &keyval, nullptr);
}

// The entry of `comm`, or null when none was made yet: the last one looked up on this thread, else the attribute.
Entry* Find(MPI_Comm comm) {
  if (comm == last_comm && last_entry != nullptr && last_generation == generation) return last_entry;
  EnsureKeyval();
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &value, &found);
  return found ? static_cast<Entry*>(value) : nullptr;
}

Route RouteOfEntry(MPI_Comm comm, Entry* entry) {
  last_comm = comm;
  last_entry = entry;
  last_generation = generation;
  return Route{entry->kcoll.get(), entry->kcoll ? nullptr : &entry->forward_reason};
}

}  // namespace

Route RouteOf(MPI_Comm comm) {
  Entry* entry = Find(comm);
  return RouteOfEntry(comm, entry != nullptr ? entry : Create(comm));
}

uint64_t RouteGeneration() { return generation; }

Route RouteIfMade(MPI_Comm comm) {
  static const std::string* const kNotMade = new std::string("no kcoll communicator yet");
  Entry* entry = Find(comm);
  return entry != nullptr ? RouteOfEntry(comm, entry) : Route{nullptr, kNotMade};
}

Communicator* DeviceCommunicatorOf(MPI_Comm comm,
                                   const std::function<absl::StatusOr<std::unique_ptr<Communicator>>()>& make) {
  Entry* entry = Find(comm);
  if (entry == nullptr || entry->kcoll == nullptr) return nullptr;
  if (!entry->device_tried) {
    entry->device_tried = true;
    absl::StatusOr<std::unique_ptr<Communicator>> made = make();
    // Made on every rank or used on none: a rank that could not make it would take the staged route alone.
    int ok = made.ok() ? 1 : 0, everywhere = 0;
    const absl::Status agreed = entry->kcoll->AllReduce(&ok, &everywhere, 1, DataType::kInt32, ReduceOp::kMin);
    if (agreed.ok() && everywhere == 1) {
      entry->device = *std::move(made);
    } else {
      if (made.ok()) (*made)->Finalize().IgnoreError();
      const absl::Status why = !made.ok()     ? made.status()
                               : !agreed.ok() ? agreed
                                              : absl::UnavailableError("another rank could not make it");
      if (entry->kcoll->rank() == 0 || !made.ok()) {
        std::fprintf(stderr,
                     "kcoll_mpi: the device route could not be made on every rank of a communicator of %d ranks, its "
                     "device buffers are copied through host memory: %s\n",
                     entry->kcoll->size(), why.ToString().c_str());
      }
    }
  }
  return entry->device.get();
}

void ReleaseAll() {
  std::vector<Entry*> entries;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    entries = *live;
  }
  // Deleting the attribute runs DeleteEntry, as MPI_Comm_free would; the MPI communicators stay the application's.
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) PMPI_Comm_delete_attr((*it)->mpi, keyval);
  if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&keyval);
  last_entry = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    ++generation;
  }
  if (started_kokkos) StopKokkos();
  started_kokkos = false;
}

}  // namespace kcoll::drop_in
