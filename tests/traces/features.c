/*
 * The program whose traces are the fixtures of tests/traces (see README.md): a correct
 * 2-rank program that uses communicators, derived datatypes, point-to-point calls of every
 * kind, collectives, persistent requests, a topology, one-sided fences and attributes, so
 * that its traces hold most record shapes the recorder writes.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, i;
    int a[16] = {0}, b[16] = {0}, counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Comm split, dup, cart;
    MPI_Datatype vec;
    MPI_Request reqs[4];
    MPI_Status status, statuses[2];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = 1 - rank;

    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &split);
    MPI_Comm_dup(split, &dup);
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    MPI_Sendrecv(a, 1, vec, peer, 1, b, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &status);
    MPI_Irecv(b, 4, MPI_INT, MPI_ANY_SOURCE, 2, dup, &reqs[0]);
    MPI_Isend(a, 4, MPI_INT, peer, 2, dup, &reqs[1]);
    MPI_Waitall(2, reqs, statuses);
    if (rank == 0) {
        MPI_Ssend(a, 2, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
        MPI_Probe(1, 4, MPI_COMM_WORLD, &status);
        MPI_Recv(b, 4, MPI_INT, status.MPI_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(b, 2, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &status);
        MPI_Send(a, 4, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }

    MPI_Send_init(a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &reqs[2]);
    MPI_Recv_init(b, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &reqs[3]);
    for (i = 0; i < 3; i++) {
        MPI_Startall(2, &reqs[2]);
        int flag = 0;
        MPI_Testall(2, &reqs[2], &flag, statuses);
        if (!flag)
            MPI_Waitall(2, &reqs[2], statuses);
    }
    MPI_Request_free(&reqs[2]);
    MPI_Request_free(&reqs[3]);

    MPI_Bcast(a, 4, MPI_INT, 0, split);
    MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(a, b, 4, MPI_INT, MPI_MAX, 1, dup);
    MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);

    int dims[1] = {2}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, cart);

    MPI_Win_create(a, sizeof a, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(b, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    for (i = 0; i < 20; i++) {
        MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, dup);
        MPI_Bcast(a, 1, MPI_INT, i % 2, MPI_COMM_WORLD);
    }

    MPI_Comm_free(&cart);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
