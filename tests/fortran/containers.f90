! The container part of the Fortran module: a HashMap with integer keys and real values (and
! one with integer values), filled by every rank and read back from every rank, and a DArray
! written through local views and read element by element from everywhere. Built once the
! containers are.
program fortran_containers
  use pgdds
  use harness
  implicit none

  type(pgdds_context) :: ctx
  integer :: me, n

  call start(ctx, 64_int64 * 1024 * 1024)
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)

  call test_hashmap()
  call test_hashmap_int32()
  call test_darray()
  call finish(ctx, 'fortran/containers')

contains

  subroutine test_hashmap()
    integer, parameter :: per_rank = 100
    type(pgdds_hashmap) :: map
    integer(int64) :: key, count, cursor, walked, walked_all
    real(real64) :: value
    integer(int32) :: wrong_key
    integer :: r, k
    integer(c_int) :: st

    call check_ok(pgdds_hashmap_create(ctx, map, int(4 * per_rank * n, int64), PGDDS_INT64, PGDDS_DOUBLE), &
                  'create an int64 -> real64 map')
    do k = 1, per_rank
      key = int(me, int64) * 100000 + k
      call check_ok(pgdds_hashmap_insert(map, key, 0.5_real64 * key), 'insert')
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier after inserts')
    do r = 0, n - 1
      do k = 1, per_rank, 7
        key = int(r, int64) * 100000 + k
        value = -1
        call check_ok(pgdds_hashmap_find(map, key, value, PGDDS_CP_FIND), 'find another rank''s key')
        call check(value == 0.5_real64 * key, 'the value found is the one inserted')
      end do
    end do
    value = -1
    call check_status(pgdds_hashmap_find(map, -5_int64, value), PGDDS_ERR_NOT_FOUND, 'find an absent key')
    call check(value == -1, 'an absent key leaves the value alone')
    call check_ok(pgdds_barrier(ctx), 'barrier before erase')
    call check_ok(pgdds_hashmap_erase(map, int(me, int64) * 100000 + 1), 'erase')
    call check_ok(pgdds_barrier(ctx), 'barrier after erase')
    call check_status(pgdds_hashmap_find(map, int(mod(me + 1, n), int64) * 100000 + 1, value), PGDDS_ERR_NOT_FOUND, &
                      'an erased key is gone everywhere')
    call check_ok(pgdds_hashmap_size(map, count), 'size')
    call check(count == int(n, int64) * (per_rank - 1), 'the size counts every rank''s keys')

    ! Walking this rank's part: every entry whole; over all ranks, every entry once.
    cursor = 0
    walked = 0
    do
      st = pgdds_hashmap_local_next(map, cursor, key, value)
      if (st /= PGDDS_OK) exit
      walked = walked + 1
      call check(value == 0.5_real64 * key, 'a walked entry holds its value')
      call check(mod(key, 100000_int64) >= 2 .and. mod(key, 100000_int64) <= per_rank, 'a walked key was inserted')
    end do
    call check_status(st, PGDDS_ERR_NOT_FOUND, 'the walk ends with PGDDS_ERR_NOT_FOUND')
    call check_ok(pgdds_allreduce(ctx, walked, walked_all, PGDDS_OP_SUM), 'sum of walked entries')
    call check(walked_all == int(n, int64) * (per_rank - 1), 'the walks see every key once')
    cursor = -1
    call check_status(pgdds_hashmap_local_next(map, cursor, key, value), PGDDS_ERR_INVALID_ARG, 'a cursor past the end')
    cursor = 0
    call check_status(pgdds_hashmap_local_next(map, cursor, wrong_key, value), PGDDS_ERR_INVALID_ARG, &
                      'an int32 key to walk an int64 map')

    ! Keys and values of a type the map does not hold are refused with a message.
    wrong_key = 1
    call check_status(pgdds_hashmap_insert(map, wrong_key, 1.0_real64), PGDDS_ERR_INVALID_ARG, 'an int32 key')
    call check_status(pgdds_hashmap_insert(map, 1_int64, 1.0_real32), PGDDS_ERR_INVALID_ARG, 'a real32 value')
    call check_ok(pgdds_hashmap_destroy(map), 'destroy')
  end subroutine

  subroutine test_hashmap_int32()
    type(pgdds_hashmap) :: map
    integer(int32) :: value
    type(pgdds_hashmap) :: bad
    call check_ok(pgdds_hashmap_create(ctx, map, 64_int64, PGDDS_INT32, PGDDS_INT32), 'create an int32 map')
    call check_ok(pgdds_hashmap_insert(map, int(me, int32), int(me * me, int32), PGDDS_CP_INSERT), 'insert int32')
    call check_ok(pgdds_barrier(ctx), 'barrier')
    call check_ok(pgdds_hashmap_find(map, int(n - 1, int32), value), 'find int32')
    call check(value == (n - 1) * (n - 1), 'int32 value')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroy')
    call check_ok(pgdds_hashmap_destroy(map), 'destroy int32 map')
    call check_status(pgdds_hashmap_create(ctx, bad, 64_int64, PGDDS_UINT64, PGDDS_INT32), PGDDS_ERR_INVALID_ARG, &
                      'a key type Fortran has no variable of')
  end subroutine

  subroutine test_darray()
    integer(int64), parameter :: per_rank = 37
    type(pgdds_darray) :: arr
    integer(int64), pointer :: view(:)
    integer(int64) :: first, i, count, value
    real(real64), pointer :: wrong_view(:)

    count = per_rank * n
    call check_ok(pgdds_darray_create(ctx, arr, count, PGDDS_INT64), 'create a darray')
    call check_ok(pgdds_darray_local(arr, view, first), 'the local block')
    do i = 1, size(view, kind=int64)
      view(i) = (first + i - 1) * 3
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier after local writes')
    do i = 0, count - 1, 5
      value = -1
      call check_ok(pgdds_darray_get(arr, i, value), 'get an element')
      call check(value == i * 3, 'the element is what its owner wrote')
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier before puts')
    if (me == 0) then
      do i = 0, count - 1
        call check_ok(pgdds_darray_put(arr, i, -i), 'put an element')
      end do
    end if
    call check_ok(pgdds_barrier(ctx), 'barrier after puts')
    call check(all(view == [(-(first + i - 1), i = 1, size(view, kind=int64))]), 'rank 0''s puts arrived')
    call check_status(pgdds_darray_get(arr, count, value), PGDDS_ERR_OUT_OF_BOUNDS, 'an element past the end')
    call check_status(pgdds_darray_get(arr, -1_int64, value), PGDDS_ERR_OUT_OF_BOUNDS, 'a negative index')
    call check_status(pgdds_darray_put(arr, 0_int64, 1.0_real64), PGDDS_ERR_INVALID_ARG, 'a value of another type')
    call check_status(pgdds_darray_local(arr, wrong_view, first), PGDDS_ERR_INVALID_ARG, 'a view of another type')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroy')
    call check_ok(pgdds_darray_destroy(arr), 'destroy the darray')
  end subroutine

end program fortran_containers
