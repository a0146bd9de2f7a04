/*
 * MPI_ERRHANDLER_NULL set on a communicator, meant as "restore the default" (AR004). The
 * library rejects it.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL); /* expect: AR004 */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
