/*
 * Twin of bf_two_pending_receives.c: outstanding receives into adjacent, disjoint
 * halves of one array, two pending sends reading the same buffer (allowed since MPI
 * 3.0), and two pending receives of matrix columns through a vector datatype whose
 * byte ranges interleave but whose elements do not overlap.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[16] = {0}, out[8] = {0}, matrix[4][4] = {{0}};
    MPI_Request r[4];
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(4, 1, 4, MPI_INT, &column);
    MPI_Type_commit(&column);
    if (rank == 1) {
        MPI_Irecv(buf, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(buf + 8, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(&matrix[0][0], 1, column, 0, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Irecv(&matrix[0][1], 1, column, 0, 3, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Isend(out, 8, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 8, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(out, 4, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(out + 4, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
