program w
  use hdf5
  implicit none
  integer(hid_t) :: file, space, dset
  integer :: err
  integer(hsize_t) :: dims(2) = (/ 8, 4 /)
  real(8) :: buf(8, 4)
  character(len=4096) :: dir
  call get_command_argument(1, dir)
  buf = 1.0d0
  call h5open_f(err)
  call h5fcreate_f(trim(dir)//"/f.h5", H5F_ACC_TRUNC_F, file, err)
  call h5screate_simple_f(2, dims, space, err)
  call h5dcreate_f(file, "temp", H5T_NATIVE_DOUBLE, space, dset, err)
  call h5dwrite_f(dset, H5T_NATIVE_DOUBLE, buf, dims, err)
  call h5dclose_f(dset, err)
  call h5sclose_f(space, err)
  call h5fclose_f(file, err)
  call h5close_f(err)
end program w
