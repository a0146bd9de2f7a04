/*
 * MPI_Comm_rank called before MPI_Init (AR009). The library aborts: nothing else of
 * the program runs, the finding must still be reported.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, flag;

    MPI_Initialized(&flag); /* allowed before MPI_Init */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* expect: AR009 */
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
