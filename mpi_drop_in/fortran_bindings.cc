// The Fortran names of the collectives, blocking and nonblocking (mpif.h and `use mpi`: mpi_allreduce_, and the other
// manglings), for Open MPI, whose own Fortran bindings call the PMPI_ functions and so would pass this library by. Each
// converts the handles and Fortran's MPI_IN_PLACE and MPI_BOTTOM, and calls the C definition. (MPICH's Fortran
// bindings call the MPI_ names themselves: there the C definitions catch them, and only three of its f08 routines
// need a definition here.) `use mpi_f08` too: Open MPI's f08 bindings call the ompi_*_f functions with the handles'
// integer values.
#include <mpi.h>

#if defined(OPEN_MPI)

// Where Open MPI's Fortran constants MPI_IN_PLACE and MPI_BOTTOM live (common blocks in libmpi).
extern "C" int mpi_fortran_in_place_;
extern "C" int mpi_fortran_bottom_;

namespace {

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran integers are C ints in the MPIs this library supports");

const void* C(const void* buffer) {
  if (buffer == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buffer == &mpi_fortran_bottom_) return MPI_BOTTOM;
  return buffer;
}
void* C(void* buffer) { return const_cast<void*>(C(static_cast<const void*>(buffer))); }
MPI_Comm Comm(const MPI_Fint* comm) { return PMPI_Comm_f2c(*comm); }
MPI_Datatype Type(const MPI_Fint* type) { return PMPI_Type_f2c(*type); }
MPI_Op Op(const MPI_Fint* op) { return PMPI_Op_f2c(*op); }

}  // namespace

// Defines the four names a Fortran compiler may call (lower, lower_, lower__, UPPER) and the one Open MPI's `use
// mpi_f08` bindings call with the same arguments (ompi_<name>_f: mpi_allreduce_f08 calls ompi_allreduce_f).
#define KCOLL_FORTRAN(lower, upper, params, body)                                                         \
  extern "C" void lower params body extern "C" void lower##_ params body extern "C" void lower##__ params \
      body extern "C" void upper params body extern "C" void o##lower##_f params body

KCOLL_FORTRAN(mpi_allreduce, MPI_ALLREDUCE,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Allreduce(C(s), C(r), *count, Type(type), Op(op), Comm(comm)); })

KCOLL_FORTRAN(mpi_reduce, MPI_REDUCE,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm,
               MPI_Fint* ierr),
              { *ierr = MPI_Reduce(C(s), C(r), *count, Type(type), Op(op), *root, Comm(comm)); })

KCOLL_FORTRAN(mpi_scan, MPI_SCAN,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Scan(C(s), C(r), *count, Type(type), Op(op), Comm(comm)); })

KCOLL_FORTRAN(mpi_exscan, MPI_EXSCAN,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Exscan(C(s), C(r), *count, Type(type), Op(op), Comm(comm)); })

KCOLL_FORTRAN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Reduce_scatter_block(C(s), C(r), *count, Type(type), Op(op), Comm(comm)); })

KCOLL_FORTRAN(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
              (void* s, void* r, MPI_Fint* counts, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Reduce_scatter(C(s), C(r), counts, Type(type), Op(op), Comm(comm)); })

KCOLL_FORTRAN(mpi_bcast, MPI_BCAST,
              (void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Bcast(C(buffer), *count, Type(type), *root, Comm(comm)); })

KCOLL_FORTRAN(mpi_allgather, MPI_ALLGATHER,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* comm,
               MPI_Fint* ierr),
              { *ierr = MPI_Allgather(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), Comm(comm)); })

KCOLL_FORTRAN(mpi_allgatherv, MPI_ALLGATHERV,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcounts, MPI_Fint* displs,
               MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Allgatherv(C(s), *scount, Type(stype), C(r), rcounts, displs, Type(rtype), Comm(comm)); })

KCOLL_FORTRAN(mpi_alltoall, MPI_ALLTOALL,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* comm,
               MPI_Fint* ierr),
              { *ierr = MPI_Alltoall(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), Comm(comm)); })

