/*
 * Rank 0 exposes its window to ranks 1 and 2 in one epoch (MPI_Win_post), and both put
 * into element 0 of it (DR001): nothing orders two origins of one exposure epoch, so rank
 * 0 ends up with either value. The program runs to completion without any error from MPI.
 */
/* mpicheck: ranks=3 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0}, others[2] = {1, 2}, zero = 0;
    MPI_Win win;
    MPI_Group world, group;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Group_incl(world, 2, others, &group);
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Group_incl(world, 1, &zero, &group);
        MPI_Win_start(group, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* expect: DR001 */
        MPI_Win_complete(win);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
