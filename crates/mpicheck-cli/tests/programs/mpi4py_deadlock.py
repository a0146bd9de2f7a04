#!/usr/bin/env python3
# Both ranks receive first: a deadlock, in a script run through its #! line.
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
comm.recv(source=1 - rank)
comm.send(rank, dest=1 - rank)
