/* Every rank computes (sleeps) for ten minutes between MPI_Init and MPI_Finalize: a live
 * job with no deadlock, to be interrupted. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 600; i++)
        sleep(1);
    MPI_Finalize();
    return 0;
}
