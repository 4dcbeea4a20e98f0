! The container part of the Fortran module: a HashMap with integer keys and real values (and
! one with integer values), filled by every rank and read back from every rank, and a DArray
! written through local views and read element by element from everywhere, and the protocols by
! which the map's operations reach each rank's part. Built once the containers are.
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
  call test_hashmap_protocols()
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

  ! The protocol of every rank's part, per operation: insert, erase, insert_many and a fully atomic
  ! find take the map's; a CP_FIND find may read one-sidedly only where the map calls the owner;
  ! this rank's own part, promised CP_LOCAL, is load/store. Then bad ranks, operations and promises.
  subroutine test_hashmap_protocols()
    type(pgdds_hashmap) :: map, never_created
    integer(c_int), parameter :: ops(5) = [PGDDS_CONTAINER_OP_INSERT, PGDDS_CONTAINER_OP_FIND, &
      PGDDS_CONTAINER_OP_ERASE, PGDDS_CONTAINER_OP_INSERT_MANY, PGDDS_CONTAINER_OP_FIND_MANY]
    integer :: r, k, base, p
    character(len=64) :: transport

    call get_environment_variable('PGDDS_TRANSPORT', transport)
    call check_ok(pgdds_hashmap_create(ctx, map, 64_int64, PGDDS_INT64, PGDDS_INT64), 'create a map for protocols')
    do r = 0, n - 1
      base = -1
      call check_ok(pgdds_hashmap_protocol(map, r, base), 'pgdds_hashmap_protocol')
      call check(base == PGDDS_PROTOCOL_DIRECT .or. base == PGDDS_PROTOCOL_RDMA .or. base == PGDDS_PROTOCOL_RPC, &
                 'a part is reached by DIRECT, RDMA or RPC')
      if (transport == 'shm') call check(base == PGDDS_PROTOCOL_DIRECT, 'over shm every part is load/store')
      do k = 1, size(ops)
        p = -1
        call check_ok(pgdds_hashmap_op_protocol(map, r, ops(k), p), 'pgdds_hashmap_op_protocol')
        call check(p == base, 'an operation under no promise takes the map''s protocol')
      end do
      p = -1
      call check_ok(pgdds_hashmap_op_protocol(map, r, PGDDS_CONTAINER_OP_FIND, p, concurrent=PGDDS_CP_FIND), &
                    'the protocol of a CP_FIND find')
      call check(p == base .or. (base == PGDDS_PROTOCOL_RPC .and. p == PGDDS_PROTOCOL_RDMA), &
                 'a CP_FIND find reads one-sidedly or as the map does')
    end do
    call check_ok(pgdds_hashmap_protocol(map, me, p), 'the protocol of this rank''s part')
    call check(p == PGDDS_PROTOCOL_DIRECT .or. p == PGDDS_PROTOCOL_RDMA, 'this rank''s part is not reached by RPC')
    call check_ok(pgdds_hashmap_op_protocol(map, me, PGDDS_CONTAINER_OP_INSERT, p, PGDDS_CP_LOCAL), &
                  'the protocol of a CP_LOCAL insert')
    call check(p == PGDDS_PROTOCOL_DIRECT, 'a CP_LOCAL insert into this rank''s part is load/store')

    call check_status(pgdds_hashmap_protocol(map, n, p), PGDDS_ERR_OUT_OF_BOUNDS, 'the protocol of a rank past the job')
    call check_status(pgdds_hashmap_protocol(map, -1, p), PGDDS_ERR_OUT_OF_BOUNDS, 'the protocol of rank -1')
    call check_status(pgdds_hashmap_op_protocol(map, n, PGDDS_CONTAINER_OP_FIND, p), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'the operation protocol of a rank past the job')
    call check_status(pgdds_hashmap_op_protocol(map, -1, PGDDS_CONTAINER_OP_FIND, p), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'the operation protocol of rank -1')
    call check_status(pgdds_hashmap_op_protocol(map, 0, PGDDS_CONTAINER_OP_PUSH, p), PGDDS_ERR_INVALID_ARG, &
                      'a queue operation on a hash map')
    call check_status(pgdds_hashmap_op_protocol(map, 0, 0_c_int, p), PGDDS_ERR_INVALID_ARG, 'operation 0')
    call check_status(pgdds_hashmap_op_protocol(map, 0, PGDDS_CONTAINER_OP_FIND, p, concurrent=PGDDS_CP_PUSH), &
                      PGDDS_ERR_INVALID_ARG, 'a promise of queue operations')
    call check_status(pgdds_hashmap_protocol(never_created, 0, p), PGDDS_ERR_INVALID_ARG, &
                      'the protocol of a map never created')
    call check_status(pgdds_hashmap_op_protocol(never_created, 0, PGDDS_CONTAINER_OP_FIND, p), PGDDS_ERR_INVALID_ARG, &
                      'the operation protocol of a map never created')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroying the protocol map')
    call check_ok(pgdds_hashmap_destroy(map), 'destroy the protocol map')
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
