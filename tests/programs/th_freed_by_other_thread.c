/*
 * CorrBench's comm_free, derived_datatype and info_free (MPI + OpenMP ordering cases): one
 * thread uses a communicator, a datatype, an info object and a persistent request, and the
 * other thread frees them. Only a sleep keeps the uses first in this run; nothing orders them
 * before the frees, so in another run an object is used after it was freed. Expected
 * verdict: TH007 at each use and each free.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, rank, out[4] = {1, 2, 3, 4}, in[4], in2[1];
    MPI_Comm comm;
    MPI_Datatype four;
    MPI_Info info;
    MPI_Request req, rreq;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Status st;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    MPI_Info_create(&info);
    MPI_Send_init(out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
    MPI_Recv_init(in2, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rreq);
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            MPI_Sendrecv(out, 1, MPI_INT, peer, 0, in, 1, MPI_INT, peer, 0, comm, &st); /* expect: TH007 */
            MPI_Sendrecv(out, 1, four, peer, 0, in, 1, four, peer, 0, MPI_COMM_WORLD, &st); /* expect: TH007 */
            MPI_Info_set(info, "key", "value"); /* expect: TH007 */
            MPI_Start(&rreq);
            MPI_Start(&req);
            MPI_Wait(&rreq, &st);
            MPI_Wait(&req, &st); /* expect: TH007 */
        } else {
            usleep(300000);
            MPI_Comm_free(&comm); /* expect: TH007 */
            MPI_Type_free(&four); /* expect: TH007 */
            MPI_Info_free(&info); /* expect: TH007 */
            MPI_Request_free(&req); /* expect: TH007 */
        }
    }
    MPI_Request_free(&rreq);
    MPI_Finalize();
    return 0;
}
