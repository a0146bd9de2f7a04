! Run on 2 ranks under the interposition library (`use mpi_f08` bindings);
! tests/fortran_programs.rs checks that each call below is recorded once, as a Fortran call,
! with C handle values.
program calls_f08
  use mpi_f08
  implicit none
  integer :: rank, peer, v, buf(4)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: newcomm
  type(MPI_Datatype) :: three
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = 1 - rank
  v = 100 + rank
  if (rank == 0) then
    call MPI_Recv(buf, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (buf(1) /= 101) call MPI_Abort(MPI_COMM_WORLD, 2)
  else
    call MPI_Send(v, 1, MPI_INTEGER, 0, 42, MPI_COMM_WORLD)
  end if
  call MPI_Irecv(buf, 2, MPI_INTEGER, MPI_ANY_SOURCE, 7 + peer, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(v, 1, MPI_INTEGER, peer, 7 + rank, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (buf(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 3)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, newcomm)
  call MPI_Barrier(newcomm)
  call MPI_Comm_free(newcomm)
  call MPI_Type_contiguous(3, MPI_INTEGER, three)
  call MPI_Type_commit(three)
  call MPI_Type_free(three)
  call MPI_Finalize()
end program calls_f08
