/*
 * MPI objects created and never freed before MPI_Finalize (RS001): three
 * communicators from one MPI_Comm_dup call site, a derived datatype, a group and an
 * info object, each reported once at its creation site with the count.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Comm dup;
    MPI_Datatype pair;
    MPI_Group group;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* expect: RS001 */
        MPI_Barrier(dup);
    }
    MPI_Type_contiguous(2, MPI_INT, &pair); /* expect: RS001 */
    MPI_Type_commit(&pair);
    MPI_Comm_group(MPI_COMM_WORLD, &group); /* expect: RS001 */
    MPI_Info_create(&info); /* expect: RS001 */
    MPI_Finalize();
    return 0;
}
