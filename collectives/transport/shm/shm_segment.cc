#include "collectives/transport/shm/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "collectives/transport/mpi/agreement.h"

namespace kcoll {
namespace shm {
namespace {

constexpr int kNameBytes = 64;

std::string UniqueName() {
  std::random_device random;
  return absl::StrCat("/kcoll.", getpid(), ".", absl::Hex(static_cast<uint64_t>(random()) << 32 | random()));
}

absl::Status Errno(absl::string_view what, absl::string_view name) {
  const int e = errno;
  return absl::FailedPreconditionError(
      absl::StrCat("shared memory: ", what, " of '", name, "' failed: ", std::strerror(e),
                   " (is /dev/shm mounted and large enough? KCOLL_SHM_SLOTS and KCOLL_SHM_SLOT_BYTES make the segment "
                   "smaller, KCOLL_TRANSPORT=mpi does without it)"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Segment>> Segment::Create(MPI_Comm comm, size_t bytes) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char name[kNameBytes] = {};
  absl::Status local;
  int fd = -1;
  if (rank == 0) {
    const std::string unique = UniqueName();
    std::strncpy(name, unique.c_str(), kNameBytes - 1);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR);
    if (fd < 0) {
      local = Errno("shm_open", name);
    } else if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      local = Errno(absl::StrCat("ftruncate to ", bytes, " bytes"), name);
    } else if (const int e = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); e != 0) {
      // Reserved now, so that a full /dev/shm is this error instead of a SIGBUS when a page is first touched.
      errno = e;
      local = Errno(absl::StrCat("reserving ", bytes, " bytes"), name);
    }
  }
  // Only rank 0 creates: every rank returns its error, word for word.
  std::string message(local.message());
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  if (length > 0) {
    message.resize(length);
    MPI_Bcast(message.data(), length, MPI_CHAR, 0, comm);
    if (fd >= 0) {
      close(fd);
      shm_unlink(name);
    }
    return absl::FailedPreconditionError(rank == 0 ? message : absl::StrCat(message, " [on rank 0 of the node]"));
  }
  MPI_Bcast(name, kNameBytes, MPI_CHAR, 0, comm);
  if (rank != 0) {
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) local = Errno("shm_open", name);
  }
  void* mapped = MAP_FAILED;
  if (local.ok()) {
    mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED) local = Errno(absl::StrCat("mmap of ", bytes, " bytes"), name);
  }
  if (fd >= 0) close(fd);
  absl::Status mapped_everywhere = AgreeAcrossRanks(comm, local, "mapping the shared-memory segment");
  if (rank == 0) shm_unlink(name);  // every rank has it mapped (or gave up): the name is no longer needed
  if (!mapped_everywhere.ok()) {
    if (mapped != MAP_FAILED) munmap(mapped, bytes);
    return mapped_everywhere;
  }
  return std::unique_ptr<Segment>(new Segment(static_cast<unsigned char*>(mapped), bytes));
}

Segment::~Segment() { munmap(data_, bytes_); }

}  // namespace shm
}  // namespace kcoll