KCOLL_FORTRAN(mpi_alltoallv, MPI_ALLTOALLV,
              (void* s, MPI_Fint* scounts, MPI_Fint* sdispls, MPI_Fint* stype, void* r, MPI_Fint* rcounts,
               MPI_Fint* rdispls, MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* ierr),
              {
                *ierr =
                    MPI_Alltoallv(C(s), scounts, sdispls, Type(stype), C(r), rcounts, rdispls, Type(rtype), Comm(comm));
              })

KCOLL_FORTRAN(mpi_gather, MPI_GATHER,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* root,
               MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Gather(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), *root, Comm(comm)); })

KCOLL_FORTRAN(mpi_gatherv, MPI_GATHERV,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcounts, MPI_Fint* displs,
               MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr),
              {
                *ierr = MPI_Gatherv(C(s), *scount, Type(stype), C(r), rcounts, displs, Type(rtype), *root, Comm(comm));
              })

KCOLL_FORTRAN(mpi_scatter, MPI_SCATTER,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* root,
               MPI_Fint* comm, MPI_Fint* ierr),
              { *ierr = MPI_Scatter(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), *root, Comm(comm)); })

KCOLL_FORTRAN(mpi_scatterv, MPI_SCATTERV,
              (void* s, MPI_Fint* scounts, MPI_Fint* displs, MPI_Fint* stype, void* r, MPI_Fint* rcount,
               MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr),
              {
                *ierr = MPI_Scatterv(C(s), scounts, displs, Type(stype), C(r), *rcount, Type(rtype), *root, Comm(comm));
              })

KCOLL_FORTRAN(mpi_barrier, MPI_BARRIER, (MPI_Fint * comm, MPI_Fint* ierr), { *ierr = MPI_Barrier(Comm(comm)); })

// Open MPI's Fortran MPI_FINALIZE calls PMPI_Finalize: the library's communicators are released here first.
KCOLL_FORTRAN(mpi_finalize, MPI_FINALIZE, (MPI_Fint * ierr), { *ierr = MPI_Finalize(); })

// The nonblocking forms (mpi_nonblocking.cc): the request comes back as its Fortran handle.
#define KCOLL_FORTRAN_REQUEST(call)                                   \
  {                                                                   \
    MPI_Request c_request = MPI_REQUEST_NULL;                         \
    *ierr = call;                                                     \
    if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(c_request); \
  }

// MPI_Iallreduce, MPI_Iscan and MPI_Iexscan take the same arguments; so do MPI_Iallgather and MPI_Ialltoall.
#define KCOLL_FORTRAN_IREDUCTION(lower, upper, function)                                                             \
  KCOLL_FORTRAN(lower, upper,                                                                                        \
                (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, \
                 MPI_Fint* ierr),                                                                                    \
                KCOLL_FORTRAN_REQUEST(function(C(s), C(r), *count, Type(type), Op(op), Comm(comm), &c_request)))
#define KCOLL_FORTRAN_IMOVEMENT(lower, upper, function)                                                        \
  KCOLL_FORTRAN(                                                                                               \
      lower, upper,                                                                                            \
      (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* comm, \
       MPI_Fint* request, MPI_Fint* ierr),                                                                     \
      KCOLL_FORTRAN_REQUEST(function(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), Comm(comm), &c_request)))

KCOLL_FORTRAN_IREDUCTION(mpi_iallreduce, MPI_IALLREDUCE, MPI_Iallreduce)
KCOLL_FORTRAN_IREDUCTION(mpi_iscan, MPI_ISCAN, MPI_Iscan)
KCOLL_FORTRAN_IREDUCTION(mpi_iexscan, MPI_IEXSCAN, MPI_Iexscan)
KCOLL_FORTRAN_IMOVEMENT(mpi_iallgather, MPI_IALLGATHER, MPI_Iallgather)
KCOLL_FORTRAN_IMOVEMENT(mpi_ialltoall, MPI_IALLTOALL, MPI_Ialltoall)

