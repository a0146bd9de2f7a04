! Fortran twin of bf_shared_handle_wait_ok.c (`use mpi_f08`): the sends complete at once and
! share one handle; MPI_WAIT on reqs(2) and MPI_WAITALL on reqs(2:3) name the later
! requests, whose buffers are then the program's again, so the receives into b and c are
! correct. A TYPE(MPI_Request) holds one INTEGER: 4 bytes an entry of reqs.
!
! mpicheck: ranks=2
! expect: none
program bf_shared_handle_wait_ok_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank
  type(MPI_Request) :: reqs(3)
  integer :: a(4), b(4), c(4)

  a = 0
  b = 0
  c = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Isend(a, 4, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(b, 4, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(b, 4, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

    call MPI_Isend(a, 4, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(b, 4, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(c, 4, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Waitall(2, reqs(2:3), MPI_STATUSES_IGNORE, ierr)
    call MPI_Irecv(b, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Irecv(c, 4, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
  else
    call MPI_Recv(a, 4, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(b, 4, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(b, 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, ierr)
    call MPI_Recv(a, 4, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(b, 4, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(c, 4, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(b, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
    call MPI_Send(c, 4, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program bf_shared_handle_wait_ok_f08
