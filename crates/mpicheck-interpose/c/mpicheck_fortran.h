/* Helpers of the generated Fortran wrappers (c/generated/fortran.c). */
#ifndef MPICHECK_FORTRAN_H
#define MPICHECK_FORTRAN_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Size of a Fortran status in Fortran integers. Open MPI 4.1 does not define
 * MPI_F_STATUS_SIZE; its mpif.h has MPI_STATUS_SIZE = 6. Both families lay out the Fortran
 * status (mpif.h array and mpi_f08 TYPE(MPI_Status)) like their C MPI_Status, which is what
 * MPI_Status_f2c relies on. */
#ifdef MPI_F_STATUS_SIZE
#define MPICHECK_F_STATUS_WORDS MPI_F_STATUS_SIZE
#else
#define MPICHECK_F_STATUS_WORDS (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

/* A request index returned to Fortran (counted from 1) as C counts it; MPI_UNDEFINED and
 * garbage stay as they are. */
static inline int mpicheck_f_index_to_c(MPI_Fint index)
{
    return index >= 1 ? (int)index - 1 : (int)index;
}

/* The MPI library's own Fortran routine `name`, the one our definition hides. */
static inline void *mpicheck_fortran_next(const char *name)
{
    void *next = dlsym(RTLD_NEXT, name);
    if (!next) {
        fprintf(stderr, "mpicheck: the MPI library has no Fortran routine %s\n", name);
        abort();
    }
    return next;
}

/* The address of a Fortran global of the MPI library (MPI_IN_PLACE, MPI_STATUS_IGNORE...),
 * looked up once; NULL if this MPI has none by that name. */
static inline void *mpicheck_fortran_global(void **cache, int *looked, const char *const *names)
{
    if (!*looked) {
        for (; *names && !*cache; names++) *cache = dlsym(RTLD_DEFAULT, *names);
        *looked = 1;
    }
    return *cache;
}

/* Fortran's MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE: the standard's C-side pointers, plus the
 * Fortran common blocks they stand for. */
static inline int mpicheck_f_status_ignored(const void *status)
{
    static void *ob;
    static int looked;
    static const char *const names[] = {"mpi_fortran_status_ignore_", NULL};
    static void *obs;
    static int lookeds;
    static const char *const snames[] = {"mpi_fortran_statuses_ignore_", NULL};
    if (status == NULL) return 1;
    if (status == (const void *)MPI_F_STATUS_IGNORE || status == (const void *)MPI_F_STATUSES_IGNORE) return 1;
#ifdef MPICHECK_FAMILY_MPICH
    if (status == (const void *)MPI_F08_STATUS_IGNORE || status == (const void *)MPI_F08_STATUSES_IGNORE) return 1;
#endif
    void *a = mpicheck_fortran_global(&ob, &looked, names);
    void *b = mpicheck_fortran_global(&obs, &lookeds, snames);
    return (a && status == a) || (b && status == b);
}

/* Fortran status -> C status, for recording. */
static inline void mpicheck_f_status_to_c(const MPI_Fint *f, MPI_Status *c)
{
    if (PMPI_Status_f2c(f, c) != MPI_SUCCESS) {
        c->MPI_SOURCE = c->MPI_TAG = c->MPI_ERROR = -1;
    }
}

/* MPICH's mpi_f08 TYPE(*), DIMENSION(..) buffers arrive as array descriptors whose first
 * field is the base address (gfortran's and ISO_Fortran_binding's alike). */
static inline const void *mpicheck_desc_base(const void *desc)
{
    return desc ? *(void *const *)desc : NULL;
}

/* A Fortran buffer address as C sees it: Fortran's MPI_IN_PLACE and MPI_BOTTOM are addresses
 * of the library's common blocks, recorded as the C constants so the trace means the same for
 * both languages. */
static inline const void *mpicheck_f_buf(const void *addr)
{
    /* Open MPI: the common blocks themselves. MPICH: mpif.h's are pointer variables set when
     * its Fortran runtime initializes; mpi_f08's are the variables themselves. */
    static void *in_place, *bottom, *in_place08, *bottom08, *mpich_in_place, *mpich_bottom;
    static int l1, l2, l3, l4, l5, l6;
    static const char *const n1[] = {"mpi_fortran_in_place_", NULL};
    static const char *const n2[] = {"mpi_fortran_bottom_", NULL};
    static const char *const n3[] = {"MPIR_F08_MPI_IN_PLACE", NULL};
    static const char *const n4[] = {"MPIR_F08_MPI_BOTTOM", NULL};
    static const char *const n5[] = {"MPIR_F_MPI_IN_PLACE", NULL};
    static const char *const n6[] = {"MPIR_F_MPI_BOTTOM", NULL};
    void *a;
    if (addr == NULL) return addr;
    if ((a = mpicheck_fortran_global(&in_place, &l1, n1)) && addr == a) return MPI_IN_PLACE;
    if ((a = mpicheck_fortran_global(&in_place08, &l3, n3)) && addr == a) return MPI_IN_PLACE;
    if ((a = mpicheck_fortran_global(&mpich_in_place, &l5, n5)) && addr == *(void **)a) return MPI_IN_PLACE;
    if ((a = mpicheck_fortran_global(&bottom, &l2, n2)) && addr == a) return MPI_BOTTOM;
    if ((a = mpicheck_fortran_global(&bottom08, &l4, n4)) && addr == a) return MPI_BOTTOM;
    if ((a = mpicheck_fortran_global(&mpich_bottom, &l6, n6)) && addr == *(void **)a) return MPI_BOTTOM;
    return addr;
}

