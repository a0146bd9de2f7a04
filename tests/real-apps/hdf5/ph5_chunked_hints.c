/*
 * Parallel HDF5 with MPI-IO hints and chunked storage: the file is opened with ROMIO's
 * collective-buffering hints (romio_cb_write/read enable, cb_nodes 1, a small
 * cb_buffer_size), each rank writes every size-th column of a chunked dataset (a strided
 * hyperslab: MPI derived datatypes in the collective write), once with HDF5's one
 * linked-chunk collective I/O and once with multi-chunk I/O, then every rank reads the
 * whole dataset back independently and rank 0 prints a checksum.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#define NX 16
#define NY 24

static int write_strided(hid_t file, const char *name, H5FD_mpio_chunk_opt_t opt, int rank, int size)
{
    hsize_t dims[2] = {NX, NY}, chunk[2] = {4, 6};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    /* Columns rank, rank + size, ...: a strided selection. */
    hsize_t start[2] = {0, (hsize_t)rank}, stride[2] = {1, (hsize_t)size};
    hsize_t count[2] = {NX, (hsize_t)(NY / size)}, block[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, block);
    hsize_t mdims[1] = {NX * (NY / size)};
    hid_t mem = H5Screate_simple(1, mdims, NULL);
    int buf[NX * NY], k = 0;
    for (hsize_t i = 0; i < NX; i++)
        for (hsize_t j = (hsize_t)rank; j < NY; j += (hsize_t)size)
            buf[k++] = (int)(i * NY + j);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    H5Pset_dxpl_mpio_chunk_opt(xfer, opt);
    herr_t status = H5Dwrite(dset, H5T_NATIVE_INT, mem, space, xfer, buf);
    H5Pclose(xfer);
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Dclose(dset);
    return status < 0;
}

static long read_sum(hid_t file, const char *name)
{
    int buf[NX * NY];
    long sum = 0;
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    for (int i = 0; i < NX * NY; i++)
        sum += (long)buf[i] * (i % 7 + 1) * (buf[i] == i ? 1 : -1000);
    H5Dclose(dset);
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (NY % size != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
    hid_t file = H5Fcreate("ph5_chunked_hints.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    errors += write_strided(file, "linked", H5FD_MPIO_CHUNK_ONE_IO, rank, size);
    errors += write_strided(file, "multi", H5FD_MPIO_CHUNK_MULTI_IO, rank, size);
    H5Fflush(file, H5F_SCOPE_GLOBAL);
    H5Fclose(file);
    H5Pclose(fapl);

    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
    file = H5Fopen("ph5_chunked_hints.h5", H5F_ACC_RDONLY, fapl);
    long linked = read_sum(file, "linked"), multi = read_sum(file, "multi");
    H5Fclose(file);
    H5Pclose(fapl);
    MPI_Info_free(&info);
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("linked %ld multi %ld errors %d\n", linked, multi, errors);
    MPI_Finalize();
    return errors != 0;
}
