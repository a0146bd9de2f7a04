! Point-to-point type signatures from Fortran (`use mpi`): rank 0 sends 4 integers that
! rank 1 receives as 4 reals (TY002), then 4 integers received through a derived
! contiguous type of 2 x 2 integers and a struct of 4 integers (both fine), then an
! allreduce where rank 1 uses MPI_REAL (TY001).
!
! mpicheck: ranks=2
program ty_p2p_mismatch_usempi
  use mpi
  implicit none
  integer :: rank, ierr, pair, quad, t
  integer :: a(4), b(4)
  integer :: bl(1), types(1)
  integer(kind=MPI_ADDRESS_KIND) :: displs(1)
  real :: f(4)
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 1
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  bl(1) = 4
  displs(1) = 0
  types(1) = MPI_INTEGER
  call MPI_Type_create_struct(1, bl, displs, types, quad, ierr)
  call MPI_Type_commit(quad, ierr)
  if (rank == 0) then
    call MPI_Send(a, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr) ! expect: TY002
    call MPI_Send(a, 4, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(a, 4, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(f, 4, MPI_REAL, 0, 0, MPI_COMM_WORLD, status, ierr) ! expect: TY002
    call MPI_Recv(b, 2, pair, 0, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_Recv(b, 1, quad, 0, 2, MPI_COMM_WORLD, status, ierr)
  end if
  t = MPI_INTEGER
  if (rank == 1) t = MPI_REAL
  call MPI_Allreduce(a, b, 4, t, MPI_MAX, MPI_COMM_WORLD, ierr) ! expect: TY001
  call MPI_Type_free(pair, ierr)
  call MPI_Type_free(quad, ierr)
  call MPI_Finalize(ierr)
end program ty_p2p_mismatch_usempi
