/*
 * Twin of th_freed_by_other_thread.c: a barrier orders every use before the frees (what
 * CorrBench's comm_free gets by dropping the `nowait`). Correct. Expected verdict: none.
 */
/* mpicheck: ranks=2 cflags=-fopenmp */
/* expect: none */
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
            MPI_Sendrecv(out, 1, MPI_INT, peer, 0, in, 1, MPI_INT, peer, 0, comm, &st);
            MPI_Sendrecv(out, 1, four, peer, 0, in, 1, four, peer, 0, MPI_COMM_WORLD, &st);
            MPI_Info_set(info, "key", "value");
            MPI_Start(&rreq);
            MPI_Start(&req);
            MPI_Wait(&rreq, &st);
            MPI_Wait(&req, &st);
        }
        #pragma omp barrier
        if (omp_get_thread_num() == 0) {
            MPI_Comm_free(&comm);
            MPI_Type_free(&four);
            MPI_Info_free(&info);
            MPI_Request_free(&req);
        }
    }
    MPI_Request_free(&rreq);
    MPI_Finalize();
    return 0;
}
