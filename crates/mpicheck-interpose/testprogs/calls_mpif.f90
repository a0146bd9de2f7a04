! Run on 2 ranks under the interposition library (mpif.h bindings); tests/fortran_programs.rs
! checks that each call below is recorded once, as a Fortran call made from this program, with
! C handle values. MPI_Abort is only reached if MPI itself misbehaves.
program calls_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, peer, v, buf(4), reqs(2), newcomm, three
  integer :: preqs(2), st(MPI_STATUS_SIZE), cnt, ireq, total
  integer :: world_group, pair, gsize, zero(1), others(1)
  integer :: darray, tsize, gsizes(1), distribs(1), dargs(1), psizes(1)
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  integer :: graph, nbrs(1), gathered(1), namelen
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  double precision :: t0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (size /= 2) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  t0 = MPI_Wtime()
  if (t0 < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
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

  ! Persistent requests; a status read back with MPI_Get_count.
  call MPI_Recv_init(buf, 4, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, preqs(1), ierr)
  call MPI_Send_init(v, 1, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, preqs(2), ierr)
  call MPI_Startall(2, preqs, ierr)
  call MPI_Wait(preqs(1), st, ierr)
  call MPI_Wait(preqs(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  if (cnt /= 1 .or. buf(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  call MPI_Request_free(preqs(1), ierr)
  call MPI_Request_free(preqs(2), ierr)

  ! A nonblocking collective in place.
  total = rank + 1
  call MPI_Iallreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ireq, ierr)
  call MPI_Wait(ireq, MPI_STATUS_IGNORE, ierr)
  if (total /= 3) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)

  ! Groups.
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr)
  others(1) = peer
  call MPI_Group_incl(world_group, 1, others, pair, ierr)
  call MPI_Group_size(pair, gsize, ierr)
  zero(1) = 0
  call MPI_Group_translate_ranks(pair, 1, zero, world_group, others, ierr)
  if (gsize /= 1 .or. others(1) /= peer) call MPI_Abort(MPI_COMM_WORLD, 6, ierr)
  call MPI_Group_free(pair, ierr)
  call MPI_Group_free(world_group, ierr)

  ! A distributed-array datatype and its size and extent.
  gsizes(1) = 4
  distribs(1) = MPI_DISTRIBUTE_BLOCK
  dargs(1) = MPI_DISTRIBUTE_DFLT_DARG
  psizes(1) = 2
  call MPI_Type_create_darray(2, rank, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, &
                              MPI_INTEGER, darray, ierr)
  call MPI_Type_size(darray, tsize, ierr)
  call MPI_Type_get_extent(darray, lb, extent, ierr)
  if (tsize /= 8 .or. extent /= 16) call MPI_Abort(MPI_COMM_WORLD, 7, ierr)
  call MPI_Type_free(darray, ierr)

  ! Strings (hidden length arguments).
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'mpicheck world', ierr)
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, namelen, ierr)
  if (cname(1:namelen) /= 'mpicheck world') call MPI_Abort(MPI_COMM_WORLD, 8, ierr)

  ! A neighbourhood: unweighted graph, nonblocking neighbour collective.
  nbrs(1) = peer
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, nbrs, MPI_UNWEIGHTED, 1, nbrs, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Ineighbor_allgather(v, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, graph, ireq, ierr)
  call MPI_Wait(ireq, MPI_STATUS_IGNORE, ierr)
  if (gathered(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 9, ierr)
  call MPI_Comm_free(graph, ierr)
  call MPI_Finalize(ierr)
end program calls_mpif
