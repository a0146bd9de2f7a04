/* Loops of identical calls (trace format 6 counts each run in one record): sends and
 * receives between two ranks, the exchange of benches/hot_path.c (MPI_Irecv + MPI_Isend to
 * oneself + MPI_Waitall), a collective, and runs broken by calls whose outputs change (a
 * wildcard receive whose status alternates between two tags) or whose inputs do. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, n = 200;
    for (int i = 1; i < argc; i++) sscanf(argv[i], "%d", &n);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1, v = 1, w = 0, sum = 0;
    MPI_Status st;
    if (peer < size) {
        for (int i = 0; i < n; i++) {
            if (rank == 0)
                MPI_Send(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
            else
                MPI_Recv(&w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
        }
        /* A run whose outputs change: the tag received alternates. */
        for (int i = 0; i < n; i++) {
            if (rank == 0)
                MPI_Send(&v, 1, MPI_INT, peer, 10 + (i / 3) % 2, MPI_COMM_WORLD);
            else
                MPI_Recv(&w, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        }
    }
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(&w, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < n; i++)
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, i % 4 == 0 ? 1 : 2, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
