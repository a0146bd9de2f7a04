! Correct completion of immediate requests with MPI_WAITANY, MPI_WAITSOME and an
! MPI_TESTALL loop from Fortran (`use mpi`). Fortran counts the indices these calls return
! from 1 (MPI 4.1 §3.7.5): read as C indices they named the wrong request, and the run got
! false RQ001 and BF001 findings. Nothing is reported.
!
! mpicheck: ranks=2
! expect: none
program rq_any_some_indices_ok_usempi
  use mpi
  implicit none
  integer :: ierr, rank, peer, reqs(2), idx, k, outcount, idxs(2), buf(4), rbuf(4)
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  buf = rank
  call MPI_IRECV(rbuf, 4, MPI_INTEGER, peer, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(buf, 4, MPI_INTEGER, peer, 0, MPI_COMM_WORLD, reqs(2), ierr)
  do k = 1, 2
    call MPI_WAITANY(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_IRECV(rbuf, 4, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(buf, 4, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(2), ierr)
  k = 0
  do while (k < 2)
    call MPI_WAITSOME(2, reqs, outcount, idxs, MPI_STATUSES_IGNORE, ierr)
    k = k + outcount
  end do
  call MPI_IRECV(rbuf, 4, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(buf, 4, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, reqs(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_TESTALL(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_FINALIZE(ierr)
end program rq_any_some_indices_ok_usempi
