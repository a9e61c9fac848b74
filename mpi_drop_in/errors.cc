#include "mpi_drop_in/errors.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {

int ErrorCodeOf(const char* function, const absl::Status& status) {
  if (status.ok()) return MPI_SUCCESS;
  static int error_class = -1;
  if (error_class < 0) PMPI_Add_error_class(&error_class);
  int code = MPI_ERR_OTHER;
  if (error_class >= 0 && PMPI_Add_error_code(error_class, &code) == MPI_SUCCESS) {
    std::string text = absl::StrCat(function, " on kcoll: ", status.ToString());
    if (text.size() >= MPI_MAX_ERROR_STRING) text.resize(MPI_MAX_ERROR_STRING - 1);
    PMPI_Add_error_string(code, text.c_str());
  }
  return code;
}

int ReportToMpi(MPI_Comm comm, const char* function, const absl::Status& status) {
  if (status.ok()) return MPI_SUCCESS;
  const int code = ErrorCodeOf(function, status);
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace kcoll::drop_in
