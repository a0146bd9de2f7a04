/*
 * Point-to-point type signature mismatches: four ints received as four floats (same size:
 * no MPI notices), a struct {int, double} received as {double, int}, and an int array
 * received through a vector of MPI_BYTE. Expected verdict: TY002 at each receive (and its
 * send).
 */
/* mpicheck: ranks=2 */
#include <mpi.h>

struct pair { int i; double d; };

int main(int argc, char **argv)
{
    int rank, a[4] = {0};
    float f[4];
    char bytes[16];
    struct pair p = {1, 2.0}, q;
    MPI_Datatype int_double, double_int, byte_vector;
    int bl[2] = {1, 1};
    MPI_Aint d1[2] = {0, 8}, d2[2] = {0, 8};
    MPI_Datatype t1[2] = {MPI_INT, MPI_DOUBLE}, t2[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, bl, d1, t1, &int_double);
    MPI_Type_commit(&int_double);
    MPI_Type_create_struct(2, bl, d2, t2, &double_int);
    MPI_Type_commit(&double_int);
    MPI_Type_vector(4, 4, 4, MPI_BYTE, &byte_vector);
    MPI_Type_commit(&byte_vector);
    if (rank == 0) {
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD); /* expect: TY002 */
        MPI_Send(&p, 1, int_double, 1, 1, MPI_COMM_WORLD); /* expect: TY002 */
        MPI_Send(a, 4, MPI_INT, 1, 2, MPI_COMM_WORLD); /* expect: TY002 */
    } else {
        MPI_Recv(f, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TY002 */
        MPI_Recv(&q, 1, double_int, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TY002 */
        MPI_Recv(bytes, 1, byte_vector, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* expect: TY002 */
    }
    MPI_Type_free(&int_double);
    MPI_Type_free(&double_int);
    MPI_Type_free(&byte_vector);
    MPI_Finalize();
    return 0;
}
