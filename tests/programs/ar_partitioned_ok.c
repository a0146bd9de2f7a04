/*
 * Correct partitioned communication (MPI 4.0 §4): rank 0 sends 4 partitions of 2 ints to
 * rank 1 over two epochs, marking them ready with MPI_Pready, MPI_Pready_range and
 * MPI_Pready_list; rank 1 polls MPI_Parrived. Each epoch is started, completed by a wait or
 * test, and the requests are freed once inactive.
 */
/* mpicheck: ranks=2 mpi=mpich */
/* expect: none */
#include <mpi.h>
#include <stdio.h>

#define PARTS 4
#define COUNT 2

int main(int argc, char **argv)
{
    int rank, data[PARTS * COUNT];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Psend_init(data, PARTS, COUNT, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int i = 0; i < PARTS * COUNT; i++)
                data[i] = epoch * 100 + i;
            MPI_Start(&req);
            if (epoch == 0) {
                for (int p = 0; p < PARTS; p++)
                    MPI_Pready(p, req);
            } else {
                int rest[2] = {3, 2};
                MPI_Pready_range(0, 1, req);
                MPI_Pready_list(2, rest, req);
            }
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else if (rank == 1) {
        MPI_Precv_init(data, PARTS, COUNT, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (int epoch = 0; epoch < 2; epoch++) {
            int flag = 0, arrived = 0;
            MPI_Start(&req);
            while (!arrived)
                MPI_Parrived(req, PARTS - 1, &arrived);
            while (!flag)
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (data[PARTS * COUNT - 1] != epoch * 100 + PARTS * COUNT - 1)
                printf("wrong data in epoch %d\n", epoch);
        }
        MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
