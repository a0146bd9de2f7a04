// Every MPI call that mpicheck records sits on a line marked "site" (see sites.c).
#include <mpi.h>
#include <cstdio>
#include <vector>

namespace {
struct Exchange {
    int rank;
    void run(std::vector<int> &in) const
    {
        std::vector<int> out(4, rank);
        MPI_Sendrecv(out.data(), 4, MPI_INT, rank ^ 1, 3, in.data(), 4, MPI_INT, rank ^ 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // site
    }
};
} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); // site
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); // site
    std::vector<int> in(4);
    Exchange{rank}.run(in);
    MPI_Bcast(in.data(), 4, MPI_INT, 0, MPI_COMM_WORLD); // site
    std::printf("rank %d got %d\n", rank, in[0]); // one write: ranks print concurrently
    MPI_Finalize(); // site
    return 0;
}
