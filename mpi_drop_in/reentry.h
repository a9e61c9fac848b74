// kcoll's own MPI calls (topology discovery, argument agreement, the MPI transport) must reach the MPI underneath,
// never this library's definitions of the same names: while a thread runs inside kcoll, every MPI entry point of the
// drop-in library forwards at once.
#ifndef KCOLL_MPI_DROP_IN_REENTRY_H_
#define KCOLL_MPI_DROP_IN_REENTRY_H_

namespace kcoll::drop_in {

// Depth of kcoll calls on this thread (the progress thread of a nonblocking call counts as inside too).
inline thread_local int inside_kcoll = 0;

inline bool InsideKcoll() { return inside_kcoll > 0; }

// Marks the current thread as inside kcoll for its lifetime.
class EnterKcoll {
 public:
  EnterKcoll() { ++inside_kcoll; }
  ~EnterKcoll() { --inside_kcoll; }
  EnterKcoll(const EnterKcoll&) = delete;
  EnterKcoll& operator=(const EnterKcoll&) = delete;
};

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_REENTRY_H_
