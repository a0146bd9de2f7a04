! A store into the buffer of a pending MPI_ISEND in Fortran (`use mpi`, DR002), found in
! the unmodified binary and reported at its source line through the program's debug
! info; a load from a pending MPI_IRECV buffer too. Completions in Fortran (MPI_WAIT,
! MPI_WAITALL) end the watches: the stores after them are not reported. Data must arrive.
!
! mpicheck: ranks=2 check-buffers
program dr_fortran_isend_store_usempi
  use mpi
  implicit none
  integer, parameter :: n = 4096
  integer :: ierr, rank, peer, req, reqs(2), i, bad, sink
  integer, allocatable :: sbuf(:), rbuf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  allocate(sbuf(n), rbuf(n))
  do i = 1, n
    sbuf(i) = rank * n + i
  end do
  bad = 0
  sink = 0
  if (rank == 0) then
    call MPI_Isend(sbuf, n, MPI_INTEGER, peer, 0, MPI_COMM_WORLD, req, ierr)
    sbuf(10) = -1 ! expect: DR002
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    sbuf(11) = -1
  else
    call MPI_Irecv(rbuf, n, MPI_INTEGER, peer, 0, MPI_COMM_WORLD, req, ierr)
    sink = rbuf(n / 2) ! expect: DR002
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    rbuf(1) = rbuf(1) + 0
  end if
  call MPI_Irecv(rbuf, n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  do i = 12, n
    if (rbuf(i) /= peer * n + i) bad = bad + 1
  end do
  sbuf(1) = 0
  rbuf(1) = 0
  if (bad /= 0) print *, 'rank', rank, ':', bad, 'wrong values'
  deallocate(sbuf, rbuf)
  call MPI_Finalize(ierr)
  if (bad /= 0 .or. sink == -7) stop 1
end program dr_fortran_isend_store_usempi
