/*
 * LAMMPS (Irregular) frees the requests of its nonblocking sends and reuses their
 * buffers once a barrier after the receives shows every message was received: a freed
 * send completes in the background, and its matching receive completing before a
 * barrier both ranks pass shows it has (MPI 4.1 §3.7.3).
 */
/* mpicheck: ranks=2 */
/* expect: none */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, peer, buf[4] = {0}, in[4];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(buf, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    MPI_Recv(in, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* both receives are done, so are both sends */
    MPI_Sendrecv(in, 4, MPI_INT, peer, 1, buf, 4, MPI_INT, peer, 1, /* into buf again */
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
