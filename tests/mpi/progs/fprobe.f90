! Fortran MPI test program for tests/mpi: every process writes its block of
! fshared.dat with a collective MPI-IO call.  usage: fprobe DIR
program fprobe
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, fh
  integer(kind=MPI_OFFSET_KIND) :: off
  integer :: buf(1024)
  character(len=4096) :: dir
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  buf = rank
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/fshared.dat', &
                     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  off = rank * 4096
  call MPI_File_write_at_all(fh, off, buf, 1024, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program fprobe
