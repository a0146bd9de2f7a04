! Every MPI call that mpicheck records sits on a line marked "site" (see sites.c).
program sites_f08
  use mpi_f08
  implicit none
  integer :: rank, peer, v, got
  type(MPI_Request) :: req
  call MPI_Init() ! site
  call MPI_Comm_rank(MPI_COMM_WORLD, rank) ! site
  peer = 1 - rank
  v = 20 + rank
  call MPI_Irecv(got, 1, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, req) ! site
  call MPI_Ssend(v, 1, MPI_INTEGER, peer, 6, MPI_COMM_WORLD) ! site
  call MPI_Wait(req, MPI_STATUS_IGNORE) ! site
  call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) ! site
  print '(a,i0,a,i0)', 'rank ', rank, ' got ', got
  call MPI_Finalize() ! site
end program sites_f08
