! A plain Fortran MPI program (mpif.h) for the MPI drop-in library: each call is made through its MPI_ name and
! through its PMPI_ name (the MPI library's own), and the results must be equal. Small integers in double precision
! and integer data, in place and not; nonblocking calls (one with count arrays) and their MPI_WAIT. Prints "drop_in_check.f90 on N ranks: PASSED" from rank 0.
program drop_in_check_f
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 10
  integer :: ierr, rank, nranks, i, failures, total, root, request, m
  integer :: counts(16), displs(16)
  double precision :: x(n), got(n), want(n), gathered(n * 16), gwant(n * 16)
  integer :: k(n), kgot(n), kwant(n)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  failures = 0
  do i = 1, n
    x(i) = dble(mod(rank * 7 + i * 3, 11) - 4) * 0.5d0
    k(i) = mod(rank * 5 + i, 9) - 3
  end do

  call MPI_ALLREDUCE(x, got, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call PMPI_ALLREDUCE(x, want, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(got /= want) .or. ierr /= MPI_SUCCESS) failures = failures + 1

  got = x
  call MPI_ALLREDUCE(MPI_IN_PLACE, got, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call PMPI_ALLREDUCE(x, want, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (any(got /= want)) failures = failures + 1

  call MPI_ALLREDUCE(k, kgot, n, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  call PMPI_ALLREDUCE(k, kwant, n, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  if (any(kgot /= kwant)) failures = failures + 1

  root = nranks - 1
  got = 0
  if (rank == root) got = x
  call MPI_REDUCE(x, got, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  call PMPI_REDUCE(x, want, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  if (rank == root .and. any(got /= want)) failures = failures + 1

  got = x
  want = x
  call MPI_BCAST(got, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  call PMPI_BCAST(want, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  if (any(got /= want)) failures = failures + 1

  call MPI_ALLGATHER(x, n, MPI_DOUBLE_PRECISION, gathered, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call PMPI_ALLGATHER(x, n, MPI_DOUBLE_PRECISION, gwant, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  if (any(gathered(1:n * nranks) /= gwant(1:n * nranks))) failures = failures + 1

  call MPI_SCAN(k, kgot, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call PMPI_SCAN(k, kwant, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(kgot /= kwant)) failures = failures + 1

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1

  ! Nonblocking: the request is a Fortran handle that MPI_WAIT completes.
  call MPI_IALLREDUCE(x, got, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
  call PMPI_ALLREDUCE(x, want, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(got /= want) .or. ierr /= MPI_SUCCESS) failures = failures + 1
  ! A nonblocking v-collective (rank j gives j + 1 elements) and reduce-scatter: arrays and buffers through the handle.
  m = 0
  do i = 1, nranks
    counts(i) = i
    displs(i) = m
    m = m + i
  end do
  gathered = 0
  gwant = 0
  call MPI_IALLGATHERV(x, rank + 1, MPI_DOUBLE_PRECISION, gathered, counts, displs, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, request, ierr)
  call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
  call PMPI_ALLGATHERV(x, rank + 1, MPI_DOUBLE_PRECISION, gwant, counts, displs, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, ierr)
  if (any(gathered(1:m) /= gwant(1:m)) .or. ierr /= MPI_SUCCESS) failures = failures + 1
  if (nranks <= n) then
    call MPI_IREDUCE_SCATTER_BLOCK(k, kgot, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    call PMPI_REDUCE_SCATTER_BLOCK(k, kwant, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (kgot(1) /= kwant(1) .or. ierr /= MPI_SUCCESS) failures = failures + 1
  end if
  call MPI_IBARRIER(MPI_COMM_WORLD, request, ierr)
  call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1

  call PMPI_ALLREDUCE(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'drop_in_check.f90 on ', nranks, ' ranks: PASSED'
    else
      print '(a,i0,a,i0,a)', 'drop_in_check.f90 on ', nranks, ' ranks: FAILED (', total, ' failed checks)'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program drop_in_check_f
