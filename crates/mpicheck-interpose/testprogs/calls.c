/* Run on 2 ranks under the interposition library; tests/c_program.rs checks its trace. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, v, buf[4] = {0, 0, 0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 1);

    /* A wildcard receive whose status the user ignores: the trace still has the match. */
    v = 100 + rank;
    if (rank == 0)
        MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&v, 1, MPI_INT, 0, 42, MPI_COMM_WORLD);
    if (rank == 0 && buf[0] != 101) MPI_Abort(MPI_COMM_WORLD, 2);

    /* Nonblocking exchange completed by MPI_Waitall with MPI_STATUSES_IGNORE. */
    MPI_Request reqs[2];
    int peer = 1 - rank;
    MPI_Irecv(buf, 2, MPI_INT, MPI_ANY_SOURCE, 7 + peer, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&v, 1, MPI_INT, peer, 7 + rank, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    if (reqs[0] != MPI_REQUEST_NULL || buf[0] != 100 + peer) MPI_Abort(MPI_COMM_WORLD, 3);

    /* A user status must still be filled for the user. */
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT, peer, 9, buf, 4, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
    if (st.MPI_SOURCE != peer || st.MPI_TAG != 9) MPI_Abort(MPI_COMM_WORLD, 4);

    /* Count arrays of length "group size". */
    int sendcounts[2] = {1, 2}, sdispls[2] = {0, 1}, recvcounts[2], rdispls[2] = {0, 2};
    recvcounts[0] = rank == 0 ? 1 : 2;
    recvcounts[1] = rank == 0 ? 1 : 2;
    int sendbuf[3] = {1, 2, 3}, recvbuf[4];
    MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_INT, recvbuf, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD);

    /* A communicator whose rank order reverses the world's. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    MPI_Bcast(&v, 1, MPI_INT, 0, rev);
    MPI_Comm_free(&rev);

    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    MPI_Type_free(&three);

    /* Gatherv: the counts only matter at the root; the other rank passes NULL. */
    int gcounts[2] = {1, 1}, gdispls[2] = {0, 1}, gathered[2];
    MPI_Gatherv(&v, 1, MPI_INT, gathered, rank == 0 ? gcounts : NULL, rank == 0 ? gdispls : NULL, MPI_INT, 0,
                MPI_COMM_WORLD);

    /* An intercommunicator between the two ranks: its remote group is recorded too. */
    MPI_Comm alone, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
    MPI_Intercomm_create(alone, 0, MPI_COMM_WORLD, peer, 5, &inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&alone);

    /* A test that cannot have completed (the message is sent after the barrier): its status
     * is recorded as not filled. */
    MPI_Request late;
    int flag = 1;
    if (rank == 0) {
        MPI_Irecv(buf, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &late);
        MPI_Test(&late, &flag, &st);
        if (flag) MPI_Abort(MPI_COMM_WORLD, 5);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&late, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Ssend(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    }

    /* Waitsome: indices and statuses beyond outcount are recorded as -1. */
    MPI_Request two[2];
    int idx[2], outcount, done = 0;
    MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 88, MPI_COMM_WORLD, &two[0]);
    MPI_Isend(&v, 1, MPI_INT, peer, 88, MPI_COMM_WORLD, &two[1]);
    while (done < 2) {
        MPI_Waitsome(2, two, &outcount, idx, MPI_STATUSES_IGNORE);
        done += outcount;
    }

    MPI_Finalize();
    return 0;
}
