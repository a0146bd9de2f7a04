/*
 * Manager-worker with MPI_Comm_spawn: both managers spawn one worker; manager 0 waits for
 * the worker's answer (the worker computes for longer than mpicheck's deadlock timeout)
 * while manager 1 waits in a barrier; then all three meet on the merged communicator.
 * With the argument "deadlock", the managers then receive from each other: a real
 * deadlock among the recorded ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, workers, all;
    int rank, value, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char *worker_args[] = {"worker", NULL};
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_spawn(argv[0], worker_args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &workers, /* site: spawn */
                       MPI_ERRCODES_IGNORE);
        if (rank == 0) {
            MPI_Recv(&value, 1, MPI_INT, 0, 2, workers, MPI_STATUS_IGNORE);
            printf("manager: got %d\n", value);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Intercomm_merge(workers, 0, &all);
        MPI_Barrier(all);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all);
        if (argc > 1 && argv[1][0] == 'd')
            MPI_Recv(&value, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site: deadlock */
        MPI_Comm_free(&all);
        MPI_Comm_disconnect(&workers);
    } else {
        sleep(3);
        value = 5;
        MPI_Send(&value, 1, MPI_INT, 0, 2, parent);
        MPI_Intercomm_merge(parent, 1, &all);
        MPI_Barrier(all);
        value = 7;
        MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, all);
        MPI_Comm_free(&all);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
