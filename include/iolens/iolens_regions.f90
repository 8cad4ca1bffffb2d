! Regions from Fortran (docs/regions.md): compile this module with the program.
!
!     use iolens_regions
!     call iolens_region_begin("checkpoint")
!     ...
!     call iolens_region_end("checkpoint")
!
! The runtime's C functions are looked up in the process with dlsym (the
! preloaded or linked runtime); without a runtime the calls do nothing, so the
! program links and runs with or without iolens.  Trailing blanks of a name are
! dropped (Fortran strings are blank-padded).
module iolens_regions
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: iolens_region_begin, iolens_region_end

  abstract interface
    subroutine region_fn(name) bind(c)
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine region_fn
  end interface

  interface
    ! glibc's dlsym; RTLD_DEFAULT is the null handle.
    function c_dlsym(handle, symbol) bind(c, name="dlsym") result(addr)
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(in) :: symbol
      type(c_funptr) :: addr
    end function c_dlsym
  end interface

  logical, save :: looked_up = .false.
  type(c_funptr), save :: begin_addr = c_null_funptr, end_addr = c_null_funptr

contains

  subroutine look_up()
    if (looked_up) return
    begin_addr = c_dlsym(c_null_ptr, "iolens_region_begin" // c_null_char)
    end_addr = c_dlsym(c_null_ptr, "iolens_region_end" // c_null_char)
    looked_up = .true.
  end subroutine look_up

  subroutine call_with(addr, name)
    type(c_funptr), intent(in) :: addr
    character(len=*), intent(in) :: name
    procedure(region_fn), pointer :: fn
    if (.not. c_associated(addr)) return
    call c_f_procpointer(addr, fn)
    call fn(trim(name) // c_null_char)
  end subroutine call_with

  subroutine iolens_region_begin(name)
    character(len=*), intent(in) :: name
    call look_up()
    call call_with(begin_addr, name)
  end subroutine iolens_region_begin

  subroutine iolens_region_end(name)
    character(len=*), intent(in) :: name
    call look_up()
    call call_with(end_addr, name)
  end subroutine iolens_region_end

end module iolens_regions
