! The HashMap, queue, Bloom filter and DArray routines of module pgdds. They live in a submodule so that programs that
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
    call describe_scalar(x, addr, bytes, actual)
    st = same_type(who, what, actual, dtype)
  end function

  ! The address and element count of x, a contiguous rank-1 array, if its type is the
  ! container's, else a failure naming both (item_address for arrays).
  function items_address(who, what, x, dtype, addr, count) result(st)
    character(len=*), intent(in) :: who, what
    class(*), intent(in), target, contiguous :: x(:)
    integer(c_int), intent(in) :: dtype
    type(c_ptr), intent(out) :: addr
    integer(c_size_t), intent(out) :: count
    integer(c_int) :: st, actual
    integer(c_size_t) :: bytes
    call describe_array(x, addr, bytes, actual)
    count = int(size(x), c_size_t)
    st = same_type(who, what, actual, dtype)
  end function

  ! The address of x, a rank-1 array the library writes when a request completes: its own
  ! storage, checked contiguous (a copy would be gone by then), and of the container's type.
  function async_items(who, what, x, dtype, addr) result(st)
    character(len=*), intent(in) :: who, what
    class(*), intent(inout), target, asynchronous :: x(:)
    integer(c_int), intent(in) :: dtype
    type(c_ptr), intent(out) :: addr
    integer(c_int) :: st, actual
    type(c_ptr) :: first
    integer(c_size_t) :: bytes
    st = async_array(who, what, x, addr, bytes)
    if (st /= PGDDS_OK .or. size(x) == 0) return
    call describe_scalar(x(1), first, bytes, actual)
    st = same_type(who, what, actual, dtype)
  end function

  ! PGDDS_OK when actual (the pgdds_dtype_t describe_scalar or describe_array found, -1 for none)
  ! is dtype, the container's; else the failure naming both. A container never created has no
  ! type (dtype -1): the failure says so.
  function same_type(who, what, actual, dtype) result(st)
    character(len=*), intent(in) :: who, what
    integer(c_int), intent(in) :: actual, dtype
    integer(c_int) :: st
    character(len=*), parameter :: names(0:5) = [character(len=15) :: 'integer(int32)', 'integer(int64)', &
      'unsigned 32-bit', 'unsigned 64-bit', 'real(real32)', 'real(real64)']
    st = PGDDS_OK
    if (actual == dtype .and. dtype >= 0) return
    if (dtype < 0 .or. dtype > 5) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': the container was never created')
    else if (actual < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': the ' // what // ' is of a type no container holds')
    else
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': the ' // what // ' is ' // trim(names(actual)) // &
                ' but the container holds ' // trim(names(dtype)))
    end if
  end function

  ! The failure for a flags array with room for fewer than count flags, else PGDDS_OK.
  function room_for(who, what, have, count) result(st)
    character(len=*), intent(in) :: who, what
    integer, intent(in) :: have
    integer(c_size_t), intent(in) :: count
    integer(c_int) :: st
    character(len=24) :: have_text, need_text
    st = PGDDS_OK
    if (int(have, c_size_t) >= count) return
    write (have_text, '(i0)') have
    write (need_text, '(i0)') count
    st = fail(PGDDS_ERR_INVALID_ARG, who // ': ' // what // ' has room for ' // trim(have_text) // &
              ', but there are ' // trim(need_text) // ' keys')
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

  module procedure pgdds_hashmap_insert_nb
    type(c_ptr) :: k, v
    req%handle = c_null_ptr
    st = item_address('pgdds_hashmap_insert_nb', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = item_address('pgdds_hashmap_insert_nb', 'value', value, map%value_type, v)
    if (st /= PGDDS_OK) return
    st = c_hashmap_insert_nb(map%handle, k, v, concurrency(concurrent), req%handle)
  end procedure

  module procedure pgdds_hashmap_find_nb
    type(c_ptr) :: k, v
    req%handle = c_null_ptr
    st = item_address('pgdds_hashmap_find_nb', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = item_address('pgdds_hashmap_find_nb', 'value', value, map%value_type, v)
    if (st /= PGDDS_OK) return
    st = c_hashmap_find_nb(map%handle, k, v, concurrency(concurrent), req%handle)
  end procedure

  module procedure pgdds_hashmap_erase_nb
    type(c_ptr) :: k
    req%handle = c_null_ptr
    st = item_address('pgdds_hashmap_erase_nb', 'key', key, map%key_type, k)
    if (st /= PGDDS_OK) return
    st = c_hashmap_erase_nb(map%handle, k, concurrency(concurrent), req%handle)
  end procedure

  ! The keys and values of a batch to insert: their addresses, the key count, and room checked.
  function batch_inputs(who, map, keys, values, k, v, count) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_hashmap), intent(in) :: map
    class(*), intent(in), target, contiguous :: keys(:), values(:)
    type(c_ptr), intent(out) :: k, v
    integer(c_size_t), intent(out) :: count
    integer(c_int) :: st
    integer(c_size_t) :: nv
    st = items_address(who, 'keys', keys, map%key_type, k, count)
    if (st /= PGDDS_OK) return
    st = items_address(who, 'values', values, map%value_type, v, nv)
    if (st /= PGDDS_OK) return
    st = room_for(who, 'values', size(values), count)
  end function

  module procedure pgdds_hashmap_insert_many
    type(c_ptr) :: k, v
    integer(c_size_t) :: count
    st = batch_inputs('pgdds_hashmap_insert_many', map, keys, values, k, v, count)
    if (st /= PGDDS_OK) return
    st = c_hashmap_insert_many(map%handle, count, k, v, concurrency(concurrent))
  end procedure

  module procedure pgdds_hashmap_insert_many_nb
    type(c_ptr) :: k, v
    integer(c_size_t) :: count
    req%handle = c_null_ptr
    st = batch_inputs('pgdds_hashmap_insert_many_nb', map, keys, values, k, v, count)
    if (st /= PGDDS_OK) return
    st = c_hashmap_insert_many_nb(map%handle, count, k, v, concurrency(concurrent), req%handle)
  end procedure

  module procedure pgdds_hashmap_find_many
    type(c_ptr) :: k, v
    integer(c_size_t) :: count
    integer(c_signed_char), allocatable, target :: flags(:)
    st = batch_inputs('pgdds_hashmap_find_many', map, keys, values, k, v, count)
    if (st /= PGDDS_OK) return
    st = room_for('pgdds_hashmap_find_many', 'found', size(found), count)
    if (st /= PGDDS_OK) return
    allocate(flags(max(count, 1_c_size_t)))
    flags = 0
    st = c_hashmap_find_many(map%handle, count, k, v, c_loc(flags), concurrency(concurrent))
    if (st == PGDDS_OK) found(1:count) = flags(1:count) /= 0
  end procedure

  module procedure pgdds_hashmap_find_many_nb
    character(len=*), parameter :: who = 'pgdds_hashmap_find_many_nb'
    type(c_ptr) :: k, v, f
    integer(c_size_t) :: count
    req%handle = c_null_ptr
    st = items_address(who, 'keys', keys, map%key_type, k, count)
    if (st /= PGDDS_OK) return
    st = room_for(who, 'values', size(values), count)
    if (st /= PGDDS_OK) return
    st = room_for(who, 'found', size(found), count)
    if (st /= PGDDS_OK) return
    st = async_items(who, 'values', values, map%value_type, v)
    if (st /= PGDDS_OK) return
    st = async_flags(who, 'found', found, f)
    if (st /= PGDDS_OK) return
    st = c_hashmap_find_many_nb(map%handle, count, k, v, f, concurrency(concurrent), req%handle)
  end procedure

  ! --- Queues ---------------------------------------------------------------------------------
  module procedure pgdds_queue_create
    type(c_queue_params) :: params
    if (type_bytes(elem_type) == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_queue_create: elem_type must be PGDDS_INT32, PGDDS_INT64, ' // &
                'PGDDS_FLOAT or PGDDS_DOUBLE')
      return
    end if
    if (capacity <= 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_queue_create: capacity must be positive')
      return
    end if
    params%kind = kind
    params%elem_size = type_bytes(elem_type)
    params%capacity = capacity
    params%host_rank = int(host_rank, c_int)
    st = c_queue_create(ctx%handle, params, queue%handle)
    if (st == PGDDS_OK) queue%elem_type = elem_type
  end procedure

  module procedure pgdds_queue_destroy
    st = c_queue_destroy(queue%handle)
    if (st == PGDDS_OK) queue%handle = c_null_ptr
  end procedure

  module procedure queue_push_scalar
    type(c_ptr) :: addr
    st = item_address('pgdds_queue_push', 'element', elems, queue%elem_type, addr)
    if (st /= PGDDS_OK) return
    st = c_queue_push(queue%handle, addr, 1_c_size_t, concurrency(concurrent))
  end procedure

  module procedure queue_push_array
    type(c_ptr) :: addr
    integer(c_size_t) :: count
    st = items_address('pgdds_queue_push', 'elements', elems, queue%elem_type, addr, count)
    if (st /= PGDDS_OK) return
    st = c_queue_push(queue%handle, addr, count, concurrency(concurrent))
  end procedure

  module procedure pgdds_queue_pop
    type(c_ptr) :: addr
    integer(c_size_t) :: room, n
    popped = 0
    st = items_address('pgdds_queue_pop', 'elements', elems, queue%elem_type, addr, room)
    if (st /= PGDDS_OK) return
    if (room == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_queue_pop: elems has room for no element (size 0)')
      return
    end if
    n = 0
    st = c_queue_pop(queue%handle, addr, room, n, concurrency(concurrent))
    if (st == PGDDS_OK) popped = int(n, int64)
  end procedure

  module procedure pgdds_queue_size
    integer(c_int64_t) :: n
    st = c_queue_size(queue%handle, n)
    if (st == PGDDS_OK) count = n
  end procedure

  module procedure pgdds_queue_capacity
    integer(c_int64_t) :: n
    st = c_queue_capacity(queue%handle, n)
    if (st == PGDDS_OK) capacity = n
  end procedure

  module procedure pgdds_queue_host
    integer(c_int) :: h
    st = c_queue_host(queue%handle, h)
    if (st == PGDDS_OK) host_rank = int(h)
  end procedure

  module procedure queue_push_nb_scalar
    type(c_ptr) :: addr
    req%handle = c_null_ptr
    st = item_address('pgdds_queue_push_nb', 'element', elems, queue%elem_type, addr)
    if (st /= PGDDS_OK) return
    st = c_queue_push_nb(queue%handle, addr, 1_c_size_t, concurrency(concurrent), req%handle)
  end procedure

  module procedure queue_push_nb_array
    type(c_ptr) :: addr
    integer(c_size_t) :: count
    req%handle = c_null_ptr
    st = items_address('pgdds_queue_push_nb', 'elements', elems, queue%elem_type, addr, count)
    if (st /= PGDDS_OK) return
    st = c_queue_push_nb(queue%handle, addr, count, concurrency(concurrent), req%handle)
  end procedure

  module procedure pgdds_queue_pop_nb
    type(c_ptr) :: addr
    req%handle = c_null_ptr
    if (size(elems) == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_queue_pop_nb: elems has room for no element (size 0)')
      return
    end if
    st = async_items('pgdds_queue_pop_nb', 'elements', elems, queue%elem_type, addr)
    if (st /= PGDDS_OK) return
    popped = 0
    st = c_queue_pop_nb(queue%handle, addr, int(size(elems), c_size_t), c_loc(popped), concurrency(concurrent), &
                        req%handle)
  end procedure

  ! --- Bloom filter ---------------------------------------------------------------------------
  module procedure pgdds_bloom_create
    if (type_bytes(key_type) == 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_bloom_create: key_type must be PGDDS_INT32, PGDDS_INT64, ' // &
                'PGDDS_FLOAT or PGDDS_DOUBLE')
      return
    end if
    if (expected_items < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_bloom_create: expected_items must not be negative')
      return
    end if
    st = c_bloom_create(ctx%handle, expected_items, false_positive_rate, bloom%handle)
    if (st == PGDDS_OK) bloom%key_type = key_type
  end procedure

  module procedure pgdds_bloom_destroy
    st = c_bloom_destroy(bloom%handle)
    if (st == PGDDS_OK) bloom%handle = c_null_ptr
  end procedure

  module procedure pgdds_bloom_insert
    type(c_ptr) :: k
    integer(c_int), target :: present_flag
    st = item_address('pgdds_bloom_insert', 'key', key, bloom%key_type, k)
    if (st /= PGDDS_OK) return
    present_flag = 0
    st = c_bloom_insert(bloom%handle, k, type_bytes(bloom%key_type), c_loc(present_flag))
    if (present(was_present) .and. st == PGDDS_OK) was_present = present_flag /= 0
  end procedure

  module procedure pgdds_bloom_contains
    type(c_ptr) :: k
    integer(c_int) :: flag
    st = item_address('pgdds_bloom_contains', 'key', key, bloom%key_type, k)
    if (st /= PGDDS_OK) return
    flag = 0
    st = c_bloom_contains(bloom%handle, k, type_bytes(bloom%key_type), flag)
    if (st == PGDDS_OK) maybe_present = flag /= 0
  end procedure

  module procedure pgdds_bloom_insert_many
    type(c_ptr) :: k
    integer(c_size_t) :: count
    integer(c_signed_char), allocatable, target :: flags(:)
    st = items_address('pgdds_bloom_insert_many', 'keys', keys, bloom%key_type, k, count)
    if (st /= PGDDS_OK) return
    if (.not. present(was_present)) then
      st = c_bloom_insert_many(bloom%handle, count, k, type_bytes(bloom%key_type), c_null_ptr)
      return
    end if
    st = room_for('pgdds_bloom_insert_many', 'was_present', size(was_present), count)
    if (st /= PGDDS_OK) return
    allocate(flags(max(count, 1_c_size_t)))
    flags = 0
    st = c_bloom_insert_many(bloom%handle, count, k, type_bytes(bloom%key_type), c_loc(flags))
    if (st == PGDDS_OK) was_present(1:count) = flags(1:count) /= 0
  end procedure

  module procedure pgdds_bloom_contains_many
    type(c_ptr) :: k
    integer(c_size_t) :: count
    integer(c_signed_char), allocatable, target :: flags(:)
    st = items_address('pgdds_bloom_contains_many', 'keys', keys, bloom%key_type, k, count)
    if (st /= PGDDS_OK) return
    st = room_for('pgdds_bloom_contains_many', 'maybe_present', size(maybe_present), count)
    if (st /= PGDDS_OK) return
    allocate(flags(max(count, 1_c_size_t)))
    flags = 0
    st = c_bloom_contains_many(bloom%handle, count, k, type_bytes(bloom%key_type), c_loc(flags))
    if (st == PGDDS_OK) maybe_present(1:count) = flags(1:count) /= 0
  end procedure

  module procedure pgdds_bloom_insert_many_nb
    type(c_ptr) :: k, f
    integer(c_size_t) :: count
    req%handle = c_null_ptr
    st = items_address('pgdds_bloom_insert_many_nb', 'keys', keys, bloom%key_type, k, count)
    if (st /= PGDDS_OK) return
    f = c_null_ptr
    if (present(was_present)) then
      st = room_for('pgdds_bloom_insert_many_nb', 'was_present', size(was_present), count)
      if (st /= PGDDS_OK) return
      st = async_flags('pgdds_bloom_insert_many_nb', 'was_present', was_present, f)
      if (st /= PGDDS_OK) return
    end if
    st = c_bloom_insert_many_nb(bloom%handle, count, k, type_bytes(bloom%key_type), f, req%handle)
  end procedure

  module procedure pgdds_bloom_contains_many_nb
    type(c_ptr) :: k, f
    integer(c_size_t) :: count
    req%handle = c_null_ptr
    st = items_address('pgdds_bloom_contains_many_nb', 'keys', keys, bloom%key_type, k, count)
    if (st /= PGDDS_OK) return
    st = room_for('pgdds_bloom_contains_many_nb', 'maybe_present', size(maybe_present), count)
    if (st /= PGDDS_OK) return
    st = async_flags('pgdds_bloom_contains_many_nb', 'maybe_present', maybe_present, f)
    if (st /= PGDDS_OK) return
    st = c_bloom_contains_many_nb(bloom%handle, count, k, type_bytes(bloom%key_type), f, req%handle)
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
