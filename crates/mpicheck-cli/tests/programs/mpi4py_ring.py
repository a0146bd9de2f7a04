# A correct mpi4py program: a ring exchange of pickled objects, a reduction and a gather.
# mpi4py keeps a private duplicate of each communicator for pickled messages and frees it,
# and its keyval, in attribute delete functions that MPI_Finalize runs. Only rank 0 prints,
# so that the ranks' output cannot interleave.
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
received = comm.sendrecv(rank, dest=(rank + 1) % size, source=(rank - 1) % size)
total = comm.allreduce(rank)
lines = comm.gather(f"rank {rank} got {received}, sum {total}", root=0)
if rank == 0:
    print("\n".join(lines), flush=True)
