/*
 * A hybrid 1-D Jacobi solver as such codes are written under MPI_THREAD_FUNNELED: the
 * threads update the grid in worksharing loops (static and dynamic schedules, a reduction),
 * a `single nowait` block resets a counter, and only the main thread exchanges halos and
 * reduces the residual (`omp master` followed by a barrier, `omp masked`), with communicators
 * and a datatype freed after the region. Correct: no thread but the main one calls MPI, and
 * every object is freed after its last use. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
#include <mpi.h>
#include <omp.h>

#define N 64

int main(int argc, char **argv)
{
    int provided, rank, size, sweeps = 0;
    double u[N + 2] = {0}, v[N + 2] = {0}, residual = 0, total = 0;
    MPI_Comm comm;
    MPI_Datatype cell;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_contiguous(1, MPI_DOUBLE, &cell);
    MPI_Type_commit(&cell);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    u[0] = rank == 0 ? 1.0 : 0.0;
    #pragma omp parallel num_threads(2)
    {
        for (int it = 0; it < 5; it++) {
            #pragma omp master
            {
                MPI_Sendrecv(&u[1], 1, cell, left, 0, &u[N + 1], 1, cell, right, 0, comm, MPI_STATUS_IGNORE);
                MPI_Sendrecv(&u[N], 1, cell, right, 1, &u[0], 1, cell, left, 1, comm, MPI_STATUS_IGNORE);
            }
            #pragma omp barrier
            #pragma omp for schedule(static) reduction(+ : residual)
            for (int i = 1; i <= N; i++) {
                v[i] = 0.5 * (u[i - 1] + u[i + 1]);
                residual += (v[i] - u[i]) * (v[i] - u[i]);
            }
            #pragma omp for schedule(dynamic, 8)
            for (int i = 1; i <= N; i++)
                u[i] = v[i];
            #pragma omp single nowait
            sweeps++;
            #pragma omp masked
            {
                MPI_Allreduce(&residual, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
                residual = 0;
            }
            #pragma omp barrier
        }
    }
    MPI_Type_free(&cell);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return sweeps == 5 ? 0 : 1;
}
