! MPI-CHECK 2.0 (Luecke et al., "Deadlock detection in MPI programs"),
! Figure 15: no actual or potential deadlock situation; fixed-form
! Fortran with include 'mpif.h'. Mirrors fig15_isend_irecv_waits.c.
!
! Both ranks start mpi_isend and mpi_irecv and only then wait for both:
! every send finds its receive posted, no buffering is needed.
! Expected verdict: none.
!
! mpicheck: ranks=2
! expect: none
      program fig15
      implicit none
      include 'mpif.h'
      integer rank, nprocs, peer, ierror
      integer r1, r2
      integer status(MPI_STATUS_SIZE)
      double precision sendbuf(4), recvbuf(4)

      sendbuf = 1.0d0
      recvbuf = 0.0d0
      call mpi_init(ierror)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierror)
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierror)
      if (nprocs .ne. 2) then
        if (rank .eq. 0) print *, 'this program needs exactly 2 ranks'
        call mpi_abort(MPI_COMM_WORLD, 2, ierror)
      end if
      peer = 1 - rank

      call mpi_isend(sendbuf, 4, MPI_DOUBLE_PRECISION, peer, 1,
     &               MPI_COMM_WORLD, r1, ierror)
      call mpi_irecv(recvbuf, 4, MPI_DOUBLE_PRECISION, peer, 1,
     &               MPI_COMM_WORLD, r2, ierror)
      call mpi_wait(r1, status, ierror)
      call mpi_wait(r2, status, ierror)

      call mpi_finalize(ierror)
      end program fig15
