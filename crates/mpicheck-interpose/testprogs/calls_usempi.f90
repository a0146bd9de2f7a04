! Run on 2 ranks under the interposition library (`use mpi` bindings); tests/fortran_programs.rs
! checks that each call below is recorded once, as a Fortran call, with C handle values.
program calls_usempi
  use mpi
  implicit none
  integer :: ierr, rank, peer, v, buf(4), reqs(2), newcomm, three
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  v = 100 + rank
  if (rank == 0) then
    call MPI_Recv(buf, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (buf(1) /= 101) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  else
    call MPI_Send(v, 1, MPI_INTEGER, 0, 42, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Irecv(buf, 2, MPI_INTEGER, MPI_ANY_SOURCE, 7 + peer, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(v, 1, MPI_INTEGER, peer, 7 + rank, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (buf(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, newcomm, ierr)
  call MPI_Barrier(newcomm, ierr)
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Type_contiguous(3, MPI_INTEGER, three, ierr)
  call MPI_Type_commit(three, ierr)
  call MPI_Type_free(three, ierr)
  call MPI_Finalize(ierr)
end program calls_usempi
