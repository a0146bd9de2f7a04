/* Statuses of every kind the recorder reads (receives of several sizes up to 1 MiB, a probe,
 * a wait on a send, a waitall, a test that found nothing, a derived datatype) with the byte
 * count MPI_Get_count gives for each, printed as "rank R bytes N" in call order: the test
 * compares them with the bytes the trace recorded. */
#include <mpi.h>
#include <stdio.h>

static char buf[1 << 20];

static void said(int rank, const MPI_Status *st)
{
    int bytes;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    printf("rank %d bytes %d\n", rank, bytes);
}

/* A status MPI leaves undefined (a send's count, a test that found nothing). */
static void undefined(int rank)
{
    printf("rank %d bytes -1\n", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {0, 1, 7, 4096, 1 << 20};
    MPI_Status st, sts[2];
    MPI_Request req[2];
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    if (rank == 0) {
        for (int i = 0; i < 5; i++)
            MPI_Send(buf, sizes[i], MPI_BYTE, 1, i, MPI_COMM_WORLD);
        MPI_Isend(buf, 2, triple, 1, 9, MPI_COMM_WORLD, &req[0]);
        MPI_Wait(&req[0], &st);
        undefined(rank);
        MPI_Send(buf, 5, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD);
        MPI_Send(buf, 33, MPI_CHAR, 1, 11, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 5; i++) {
            MPI_Recv(buf, 1 << 20, MPI_BYTE, 0, i, MPI_COMM_WORLD, &st);
            said(rank, &st);
        }
        MPI_Probe(0, 9, MPI_COMM_WORLD, &st);
        said(rank, &st);
        MPI_Recv(buf, 4, triple, 0, 9, MPI_COMM_WORLD, &st);
        said(rank, &st);
        int flag = 0;
        MPI_Irecv(buf, 1 << 20, MPI_BYTE, 0, 12, MPI_COMM_WORLD, &req[0]);
        MPI_Test(&req[0], &flag, &st);
        if (flag)
            said(rank, &st);
        else
            undefined(rank);
        MPI_Cancel(&req[0]);
        MPI_Wait(&req[0], &st);
        said(rank, &st);
        MPI_Irecv(buf, 5, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(buf + 4096, 64, MPI_CHAR, 0, 11, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, sts);
        said(rank, &sts[0]);
        said(rank, &sts[1]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&triple);
    MPI_Finalize();
    return 0;
}
