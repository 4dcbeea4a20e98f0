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

end submodule pgdds_helpers