KCOLL_FORTRAN(mpi_ireduce, MPI_IREDUCE,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm,
               MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ireduce(C(s), C(r), *count, Type(type), Op(op), *root, Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_ibcast, MPI_IBCAST,
              (void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request,
               MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ibcast(C(buffer), *count, Type(type), *root, Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_igather, MPI_IGATHER,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* root,
               MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Igather(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), *root,
                                                Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_iscatter, MPI_ISCATTER,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* root,
               MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Iscatter(C(s), *scount, Type(stype), C(r), *rcount, Type(rtype), *root,
                                                 Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_iallgatherv, MPI_IALLGATHERV,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcounts, MPI_Fint* displs,
               MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Iallgatherv(C(s), *scount, Type(stype), C(r), rcounts, displs, Type(rtype),
                                                    Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_ialltoallv, MPI_IALLTOALLV,
              (void* s, MPI_Fint* scounts, MPI_Fint* sdispls, MPI_Fint* stype, void* r, MPI_Fint* rcounts,
               MPI_Fint* rdispls, MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ialltoallv(C(s), scounts, sdispls, Type(stype), C(r), rcounts, rdispls,
                                                   Type(rtype), Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_igatherv, MPI_IGATHERV,
              (void* s, MPI_Fint* scount, MPI_Fint* stype, void* r, MPI_Fint* rcounts, MPI_Fint* displs,
               MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Igatherv(C(s), *scount, Type(stype), C(r), rcounts, displs, Type(rtype), *root,
                                                 Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_iscatterv, MPI_ISCATTERV,
              (void* s, MPI_Fint* scounts, MPI_Fint* displs, MPI_Fint* stype, void* r, MPI_Fint* rcount,
               MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Iscatterv(C(s), scounts, displs, Type(stype), C(r), *rcount, Type(rtype), *root,
                                                  Comm(comm), &c_request)))

KCOLL_FORTRAN(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
              (void* s, void* r, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request,
               MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ireduce_scatter_block(C(s), C(r), *count, Type(type), Op(op), Comm(comm),
                                                              &c_request)))

KCOLL_FORTRAN(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER,
              (void* s, void* r, MPI_Fint* counts, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request,
               MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ireduce_scatter(C(s), C(r), counts, Type(type), Op(op), Comm(comm),
                                                        &c_request)))

KCOLL_FORTRAN(mpi_ibarrier, MPI_IBARRIER, (MPI_Fint * comm, MPI_Fint* request, MPI_Fint* ierr),
              KCOLL_FORTRAN_REQUEST(MPI_Ibarrier(Comm(comm), &c_request)))

#elif defined(MPICH)

// MPICH's `use mpi_f08` routines that take a buffer call the C names, which the C definitions catch; those without
// one call the PMPI_ names themselves: MPI_Barrier, MPI_Ibarrier and MPI_Finalize (which releases the library's
// communicators and prints its lines first) are defined here under their f08 names. Handles come as their integer
// values (TYPE(MPI_Comm) and TYPE(MPI_Request) hold one), an absent ierror as null.
extern "C" void mpi_barrier_f08_(MPI_Fint* comm, MPI_Fint* ierror) {
  const int code = MPI_Barrier(PMPI_Comm_f2c(*comm));
  if (ierror != nullptr) *ierror = code;
}
extern "C" void mpi_ibarrier_f08_(MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror) {
  MPI_Request c_request = MPI_REQUEST_NULL;
  const int code = MPI_Ibarrier(PMPI_Comm_f2c(*comm), &c_request);
  if (code == MPI_SUCCESS) *request = PMPI_Request_c2f(c_request);
  if (ierror != nullptr) *ierror = code;
}
extern "C" void mpi_finalize_f08_(MPI_Fint* ierror) {
  const int code = MPI_Finalize();
  if (ierror != nullptr) *ierror = code;
}

#endif  // OPEN_MPI, MPICH
