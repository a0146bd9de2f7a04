! Correct twin of dr_fortran_isend_store_usempi.f90 (`use mpi`): the pending send buffer
! is read (allowed), both buffers are written only after MPI_WAIT, MPI_TEST returning
! true or MPI_WAITALL completed them. Nothing is reported and
! the data arrive intact.
!
! mpicheck: ranks=2 check-buffers
! expect: none
program dr_fortran_isend_ok_usempi
  use mpi
  implicit none
  integer, parameter :: n = 4096
  integer :: ierr, rank, peer, reqs(2), i, bad, round
  integer(kind=8) :: total
  logical :: flag
  integer, allocatable :: sbuf(:), rbuf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  allocate(sbuf(n), rbuf(n))
  bad = 0
  total = 0
  do round = 1, 4
    do i = 1, n
      sbuf(i) = rank * n + i + round
    end do
    call MPI_Irecv(rbuf, n, MPI_INTEGER, peer, round, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, n, MPI_INTEGER, peer, round, MPI_COMM_WORLD, reqs(2), ierr)
    total = total + sbuf(n / 2)
    if (round == 1) then
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    else if (round == 2) then
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
      flag = .false.
      do while (.not. flag)
        call MPI_Test(reqs(2), flag, MPI_STATUS_IGNORE, ierr)
      end do
    else if (round == 3) then
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      flag = .false.
      do while (.not. flag)
        call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE, ierr)
      end do
    end if
    do i = 1, n
      if (rbuf(i) /= peer * n + i + round) bad = bad + 1
    end do
    sbuf(1) = -1
    rbuf(1) = -1
  end do
  print *, 'rank', rank, 'total', total
  if (bad /= 0) print *, 'rank', rank, ':', bad, 'wrong values'
  deallocate(sbuf, rbuf)
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1
end program dr_fortran_isend_ok_usempi
