/*
 * Correct twin of ty_p2p_mismatch.c: four ints received as a contiguous type of four ints,
 * as a vector of 2 x 2 ints, into a larger receive (a prefix is fine), a struct received
 * with a struct of the same signature, MPI_BYTE on both sides, and a nonblocking receive
 * from any source. Expected verdict: no finding.
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

struct pair { int i; double d; };

int main(int argc, char **argv)
{
    int rank, a[8] = {0}, b[8];
    char bytes[16];
    struct pair p = {1, 2.0}, q;
    MPI_Datatype contig4, vec22, int_double, int_double2;
    int bl[2] = {1, 1};
    MPI_Aint d1[2] = {0, 8};
    MPI_Datatype t1[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(4, MPI_INT, &contig4);
    MPI_Type_commit(&contig4);
    MPI_Type_vector(2, 2, 4, MPI_INT, &vec22);
    MPI_Type_commit(&vec22);
    MPI_Type_create_struct(2, bl, d1, t1, &int_double);
    MPI_Type_commit(&int_double);
    MPI_Type_dup(int_double, &int_double2);
    MPI_Type_commit(&int_double2);
    if (rank == 0) {
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(a, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Send(&p, 1, int_double, 1, 3, MPI_COMM_WORLD);
        MPI_Send(bytes, 16, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
        MPI_Send(a, 1, contig4, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Recv(b, 1, contig4, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 1, vec22, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 8, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&q, 1, int_double2, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(bytes, 16, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(b, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&contig4);
    MPI_Type_free(&vec22);
    MPI_Type_free(&int_double);
    MPI_Type_free(&int_double2);
    MPI_Finalize();
    return 0;
}
