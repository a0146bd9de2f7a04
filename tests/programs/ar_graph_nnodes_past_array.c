/*
 * MPI_Graph_create with nnodes larger than the communicator, and an index array of only
 * the communicator's size that ends at an inaccessible page: MPI rejects nnodes before it
 * reads the array, and so must the recorder (it reads index[nnodes - 1] to size edges).
 * mpicheck reports the argument; the program gets MPI's error back and goes on.
 */
/* mpicheck: ranks=2 */
#include <mpi.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int size;
    MPI_Comm graph;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long page = sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(pages + page, page, PROT_NONE);
    int *index = (int *)(pages + page) - size; /* the last `size` ints before the guard page */
    int edges[4] = {1, 0, 0, 0};
    for (int i = 0; i < size; i++) index[i] = i + 1;
    int err = MPI_Graph_create(MPI_COMM_WORLD, 1000, index, edges, 0, &graph); /* expect: AR012 */
    printf("graph_create returned %s\n", err == MPI_SUCCESS ? "success" : "an error");
    MPI_Finalize();
    return 0;
}
