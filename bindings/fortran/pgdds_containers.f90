! The HashMap and DArray routines of module pgdds. They live in a submodule so that programs that
! use only the core need nothing of the container part of the C library at link time.
submodule (pgdds) pgdds_containers
  implicit none

  ! What a view of a rank's empty block points at.
  integer(int32), target :: no_int32(0)
  integer(int64), target :: no_int64(0)
  real(real32), target :: no_real32(0)
  real(real64), target :: no_real64(0)

contains

  ! The size in bytes of an element of a container type, or 0 if it is not one.
  function type_bytes(dtype) result(bytes)
    integer(c_int), intent(in) :: dtype
    integer(c_size_t) :: bytes
    select case (dtype)
    case (PGDDS_INT32, PGDDS_FLOAT)
      bytes = 4
    case (PGDDS_INT64, PGDDS_DOUBLE)
      bytes = 8
    case default
      bytes = 0
    end select
  end function

  ! The address of x if its type is the container's, else a failure naming both.
  function item_address(who, what, x, dtype, addr) result(st)
    character(len=*), intent(in) :: who, what
    class(*), intent(in), target :: x
    integer(c_int), intent(in) :: dtype
    type(c_ptr), intent(out) :: addr
    integer(c_int) :: st, actual
    integer(c_size_t) :: bytes
    character(len=*), parameter :: names(0:5) = [character(len=15) :: 'integer(int32)', 'integer(int64)', &
      'unsigned 32-bit', 'unsigned 64-bit', 'real(real32)', 'real(real64)']
    call describe_scalar(x, addr, bytes, actual)
    if (actual /= dtype) then
      if (actual < 0) then
        st = fail(PGDDS_ERR_INVALID_ARG, who // ': the ' // what // ' is of a type no container holds')
      else
        st = fail(PGDDS_ERR_INVALID_ARG, who // ': the ' // what // ' is ' // trim(names(actual)) // &
                  ' but the container holds ' // trim(names(dtype)))
      end if
      return
    end if
    st = PGDDS_OK
  end function

  integer(c_int) function concurrency(concurrent)
    integer, intent(in), optional :: concurrent
    concurrency = 0
    if (present(concurrent)) concurrency = int(concurrent, c_int)
  end function

  ! --- HashMap --------------------------------------------------------------------------------
  module procedure pgdds_hashmap_create
    type(c_hashmap_params) :: params
    if (type_bytes(key_type) == 0 .or. type_bytes(value_type) == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_hashmap_create: key_type and value_type must be PGDDS_INT32, ' // &
                'PGDDS_INT64, PGDDS_FLOAT or PGDDS_DOUBLE')
      return
    end if
    if (capacity <= 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_hashmap_create: capacity must be positive')
      return
    end if
    params%key_size = type_bytes(key_type)
    params%value_size = type_bytes(value_type)
    params%capacity = capacity
    st = c_hashmap_create(ctx%handle, params, map%handle)
    if (st == PGDDS_OK) then
      map%key_type = key_type
      map%value_type = value_type
    end if
  end procedure

  module procedure pgdds_hashmap_destroy
    st = c_hashmap_destroy(map%handle)
    if (st == PGDDS_OK) map%handle = c_null_ptr
  end procedure

  module procedure pgdds_hashmap_insert
    type(c_ptr) :: k, v
    st = item_address('pgdds_hashmap_insert', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = item_address('pgdds_hashmap_insert', 'value', value, map%value_type, v)
    if (st /= PGDDS_OK) return
    st = c_hashmap_insert(map%handle, k, v, concurrency(concurrent))
  end procedure

  module procedure pgdds_hashmap_find
    type(c_ptr) :: k, v
    st = item_address('pgdds_hashmap_find', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = item_address('pgdds_hashmap_find', 'value', value, map%value_type, v)
    if (st /= PGDDS_OK) return
    st = c_hashmap_find(map%handle, k, v, concurrency(concurrent))
  end procedure

  module procedure pgdds_hashmap_erase
    type(c_ptr) :: k
    st = item_address('pgdds_hashmap_erase', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = c_hashmap_erase(map%handle, k, concurrency(concurrent))
  end procedure

  module procedure pgdds_hashmap_size
    integer(c_int64_t) :: n
    st = c_hashmap_size(map%handle, n)
    if (st == PGDDS_OK) count = n
  end procedure

  module procedure pgdds_hashmap_local_next
    type(c_ptr) :: k, v
    integer(c_int64_t) :: c
    st = item_address('pgdds_hashmap_local_next', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = item_address('pgdds_hashmap_local_next', 'value', value, map%value_type, v)
    if (st /= PGDDS_OK) return
    c = cursor
    st = c_hashmap_local_next(map%handle, c, k, v)
    cursor = c
  end procedure

  module procedure pgdds_hashmap_protocol
    integer(c_int) :: p
    p = -1
    st = c_hashmap_protocol(map%handle, int(rank, c_int), p)
    protocol = int(p)
  end procedure

  module procedure pgdds_hashmap_op_protocol
    integer(c_int) :: p
    p = -1
    st = c_hashmap_op_protocol(map%handle, int(rank, c_int), op, concurrency(concurrent), p)
    protocol = int(p)
  end procedure

  ! --- DArray ---------------------------------------------------------------------------------
  module procedure pgdds_darray_create
    if (type_bytes(elem_type) == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_darray_create: elem_type must be PGDDS_INT32, PGDDS_INT64, ' // &
                'PGDDS_FLOAT or PGDDS_DOUBLE')
      return
    end if
    if (count < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_darray_create: count must not be negative')
      return
    end if
    st = c_darray_create(ctx%handle, type_bytes(elem_type), count, array%handle)
    if (st == PGDDS_OK) then
      array%ctx = ctx%handle
      array%elem_type = elem_type
    end if
  end procedure

  module procedure pgdds_darray_destroy
    st = c_darray_destroy(array%handle)
    if (st == PGDDS_OK) array%handle = c_null_ptr
  end procedure

  module procedure pgdds_darray_gptr
    integer(c_int64_t) :: p
    if (index < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_darray_gptr: index is negative (indexes start at 0)')
      return
    end if
    st = c_darray_gptr(array%handle, index, p)
    if (st == PGDDS_OK) ptr = p
  end procedure

  module procedure pgdds_darray_put
    type(c_ptr) :: addr
    integer(c_int64_t) :: p
    st = item_address('pgdds_darray_put', 'value', value, array%elem_type, addr)
    if (st /= PGDDS_OK) return
    st = pgdds_darray_gptr(array, index, p)
    if (st /= PGDDS_OK) return
    st = c_put(array%ctx, p, addr, type_bytes(array%elem_type))
  end procedure

  module procedure pgdds_darray_get
    type(c_ptr) :: addr
    integer(c_int64_t) :: p
    st = item_address('pgdds_darray_get', 'value', value, array%elem_type, addr)
    if (st /= PGDDS_OK) return
    st = pgdds_darray_gptr(array, index, p)
    if (st /= PGDDS_OK) return
    st = c_get(array%ctx, addr, p, type_bytes(array%elem_type))
  end procedure

  ! This rank's block: its address and element count, checked against the requested type.
  function local_block(array, dtype, base, first_index, count) result(st)
    type(pgdds_darray), intent(in) :: array
    integer(c_int), intent(in) :: dtype
    type(c_ptr), intent(out) :: base
    integer(int64), intent(out) :: first_index, count
    integer(c_int) :: st
    integer(c_int64_t) :: first, n
    if (array%elem_type /= dtype) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_darray_local: the view is not of the array''s element type')
      return
    end if
    st = c_darray_local(array%handle, base, first, n)
    if (st /= PGDDS_OK) return
    first_index = first
    count = n
  end function

  module procedure darray_local_int32
    type(c_ptr) :: base
    integer(int64) :: count
    st = local_block(array, PGDDS_INT32, base, first_index, count)
    if (st /= PGDDS_OK) return
    view => no_int32
    if (count > 0) call c_f_pointer(base, view, [count])
  end procedure

  module procedure darray_local_int64
    type(c_ptr) :: base
    integer(int64) :: count
    st = local_block(array, PGDDS_INT64, base, first_index, count)
    if (st /= PGDDS_OK) return
    view => no_int64
    if (count > 0) call c_f_pointer(base, view, [count])
  end procedure

  module procedure darray_local_real32
    type(c_ptr) :: base
    integer(int64) :: count
    st = local_block(array, PGDDS_FLOAT, base, first_index, count)
    if (st /= PGDDS_OK) return
    view => no_real32
    if (count > 0) call c_f_pointer(base, view, [count])
  end procedure

  module procedure darray_local_real64
    type(c_ptr) :: base
    integer(int64) :: count
    st = local_block(array, PGDDS_DOUBLE, base, first_index, count)
    if (st /= PGDDS_OK) return
    view => no_real64
    if (count > 0) call c_f_pointer(base, view, [count])
  end procedure

end submodule pgdds_containers
