! Regions from Fortran (tests/runtime/test_regions.py): "fortran step" { write 100
! bytes to DIR/fortran.dat through C's write(2) path of the Fortran runtime }.
program region_probe_f
  use iolens_regions
  implicit none
  character(len=4096) :: dir
  integer :: u
  character(len=100) :: line
  call get_command_argument(1, dir)
  line = repeat("x", 100)
  call iolens_region_begin("fortran step   ")
  open(newunit=u, file=trim(dir)//"/fortran.dat", access="stream", status="replace")
  write(u) line
  close(u)
  call iolens_region_end("fortran step")
end program region_probe_f
