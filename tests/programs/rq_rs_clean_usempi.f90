! Twin of rq_rs_leaks_usempi.f90: the send is completed by an mpi_test loop and every
! object is freed.
!
! mpicheck: ranks=2
! expect: none
program rq_rs_clean_usempi
  use mpi
  implicit none
  integer :: rank, ierr, req, dup, pair, i
  integer :: data(4)
  logical :: flag

  data = 1
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Isend(data, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
  else
    call MPI_Recv(data, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  do i = 1, 2
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_free(dup, ierr)
  end do
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  call MPI_Type_free(pair, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program rq_rs_clean_usempi
