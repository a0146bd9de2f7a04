/*
 * A group made of ranks 0..size of the world's group, one too many (AR001). The library
 * rejects the rank and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int size, ranks[3] = {0, 1, 2};
    MPI_Group world, some;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, size + 1, ranks, &some); /* expect: AR001 */
    MPI_Group_free(&some);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
