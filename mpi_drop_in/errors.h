// A kcoll failure reported the MPI way: an error code of the class "kcoll" whose string (MPI_Error_string) is
// kcoll's message, raised through the communicator's error handler, so that under MPI_ERRORS_RETURN the code comes
// back and under the default handler the job ends with the message.
#ifndef KCOLL_MPI_DROP_IN_ERRORS_H_
#define KCOLL_MPI_DROP_IN_ERRORS_H_

#include <mpi.h>

#include "absl/status/status.h"

namespace kcoll::drop_in {

// MPI_SUCCESS for OK; else a new error code of the class whose string is kcoll's message.
int ErrorCodeOf(const char* function, const absl::Status& status);

// MPI_SUCCESS for OK; else the error code, after calling `comm`'s error handler with it.
int ReportToMpi(MPI_Comm comm, const char* function, const absl::Status& status);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_ERRORS_H_
