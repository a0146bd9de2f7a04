/*
 * The size of a file that was never opened: its handle is still MPI_FILE_NULL (AR004).
 * The library rejects it.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Offset size;
    MPI_Init(&argc, &argv);
    MPI_File_get_size(fh, &size); /* expect: AR004 */
    MPI_Finalize();
    return 0;
}
