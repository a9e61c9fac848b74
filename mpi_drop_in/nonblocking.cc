#include "mpi_drop_in/nonblocking.h"

#include <dlfcn.h>

#include <algorithm>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/errors.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// One nonblocking call on kcoll, from its start until MPI frees its request.
struct InFlight {
  MpiFunction function;
  Communicator* comm;
  Request request;
  std::function<absl::Status()> finish;
  MPI_Request mpi = MPI_REQUEST_NULL;
  int code = MPI_SUCCESS;  // the MPI request's error code once complete
};

std::mutex in_flight_mutex;
std::list<InFlight*>* in_flight = new std::list<InFlight*>();  // started, MPI request not yet complete

// Ends `call`, whose kcoll call completed with `result`: finishes it and completes its MPI request (after which MPI
// may free `call` at any moment).
void Complete(InFlight* call, absl::Status result) {
  if (result.ok() && call->finish) result = call->finish();
  call->finish = nullptr;
  call->code = ErrorCodeOf(MpiFunctionName(call->function), result);
  PMPI_Grequest_complete(call->mpi);
}

// Takes the calls `which` picks out of the list, then waits for each and completes it.
void WaitAndComplete(const std::function<bool(const InFlight*)>& which) {
  std::vector<InFlight*> calls;
  {
    std::lock_guard<std::mutex> lock(in_flight_mutex);
    for (auto it = in_flight->begin(); it != in_flight->end();) {
      if (!which(*it)) {
        ++it;
        continue;
      }
      calls.push_back(*it);
      it = in_flight->erase(it);
    }
  }
  EnterKcoll inside;
  for (InFlight* call : calls) Complete(call, call->request.Wait());
}

// Run by the MPI's progress loop (MPI_Wait, MPI_Test, ... on any request): completes the calls kcoll finished. Not
// inside kcoll (a kcoll call that waits in MPI runs the loop too), and one thread at a time.
int ProgressInFlight() {
  if (InsideKcoll()) return 0;
  std::unique_lock<std::mutex> lock(in_flight_mutex, std::try_to_lock);
  if (!lock.owns_lock() || in_flight->empty()) return 0;
  EnterKcoll inside;
  int completed = 0;
  for (auto it = in_flight->begin(); it != in_flight->end();) {
    InFlight* call = *it;
    const absl::StatusOr<bool> done = call->request.Test();
    if (done.ok() && !*done) {
      ++it;
      continue;
    }
    it = in_flight->erase(it);
    Complete(call, done.ok() ? call->request.Wait() : done.status());
    ++completed;
  }
  // A call still running needs the progress thread, which a rank spinning here would keep off its core where the
  // ranks fill the cores (milliseconds per call until the scheduler steps in): give it the core.
  if (!in_flight->empty()) std::this_thread::yield();
  return completed;
}

// The generalized request's functions: its status (no elements, from no source), its end, and no cancelling (a
// collective completes as it would).
int QueryCall(void* state, MPI_Status* status) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return static_cast<InFlight*>(state)->code;
}
int FreeCall(void* state) {
  delete static_cast<InFlight*>(state);
  return MPI_SUCCESS;
}
int CancelCall(void*, int) { return MPI_SUCCESS; }

#if defined(MPICH)
// MPICH polls a generalized request made with MPIX_Grequest_start whenever a completion function tests for it (the
// poll completes whatever kcoll finished), and hands the requests a function waits for to the wait function, which
// waits for their kcoll calls and completes them.
int PollCall(void*, MPI_Status*) {
  ProgressInFlight();
  return MPI_SUCCESS;
}
int WaitCalls(int count, void** states, double, MPI_Status*) {
  // (A call no longer in the list has completed already.)
  WaitAndComplete([&](const InFlight* call) { return std::find(states, states + count, call) != states + count; });
  return MPI_SUCCESS;
}
bool HookedIntoProgress() { return true; }
int StartGeneralizedRequest(InFlight* call) {
  return PMPIX_Grequest_start(QueryCall, FreeCall, CancelCall, PollCall, WaitCalls, call, &call->mpi);
}
#else
// Whether ProgressInFlight runs in the MPI's progress loop (hooked at the first call that asks). Open MPI exports
// opal_progress_register; another MPI without it or MPICH's polled requests keeps its nonblocking collectives.
bool HookedIntoProgress() {
  static const bool hooked = [] {
    using Register = int (*)(int (*)());
    auto register_callback = reinterpret_cast<Register>(dlsym(RTLD_DEFAULT, "opal_progress_register"));
    return register_callback != nullptr && register_callback(&ProgressInFlight) == 0;
  }();
  return hooked;
}
int StartGeneralizedRequest(InFlight* call) {
  return PMPI_Grequest_start(QueryCall, FreeCall, CancelCall, call, &call->mpi);
}
#endif

}  // namespace

Communicator* TakeNonblocking(MpiFunction function, MPI_Comm comm) {
  Communicator* c = TakeOnRoute(function, comm, RouteIfMade);
  if (c == nullptr) return nullptr;
  const char* reason = nullptr;
  if (c->progress().rfind("thread", 0) != 0 || !c->CanRunZeroCopy()) {
    reason = "no progress thread free of MPI calls";
  } else if (!HookedIntoProgress()) {
    reason = "no progress hook in this MPI";
  }
  if (reason == nullptr) return c;
  CountForwarded(function, reason);
  return nullptr;
}

int StartMpiRequest(MpiFunction function, Communicator* c, Request request, std::function<absl::Status()> finish,
                    MPI_Request* mpi_request) {
  CountOnKcoll(function);
  auto* call = new InFlight{function, c, std::move(request), std::move(finish)};
  const int started = StartGeneralizedRequest(call);
  if (started != MPI_SUCCESS) {  // no MPI request to return: the call completes here
    EnterKcoll inside;
    call->request.Wait().IgnoreError();
    delete call;
    return started;
  }
  *mpi_request = call->mpi;
  std::lock_guard<std::mutex> lock(in_flight_mutex);
  in_flight->push_back(call);
  return MPI_SUCCESS;
}

void CompleteRequestsOf(Communicator* c) {
  WaitAndComplete([c](const InFlight* call) { return call->comm == c; });
}

}  // namespace kcoll::drop_in
