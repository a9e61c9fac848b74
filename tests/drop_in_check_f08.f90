! A plain Fortran MPI program (`use mpi_f08`) for the MPI drop-in library. Open MPI's f08 bindings call the same
! internal functions for the MPI_ and the PMPI_ names, so the expected results are computed here from the data (small
! integers in double precision: exact in any order). Prints "drop_in_check_f08 on N ranks: PASSED" from rank 0.
program drop_in_check_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, rank, nranks, i, r, failures, total
  double precision :: x(n), got(n), want(n), gathered(n * 16)
  type(MPI_Request) :: request

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  failures = 0
  do i = 1, n
    x(i) = dble(rank * 10 + i)
  end do
  ! Rank r's element i is 10 r + i: the sum over ranks is 10 n(n-1)/2 + n i, the maximum 10 (n-1) + i.
  do i = 1, n
    want(i) = dble(10 * nranks * (nranks - 1) / 2 + nranks * i)
  end do

  call MPI_Allreduce(x, got, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(got /= want) .or. ierr /= MPI_SUCCESS) failures = failures + 1

  got = x
  call MPI_Allreduce(MPI_IN_PLACE, got, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (got(i) /= dble(10 * (nranks - 1) + i)) failures = failures + 1
  end do

  got = x
  call MPI_Bcast(got, n, MPI_DOUBLE_PRECISION, nranks - 1, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (got(i) /= dble(10 * (nranks - 1) + i)) failures = failures + 1
  end do

  call MPI_Allgather(x, n, MPI_DOUBLE_PRECISION, gathered, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  do r = 0, nranks - 1
    do i = 1, n
      if (gathered(r * n + i) /= dble(r * 10 + i)) failures = failures + 1
    end do
  end do

  ! Nonblocking: the request is an f08 handle that MPI_Wait completes.
  call MPI_Iallreduce(x, got, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  if (any(got /= want) .or. ierr /= MPI_SUCCESS) failures = failures + 1
  call MPI_Ibarrier(MPI_COMM_WORLD, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1

  call PMPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, 3a, i0, a)', 'drop_in_check_f08 on ', nranks, ' ranks: ', &
    merge('PASSED', 'FAILED', total == 0), ' (', total, ' failed checks)'
  call MPI_Finalize(ierr)
end program drop_in_check_f08
