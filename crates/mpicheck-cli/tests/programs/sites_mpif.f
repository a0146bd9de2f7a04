! Every MPI call that mpicheck records sits on a line marked "site" (see sites.c).
      program sites_mpif
      implicit none
      include 'mpif.h'
      integer ierr, rank, peer, v, got
      call MPI_Init(ierr) ! site
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr) ! site
      peer = 1 - rank
      v = 30 + rank
! gfortran attributes a continued statement to its last line.
      call MPI_Sendrecv(v, 1, MPI_INTEGER, peer, 1, got, 1,
     &     MPI_INTEGER, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr) ! site
      call MPI_Bcast(got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr) ! site
      print '(a,i0,a,i0)', 'rank ', rank, ' got ', got
      call MPI_Finalize(ierr) ! site
      end program sites_mpif
