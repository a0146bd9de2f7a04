/*
 * In one access epoch (MPI_Win_start .. MPI_Win_complete), rank 1 puts into element 0 of
 * rank 0 and then gets the same element back (DR001): MPI orders neither call before the
 * other within the epoch, so the get may read the old value. Meanwhile rank 0, the
 * target, receives into element 1 of its window while rank 1 reads it with a get in the
 * same exposure epoch (DR004). The program runs to completion without any error from MPI.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, slots[4] = {0}, value = 42, back[2] = {-1, -1}, peer;
    MPI_Win win;
    MPI_Group world, group;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &group);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_post(group, 0, win);
        MPI_Recv(&slots[1], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: DR004 */
        MPI_Win_wait(win);
    } else {
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Win_start(group, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* expect: DR001 */
        MPI_Get(back, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
