! Fortran (`use mpi`) mirror of rq_isend_never_waited.c and rs_objects_leaked.c: a
! nonblocking send never waited for (RQ001 at the mpi_isend) and communicators and a
! datatype never freed (RS001 at their creation), recorded through the Fortran
! bindings of MPICH and Open MPI.
!
! mpicheck: ranks=2
program rq_rs_leaks_usempi
  use mpi
  implicit none
  integer :: rank, ierr, req, dup, pair, i
  integer :: data(4)

  data = 1
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Isend(data, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req, ierr) ! expect: RQ001
  else
    call MPI_Recv(data, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  do i = 1, 2
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr) ! expect: RS001
  end do
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr) ! expect: RS001
  call MPI_Type_commit(pair, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program rq_rs_leaks_usempi
