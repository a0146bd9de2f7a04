/* Loops of a few different calls (trace format 7 counts their calls in a cycle record after
 * one turn written as records): the exchange of benches/hot_path.c (MPI_Irecv + MPI_Isend to
 * oneself + MPI_Waitall), MPI_Allreduce + a message to the peer, a ring step of four calls,
 * cycles broken now and then by other outputs (a wildcard receive whose tag changes), other
 * inputs (a tag that changes every 7 turns) or another call, and a loop of five calls (more
 * than a cycle counts). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, n = 200;
    for (int i = 1; i < argc; i++) sscanf(argv[i], "%d", &n);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1, left = (rank + size - 1) % size, right = (rank + 1) % size;
    int v = 1, w = 0, sum = 0;
    MPI_Status st;
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(&w, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    if (peer < size) {
        for (int i = 0; i < n; i++) {
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (rank == 0)
                MPI_Send(&v, 1, MPI_INT, peer, 10 + (i % 50 == 49), MPI_COMM_WORLD);
            else
                MPI_Recv(&w, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        }
    }
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(&w, 1, MPI_INT, left, 4 + i / 7, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_INT, right, 4 + i / 7, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (i % 40 == 39) MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(&w, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[0], &st);
        MPI_Wait(&r[1], &st);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
