! MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 14:
! potential deadlock situation; Fortran with `use mpi_f08`. Mirrors
! fig14_isend_wait_irecv_wait.c.
!
! Both ranks start an mpi_isend to the other and wait for it before posting
! their mpi_irecv. Without buffering both mpi_wait calls would block forever;
! the messages are tiny, so MPICH and Open MPI buffer them and the run
! completes. Expected verdict: DL002 (potential deadlock) at the first mpi_wait
! (both ranks, one line). Without mpicheck the program completes.
!
! mpicheck: ranks=2
program fig14_isend_wait_irecv_wait_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, peer
  type(MPI_Request) :: r1, r2
  double precision :: sendbuf(4), recvbuf(4)

  sendbuf = 1.0d0
  recvbuf = 0.0d0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 2) then
    if (rank == 0) print *, 'this program needs exactly 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  peer = 1 - rank

  call MPI_Isend(sendbuf, 4, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, r1)
  call MPI_Wait(r1, MPI_STATUS_IGNORE) ! expect: DL002
  call MPI_Irecv(recvbuf, 4, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, r2)
  call MPI_Wait(r2, MPI_STATUS_IGNORE)

  call MPI_Finalize()
end program fig14_isend_wait_irecv_wait_f08
