/* A 2-D complex DFT distributed over the ranks with FFTW's MPI interface, after the
 * example of FFTW's manual (section "2d MPI example"), plus a real-to-complex 3-D transform
 * with transposed output and its inverse: the forward and backward transforms must give
 * the input back (times the size). Prints sums that every run must reproduce. */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>

static double f2(ptrdiff_t i, ptrdiff_t j) { return sin(0.1 * i) + cos(0.3 * j) + 0.01 * i * j; }

int main(int argc, char **argv)
{
    const ptrdiff_t N0 = 64, N1 = 48;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fftw_mpi_init();

    /* The manual's 2-D example: complex in place. */
    ptrdiff_t local_n0, local_0_start;
    ptrdiff_t alloc_local = fftw_mpi_local_size_2d(N0, N1, MPI_COMM_WORLD, &local_n0, &local_0_start);
    fftw_complex *data = fftw_alloc_complex(alloc_local);
    fftw_plan plan = fftw_mpi_plan_dft_2d(N0, N1, data, data, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_MEASURE);
    for (ptrdiff_t i = 0; i < local_n0; ++i)
        for (ptrdiff_t j = 0; j < N1; ++j) {
            data[i * N1 + j][0] = f2(local_0_start + i, j);
            data[i * N1 + j][1] = 0;
        }
    fftw_execute(plan);
    double local[2] = {0, 0}, global[2];
    for (ptrdiff_t i = 0; i < local_n0 * N1; ++i) {
        local[0] += fabs(data[i][0]);
        local[1] += fabs(data[i][1]);
    }
    MPI_Reduce(local, global, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("2-D forward: sum |re| %.6e sum |im| %.6e\n", global[0], global[1]);
    fftw_destroy_plan(plan);
    fftw_free(data);

    /* 3-D real-to-complex with transposed output and its inverse. */
    const ptrdiff_t M0 = 16, M1 = 20, M2 = 24;
    ptrdiff_t ln0, l0s, ln1, l1s;
    ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(M0, M1, M2 / 2 + 1, MPI_COMM_WORLD, &ln0, &l0s, &ln1, &l1s);
    double *rin = fftw_alloc_real(2 * alloc);
    fftw_complex *cout = fftw_alloc_complex(alloc);
    fftw_plan fwd = fftw_mpi_plan_dft_r2c_3d(M0, M1, M2, rin, cout, MPI_COMM_WORLD,
                                             FFTW_MEASURE | FFTW_MPI_TRANSPOSED_OUT);
    fftw_plan bwd = fftw_mpi_plan_dft_c2r_3d(M0, M1, M2, cout, rin, MPI_COMM_WORLD,
                                             FFTW_MEASURE | FFTW_MPI_TRANSPOSED_IN);
    const ptrdiff_t pad = 2 * (M2 / 2 + 1);
    for (ptrdiff_t i = 0; i < ln0; ++i)
        for (ptrdiff_t j = 0; j < M1; ++j)
            for (ptrdiff_t k = 0; k < M2; ++k)
                rin[(i * M1 + j) * pad + k] = f2(l0s + i, j) * cos(0.2 * k);
    fftw_execute(fwd);
    double spec = 0, err = 0, sums[2];
    for (ptrdiff_t i = 0; i < ln1 * M0 * (M2 / 2 + 1); ++i)
        spec += hypot(cout[i][0], cout[i][1]);
    fftw_execute(bwd);
    for (ptrdiff_t i = 0; i < ln0; ++i)
        for (ptrdiff_t j = 0; j < M1; ++j)
            for (ptrdiff_t k = 0; k < M2; ++k) {
                double want = f2(l0s + i, j) * cos(0.2 * k) * (double)(M0 * M1 * M2);
                double d = fabs(rin[(i * M1 + j) * pad + k] - want);
                if (d > err) err = d;
            }
    double mine[2] = {spec, 0}, maxerr;
    MPI_Reduce(mine, sums, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("3-D r2c: sum |X| %.6e, round trip %s\n", sums[0], maxerr < 1e-6 * M0 * M1 * M2 ? "ok" : "WRONG");
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(rin);
    fftw_free(cout);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return 0;
}
