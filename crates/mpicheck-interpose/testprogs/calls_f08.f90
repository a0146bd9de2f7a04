! Run on 2 ranks under the interposition library (`use mpi_f08` bindings);
! tests/fortran_programs.rs checks that each call below is recorded once, as a Fortran call made
! from this program, with C handle values. MPI_Abort is only reached if MPI itself misbehaves.
program calls_f08
  use mpi_f08
  implicit none
  integer :: rank, size, peer, v, buf(4), cnt, total, gsize, zero(1), others(1)
  integer :: tsize, gsizes(1), distribs(1), dargs(1), psizes(1), nbrs(1), gathered(1), namelen
  type(MPI_Request) :: reqs(2), preqs(2), ireq
  type(MPI_Comm) :: newcomm, graph
  type(MPI_Datatype) :: three, darray
  type(MPI_Status) :: st
  type(MPI_Group) :: world_group, pair
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  if (size /= 2) call MPI_Abort(MPI_COMM_WORLD, 1)
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

  ! Persistent requests; a status read back with MPI_Get_count.
  call MPI_Recv_init(buf, 4, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, preqs(1))
  call MPI_Send_init(v, 1, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, preqs(2))
  call MPI_Startall(2, preqs)
  call MPI_Wait(preqs(1), st)
  call MPI_Wait(preqs(2), MPI_STATUS_IGNORE)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (cnt /= 1 .or. buf(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 4)
  call MPI_Request_free(preqs(1))
  call MPI_Request_free(preqs(2))

  ! A nonblocking collective in place.
  total = rank + 1
  call MPI_Iallreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ireq)
  call MPI_Wait(ireq, MPI_STATUS_IGNORE)
  if (total /= 3) call MPI_Abort(MPI_COMM_WORLD, 5)

  ! Groups.
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  others(1) = peer
  call MPI_Group_incl(world_group, 1, others, pair)
  call MPI_Group_size(pair, gsize)
  zero(1) = 0
  call MPI_Group_translate_ranks(pair, 1, zero, world_group, others)
  if (gsize /= 1 .or. others(1) /= peer) call MPI_Abort(MPI_COMM_WORLD, 6)
  call MPI_Group_free(pair)
  call MPI_Group_free(world_group)

  ! A distributed-array datatype and its size and extent.
  gsizes(1) = 4
  distribs(1) = MPI_DISTRIBUTE_BLOCK
  dargs(1) = MPI_DISTRIBUTE_DFLT_DARG
  psizes(1) = 2
  call MPI_Type_create_darray(2, rank, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, &
                              MPI_INTEGER, darray)
  call MPI_Type_size(darray, tsize)
  call MPI_Type_get_extent(darray, lb, extent)
  if (tsize /= 8 .or. extent /= 16) call MPI_Abort(MPI_COMM_WORLD, 7)
  call MPI_Type_free(darray)

  ! Strings (hidden length arguments).
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'mpicheck world')
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, namelen)
  if (cname(1:namelen) /= 'mpicheck world') call MPI_Abort(MPI_COMM_WORLD, 8)

  ! A neighbourhood: unweighted graph, nonblocking neighbour collective.
  nbrs(1) = peer
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, nbrs, MPI_UNWEIGHTED, 1, nbrs, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph)
  call MPI_Ineighbor_allgather(v, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, graph, ireq)
  call MPI_Wait(ireq, MPI_STATUS_IGNORE)
  if (gathered(1) /= 100 + peer) call MPI_Abort(MPI_COMM_WORLD, 9)
  call MPI_Comm_free(graph)
  call MPI_Finalize()
end program calls_f08
