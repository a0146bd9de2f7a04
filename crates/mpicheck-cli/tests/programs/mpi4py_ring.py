# A correct mpi4py program: a ring exchange of pickled objects and a reduction. mpi4py keeps
# a private duplicate of each communicator for pickled messages and frees it, and its keyval,
# in attribute delete functions that MPI_Finalize runs.
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
received = comm.sendrecv(rank, dest=(rank + 1) % size, source=(rank - 1) % size)
total = comm.allreduce(rank)
print(f"rank {rank} got {received}, sum {total}")
