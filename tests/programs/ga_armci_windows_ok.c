/*
 * Global Arrays over ARMCI-MPI (NWChem's runtime), correct: ARMCI's world is a dup of
 * MPI_COMM_WORLD; GA's "mirror" group makes each rank pass a group of only itself to
 * MPI_Comm_create (disjoint groups are allowed, MPI 4.1 §7.4.2); every global array is a
 * window made and freed in turn, read and updated under one MPI_Win_lock_all epoch with
 * accumulates (same op and type may overlap) completed by flushes. Expected verdict: none.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    double *base, one = 1.0, old;
    MPI_Comm world, mirror;
    MPI_Group all, self;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Comm_group(world, &all);
    MPI_Group_incl(all, 1, &rank, &self);
    MPI_Comm_create(world, self, &mirror);
    MPI_Group_free(&all);
    MPI_Group_free(&self);

    for (int array = 0; array < 3; array++) {
        MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, world, &base, &win);
        for (int i = 0; i < 4; i++)
            base[i] = 0.0;
        MPI_Barrier(world);
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < 8; i++) {
            int target = (rank + i) % size;
            MPI_Accumulate(&one, 1, MPI_DOUBLE, target, i % 4, 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush_all(win);
            MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &old, 1, MPI_DOUBLE, target, i % 4, 1,
                               MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush_local_all(win);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(world);
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&mirror);
    MPI_Comm_free(&world);
    MPI_Finalize();
    return 0;
}
