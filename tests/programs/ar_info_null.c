/*
 * The keys of MPI_INFO_NULL, an info argument taken for an info object (AR004). The
 * library rejects it and aborts.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int nkeys;
    MPI_Init(&argc, &argv);
    MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys); /* expect: AR004 */
    MPI_Finalize();
    return 0;
}
