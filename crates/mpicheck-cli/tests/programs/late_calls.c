/* MPI calls after the recorder's exit handler ran: a destructor calls MPI_Finalized many
 * times (as C++ dependencies of PETSc do), and another thread keeps calling it during exit(). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void *poller(void *arg)
{
    (void)arg;
    int flag;
    for (;;) MPI_Finalized(&flag);
    return NULL;
}
__attribute__((destructor)) static void late(void)
{
    int flag = 0;
    for (int i = 0; i < 100000; i++) MPI_Finalized(&flag);
    if (!flag) fprintf(stderr, "not finalized?\n");
}
int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    pthread_t t;
    pthread_create(&t, NULL, poller, NULL);
    if (rank == 0) printf("done\n");
    exit(0);
}
