! MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"), Figure 1:
! dependency cycle with two processes, mpi_ssend variant; Fortran with `use mpi`.
! Mirrors fig01_ssend_cycle.c.
!
! Both ranks start with a synchronous send to the other and only then receive:
! neither mpi_ssend can complete, an actual deadlock with every MPI
! implementation. Expected verdict: DL001 at both mpi_ssend calls. Without
! mpicheck the program hangs (mpicheck must end it).
!
! mpicheck: ranks=2
program fig01_ssend_cycle_usempi
  use mpi
  implicit none
  integer :: rank, nprocs, ierror
  integer :: status(MPI_STATUS_SIZE)
  double precision :: a(4), b(4)

  a = 1.0d0
  b = 2.0d0
  call mpi_init(ierror)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierror)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierror)
  if (nprocs /= 2) then
    if (rank == 0) print *, 'this program needs exactly 2 ranks'
    call mpi_abort(MPI_COMM_WORLD, 2, ierror)
  end if

  if (rank == 0) then
    call mpi_ssend(a, 4, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, ierror) ! expect: DL001
    call mpi_recv(b, 4, MPI_DOUBLE_PRECISION, 1, 2, MPI_COMM_WORLD, status, ierror)
  else
    call mpi_ssend(b, 4, MPI_DOUBLE_PRECISION, 0, 2, MPI_COMM_WORLD, ierror) ! expect: DL001
    call mpi_recv(a, 4, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, status, ierror)
  end if

  call mpi_finalize(ierror)
end program fig01_ssend_cycle_usempi
