/*
 * Two ranges of a group that both name rank 1 (AR014). The library rejects the list and
 * aborts.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int ranges[2][3] = {{0, 1, 1}, {1, 2, 1}};
    MPI_Group world, some;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_range_incl(world, 2, ranges, &some); /* expect: AR014 */
    MPI_Group_free(&some);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
