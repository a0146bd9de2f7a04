/*
 * A child program that asks MPI about itself without initializing it (allowed before
 * MPI_Init): under mpicheck its trace claims its parent's rank. See runs_child.c.
 */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    int flag, version, subversion;
    MPI_Initialized(&flag);
    MPI_Get_version(&version, &subversion);
    printf("child: initialized=%d version=%d.%d\n", flag, version, subversion);
    return flag;
}