/* Fortran sentinels of integer array arguments (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY,
 * MPI_ERRCODES_IGNORE) are addresses of library globals too: mapped to the C constants, so the
 * C wrappers' length expressions recognize them and never read through them. */
static inline const void *mpicheck_f_array(const void *addr)
{
    /* Open MPI (mpif.h, `use mpi`, mpi_f08) and MPICH's mpi_f08: the globals themselves.
     * MPICH's mpif.h: pointer variables set when its Fortran runtime initializes. */
    static void *c[9];
    static int l[9];
    static const char *const n0[] = {"mpi_fortran_unweighted_", NULL};
    static const char *const n1[] = {"__mpi_f08_link_constants_MOD_mpi_unweighted", NULL};
    static const char *const n2[] = {"MPIR_C_MPI_UNWEIGHTED", NULL};
    static const char *const n3[] = {"mpi_fortran_weights_empty_", NULL};
    static const char *const n4[] = {"__mpi_f08_link_constants_MOD_mpi_weights_empty", NULL};
    static const char *const n5[] = {"MPIR_C_MPI_WEIGHTS_EMPTY", NULL};
    static const char *const n6[] = {"mpi_fortran_errcodes_ignore_", NULL};
    static const char *const n7[] = {"__mpi_f08_link_constants_MOD_mpi_errcodes_ignore", NULL};
    static void *p[3];
    static int lp[3];
    static const char *const p0[] = {"MPIR_F_MPI_UNWEIGHTED", NULL};
    static const char *const p1[] = {"MPIR_F_MPI_WEIGHTS_EMPTY", NULL};
    static const char *const p2[] = {"MPI_F_ERRCODES_IGNORE", NULL};
    void *a;
    if (addr == NULL) return addr;
    if (((a = mpicheck_fortran_global(&c[0], &l[0], n0)) && addr == a) ||
        ((a = mpicheck_fortran_global(&c[1], &l[1], n1)) && addr == a) ||
        ((a = mpicheck_fortran_global(&c[2], &l[2], n2)) && addr == a) ||
        ((a = mpicheck_fortran_global(&p[0], &lp[0], p0)) && addr == *(void **)a))
        return MPI_UNWEIGHTED;
    if (((a = mpicheck_fortran_global(&c[3], &l[3], n3)) && addr == a) ||
        ((a = mpicheck_fortran_global(&c[4], &l[4], n4)) && addr == a) ||
        ((a = mpicheck_fortran_global(&c[5], &l[5], n5)) && addr == a) ||
        ((a = mpicheck_fortran_global(&p[1], &lp[1], p1)) && addr == *(void **)a))
        return MPI_WEIGHTS_EMPTY;
    if (((a = mpicheck_fortran_global(&c[6], &l[6], n6)) && addr == a) ||
        ((a = mpicheck_fortran_global(&c[7], &l[7], n7)) && addr == a) ||
        ((a = mpicheck_fortran_global(&p[2], &lp[2], p2)) && addr == *(void **)a))
        return MPI_ERRCODES_IGNORE;
    return addr;
}

/* Buffer checking of Fortran completion calls (c/buffers.c): the C handles of the Fortran
 * requests marked before the call (in `small` when n <= 16, else allocated; *reqs NULL when
 * nothing is watched), and after it the watches of those it completed ended: an immediate
 * request's Fortran handle is MPI_REQUEST_NULL's once complete; a persistent one ends when
 * `all` (the call completed every request) or the call failed. */
static inline uint64_t mpicheck_f_buffers_mark(const MPI_Fint *f, int n, MPI_Request *small, MPI_Request **reqs)
{
    *reqs = NULL;
    if (!f || n <= 0) return 0;
    MPI_Request *r = n <= 16 ? small : (MPI_Request *)malloc(sizeof *r * (size_t)n);
    if (!r) return 0;
    for (int i = 0; i < n; i++) r[i] = PMPI_Request_f2c(f[i]);
    uint64_t mark = mpicheck_buffers_mark(r, n);
    if (!mark) {
        if (r != small) free(r);
        return 0;
    }
    *reqs = r;
    return mark;
}

static inline void mpicheck_f_buffers_settle(const MPI_Fint *f, int n, MPI_Request *reqs, const MPI_Request *small,
                                             uint64_t mark, int ok, int all)
{
    if (!reqs) return;
    for (int i = 0; i < n; i++) reqs[i] = PMPI_Request_f2c(f[i]);
    mpicheck_buffers_settle(reqs, n, mark, ok, ok && all, 0, NULL);
    if (reqs != small) free(reqs);
}

#endif
