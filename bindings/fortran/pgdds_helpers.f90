! Helpers of module pgdds that its submodules share (see the interfaces in pgdds.f90).
submodule (pgdds) pgdds_helpers
  implicit none

contains

  module procedure fail
    r = c_set_last_error(st, message // c_null_char)
  end procedure

  module procedure describe_scalar
    addr = c_null_ptr
    bytes = int(storage_size(x) / 8, c_size_t)
    select type (x)
    type is (integer(int32))
      addr = c_loc(x)
      dtype = PGDDS_INT32
    type is (integer(int64))
      addr = c_loc(x)
      dtype = PGDDS_INT64
    type is (real(real32))
      addr = c_loc(x)
      dtype = PGDDS_FLOAT
    type is (real(real64))
      addr = c_loc(x)
      dtype = PGDDS_DOUBLE
    class default
      dtype = -1
    end select
  end procedure

  module procedure describe_array
    addr = c_null_ptr
    bytes = int(storage_size(x) / 8, c_size_t) * int(size(x), c_size_t)
    select type (x)
    type is (integer(int32))
      dtype = PGDDS_INT32
      if (size(x) > 0) addr = c_loc(x(1))
    type is (integer(int64))
      dtype = PGDDS_INT64
      if (size(x) > 0) addr = c_loc(x(1))
    type is (real(real32))
      dtype = PGDDS_FLOAT
      if (size(x) > 0) addr = c_loc(x(1))
    type is (real(real64))
      dtype = PGDDS_DOUBLE
      if (size(x) > 0) addr = c_loc(x(1))
    class default
      dtype = -1
    end select
  end procedure

  module procedure type_status
    st = PGDDS_OK
    if (dtype < 0) st = fail(PGDDS_ERR_INVALID_ARG, who // ': ' // what // ' is not integer(int32), ' // &
                             'integer(int64), real(real32) or real(real64)')
  end procedure

  module procedure async_array
    type(c_ptr) :: second
    addr = c_null_ptr
    second = c_null_ptr
    bytes = int(storage_size(x) / 8, c_size_t) * int(size(x), c_size_t)
    select type (x)
    type is (integer(int32))
      if (size(x) > 0) addr = c_loc(x(1))
      if (size(x) > 1) second = c_loc(x(2))
    type is (integer(int64))
      if (size(x) > 0) addr = c_loc(x(1))
      if (size(x) > 1) second = c_loc(x(2))
    type is (real(real32))
      if (size(x) > 0) addr = c_loc(x(1))
      if (size(x) > 1) second = c_loc(x(2))
    type is (real(real64))
      if (size(x) > 0) addr = c_loc(x(1))
      if (size(x) > 1) second = c_loc(x(2))
    class default
      st = type_status(-1_c_int, who, what)
      return
    end select
    st = contiguity(who, what, addr, second, int(storage_size(x) / 8, c_intptr_t))
  end procedure

  module procedure async_flags
    type(c_ptr) :: second
    addr = c_null_ptr
    second = c_null_ptr
    if (size(flags) > 0) addr = c_loc(flags(1))
    if (size(flags) > 1) second = c_loc(flags(2))
    st = contiguity(who, what, addr, second, int(storage_size(flags) / 8, c_intptr_t))
  end procedure

  ! PGDDS_OK when second, the address of an array's second element (null: it has fewer than two),
  ! lies elem bytes after first, the address of its first; else the failure (first is then
  ! nulled), recorded with who and what.
  function contiguity(who, what, first, second, elem) result(st)
    character(len=*), intent(in) :: who, what
    type(c_ptr), intent(inout) :: first
    type(c_ptr), intent(in) :: second
    integer(c_intptr_t), intent(in) :: elem
    integer(c_int) :: st
    st = PGDDS_OK
    if (.not. c_associated(second)) return
    if (transfer(second, 0_c_intptr_t) - transfer(first, 0_c_intptr_t) == elem) return
    first = c_null_ptr
    st = fail(PGDDS_ERR_INVALID_ARG, who // ': ' // what // ' is not contiguous (a section with a stride); ' // &
              'a non-blocking call needs the array itself')
  end function

end submodule pgdds_helpers
