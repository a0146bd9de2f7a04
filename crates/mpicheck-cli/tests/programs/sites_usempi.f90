! Every MPI call that mpicheck records sits on a line marked "site" (see sites.c).
program sites_usempi
  use mpi
  implicit none
  integer :: ierr, rank, peer, v, got, req
  call MPI_Init(ierr) ! site
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr) ! site
  peer = 1 - rank
  v = 10 + rank
  call MPI_Irecv(got, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, req, ierr) ! site
  call MPI_Send(v, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, ierr) ! site
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr) ! site
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! site
  print '(a,i0,a,i0)', 'rank ', rank, ' got ', got
  call MPI_Finalize(ierr) ! site
end program sites_usempi
