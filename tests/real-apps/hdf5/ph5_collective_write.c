/*
 * The standard parallel HDF5 pattern (HDF Group tutorial "writing by row"): every rank
 * writes its block of rows of one dataset with collective MPI-IO, then the file is
 * reopened and every rank reads the whole dataset back and checks it. Rank 0 prints a
 * checksum, so the output is the same at every rank count.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 24
#define NY 12
#define FILE_NAME "ph5_collective_write.h5"

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (NX % size != 0) {
        if (rank == 0)
            fprintf(stderr, "ph5_collective_write: %d ranks do not divide %d rows\n", size, NX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* Write: each rank its NX/size rows, collectively. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(FILE_NAME, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hsize_t dims[2] = {NX, NY};
    hid_t filespace = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "IntArray", H5T_NATIVE_INT, filespace, H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT);
    hsize_t count[2] = {NX / size, NY};
    hsize_t offset[2] = {(hsize_t)rank * count[0], 0};
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, offset, NULL, count, NULL);
    hid_t memspace = H5Screate_simple(2, count, NULL);
    int *rows = malloc(sizeof(int) * count[0] * NY);
    for (hsize_t i = 0; i < count[0] * NY; i++)
        rows[i] = (int)(offset[0] * NY + i);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(dset, H5T_NATIVE_INT, memspace, filespace, xfer, rows) < 0)
        errors++;
    H5Pclose(xfer);
    H5Sclose(memspace);
    H5Sclose(filespace);
    H5Dclose(dset);
    H5Fclose(file);
    free(rows);

    /* Read back: every rank the whole dataset, collectively. */
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    file = H5Fopen(FILE_NAME, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    dset = H5Dopen2(file, "IntArray", H5P_DEFAULT);
    int *all = malloc(sizeof(int) * NX * NY);
    xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    if (H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, xfer, all) < 0)
        errors++;
    long sum = 0;
    for (int i = 0; i < NX * NY; i++) {
        if (all[i] != i)
            errors++;
        sum += all[i];
    }
    H5Pclose(xfer);
    H5Dclose(dset);
    H5Fclose(file);
    free(all);

    int total_errors = 0;
    MPI_Allreduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%dx%d dataset written and read back collectively: checksum %ld, %d errors\n",
               NX, NY, sum, total_errors);
    MPI_Finalize();
    return total_errors != 0;
}
