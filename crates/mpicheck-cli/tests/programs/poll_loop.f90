! poll_loop.c in Fortran (`use mpi`): rank 0 polls a receive with MPI_Test until rank 1,
! after spinning on MPI_Wtime for half a second, sends. Prints the polls made.
program poll_loop
  use mpi
  implicit none
  integer :: rank, ierr, request, in, out
  integer(kind=8) :: polls
  logical :: flag
  double precision :: start
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  polls = 0
  flag = .false.
  out = 1
  if (rank == 0) then
    call MPI_Irecv(in, 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, request, ierr)
    do while (.not. flag)
      call MPI_Test(request, flag, MPI_STATUS_IGNORE, ierr)
      polls = polls + 1
    end do
    print '(a,i0)', 'polls ', polls
  else
    start = MPI_Wtime()
    do while (MPI_Wtime() - start < 0.5d0)
    end do
    call MPI_Send(out, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program poll_loop
