! The container part of the Fortran module: a HashMap with integer keys and real values (and
! one with integer values), filled by every rank and read back from every rank, and a DArray
! written through local views and read element by element from everywhere, and the protocols by
! which the map's operations reach each rank's part; the map's non-blocking operations with many
! requests in flight and its batches (blocking and with requests), a circular queue on rank 0 that every rank pushes to and pops from, and a
! Bloom filter every rank fills and queries, one key and batches, with requests and without; bad
! input to each. Built once the containers are.
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
  call test_hashmap_nb()
  call test_hashmap_batches()
  call test_queue()
  call test_bloom()
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

  ! Every rank inserts its keys with many requests in flight, finds every rank's keys the same
  ! way, erases half of its own; absent keys complete their requests with PGDDS_ERR_NOT_FOUND.
  subroutine test_hashmap_nb()
    integer, parameter :: per_rank = 24  ! even: half the keys are odd
    type(pgdds_hashmap) :: map, never_created
    type(pgdds_request), allocatable :: reqs(:)
    type(pgdds_request) :: req
    integer(int64), allocatable, target, asynchronous :: found(:)
    integer(int64), target, asynchronous :: one
    integer(int64) :: count
    real(real32), target, asynchronous :: wrong_value
    integer :: r, k, i, nb
    logical :: done
    integer(c_int) :: st

    call check_ok(pgdds_hashmap_create(ctx, map, int(4 * per_rank * n, int64), PGDDS_INT64, PGDDS_INT64), &
                  'create a map for non-blocking operations')
    allocate(reqs(per_rank * n), found(per_rank * n))
    do k = 1, per_rank
      call check_ok(pgdds_hashmap_insert_nb(map, key_of(me, k), 3 * key_of(me, k), reqs(k)), 'insert_nb')
    end do
    do k = 1, per_rank
      call check_ok(pgdds_wait(ctx, reqs(k)), 'wait for insert_nb')
      call check(.not. c_associated(reqs(k)%handle), 'a completed request is freed')
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier after insert_nb')

    ! Every rank's keys, every find in flight at once.
    found = -1
    nb = 0
    do r = 0, n - 1
      do k = 1, per_rank
        nb = nb + 1
        call check_ok(pgdds_hashmap_find_nb(map, key_of(r, k), found(nb), reqs(nb), PGDDS_CP_FIND), 'find_nb')
      end do
    end do
    ! Completed by pgdds_test for the first half, pgdds_wait for the rest.
    do i = 1, nb / 2
      done = .false.
      do while (.not. done)
        call check_ok(pgdds_test(ctx, reqs(i), done), 'test find_nb')
      end do
    end do
    do i = nb / 2 + 1, nb
      call check_ok(pgdds_wait(ctx, reqs(i)), 'wait for find_nb')
    end do
    nb = 0
    do r = 0, n - 1
      do k = 1, per_rank
        nb = nb + 1
        call check(found(nb) == 3 * key_of(r, k), 'find_nb gives the value inserted')
      end do
    end do

    ! An absent key: the call succeeds, its request completes with PGDDS_ERR_NOT_FOUND.
    one = -7
    call check_ok(pgdds_hashmap_find_nb(map, -5_int64, one, req), 'find_nb of an absent key')
    call check_status(pgdds_wait(ctx, req), PGDDS_ERR_NOT_FOUND, 'the request of an absent key''s find_nb')
    call check(one == -7, 'an absent key leaves the value alone')
    call check(.not. c_associated(req%handle), 'a request that completes with a failure is spent')
    call check_ok(pgdds_hashmap_erase_nb(map, -5_int64, req), 'erase_nb of an absent key')
    done = .false.
    st = PGDDS_OK
    do while (.not. done)
      st = pgdds_test(ctx, req, done)
    end do
    call check_status(st, PGDDS_ERR_NOT_FOUND, 'pgdds_test of an absent key''s erase_nb')

    ! Erase this rank's odd keys, all in flight; then they are gone everywhere, the even ones stay.
    call check_ok(pgdds_barrier(ctx), 'barrier before erase_nb')
    nb = 0
    do k = 1, per_rank, 2
      nb = nb + 1
      call check_ok(pgdds_hashmap_erase_nb(map, key_of(me, k), reqs(nb)), 'erase_nb')
    end do
    do i = 1, nb
      call check_ok(pgdds_wait(ctx, reqs(i)), 'wait for erase_nb')
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier after erase_nb')
    r = mod(me + 1, n)
    found(1:2) = -1
    call check_ok(pgdds_hashmap_find_nb(map, key_of(r, 1), found(1), reqs(1)), 'find_nb of an erased key')
    call check_ok(pgdds_hashmap_find_nb(map, key_of(r, 2), found(2), reqs(2)), 'find_nb of a kept key')
    call check_status(pgdds_wait(ctx, reqs(1)), PGDDS_ERR_NOT_FOUND, 'an erased key is gone everywhere')
    call check_ok(pgdds_wait(ctx, reqs(2)), 'a kept key is still there')
    call check(found(1) == -1 .and. found(2) == 3 * key_of(r, 2), 'the values after erase_nb')
    call check_ok(pgdds_hashmap_size(map, count), 'size after erase_nb')
    call check(count == int(n, int64) * (per_rank / 2), 'the size after erase_nb: the even keys')

    ! Bad input: refused by the call itself, with a message and no request.
    call check_status(pgdds_hashmap_insert_nb(map, 1_int32, 1_int64, req), PGDDS_ERR_INVALID_ARG, &
                      'insert_nb of an int32 key into an int64 map')
    call check(.not. c_associated(req%handle), 'a refused call gives no request')
    call check_status(pgdds_hashmap_insert_nb(map, 1_int64, 1.0_real64, req), PGDDS_ERR_INVALID_ARG, &
                      'insert_nb of a real64 value into an int64 map')
    call check_status(pgdds_hashmap_find_nb(map, 1_int64, wrong_value, req), PGDDS_ERR_INVALID_ARG, &
                      'find_nb into a real32 value')
    call check_status(pgdds_hashmap_erase_nb(map, 1.0_real64, req), PGDDS_ERR_INVALID_ARG, 'erase_nb of a real64 key')
    call check_status(pgdds_hashmap_insert_nb(never_created, 1_int64, 1_int64, req), PGDDS_ERR_INVALID_ARG, &
                      'insert_nb into a map never created')
    call check_status(pgdds_hashmap_find_nb(never_created, 1_int64, one, req), PGDDS_ERR_INVALID_ARG, &
                      'find_nb in a map never created')
    call check_status(pgdds_hashmap_erase_nb(never_created, 1_int64, req), PGDDS_ERR_INVALID_ARG, &
                      'erase_nb in a map never created')
    call check_status(pgdds_hashmap_insert_nb(map, 1_int64, 1_int64, req, concurrent=PGDDS_CP_PUSH), &
                      PGDDS_ERR_INVALID_ARG, 'insert_nb under a queue''s promise')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroying the non-blocking map')
    call check_ok(pgdds_hashmap_destroy(map), 'destroy the non-blocking map')
  end subroutine

  ! The map's batches: every rank inserts its keys in one call, then finds every rank's keys and
  ! some absent ones in one call, blocking and with a request (both kept in flight together);
  ! the values and flags exact, the size exact; bad input refused by the call itself.
  subroutine test_hashmap_batches()
    integer, parameter :: per_rank = 40
    type(pgdds_hashmap) :: map, never_created
    type(pgdds_request) :: req, req2
    integer(int64), allocatable :: keys(:), values(:), all_keys(:), got(:)
    integer(int64), allocatable, target, asynchronous :: got_nb(:)
    integer(c_signed_char), allocatable, target, asynchronous :: flags_nb(:)
    logical, allocatable :: found(:)
    real(real64), allocatable, target, asynchronous :: wrong(:)
    integer(int64) :: count
    integer :: r, k, total, bad
    logical :: want

    call check_ok(pgdds_hashmap_create(ctx, map, int(4 * per_rank * n, int64), PGDDS_INT64, PGDDS_INT64), &
                  'create a map for batches')
    allocate(keys(per_rank), values(per_rank))
    do k = 1, per_rank
      keys(k) = key_of(me, k)
      values(k) = 5 * keys(k)
    end do
    ! The first half in one blocking call, the second with a request.
    call check_ok(pgdds_hashmap_insert_many(map, keys(1:per_rank / 2), values(1:per_rank / 2)), 'insert_many')
    call check_ok(pgdds_hashmap_insert_many_nb(map, keys(per_rank / 2 + 1:), values(per_rank / 2 + 1:), req), &
                  'insert_many_nb')
    keys = -1  ! copied at the call
    call check_ok(pgdds_wait(ctx, req), 'wait for insert_many_nb')
    call check_ok(pgdds_barrier(ctx), 'barrier after the inserts')
    call check_ok(pgdds_hashmap_size(map, count), 'size after the batches')
    call check(count == int(per_rank * n, int64), 'every batched key inserted once')

    ! Every rank's keys, then as many absent ones.
    total = 2 * per_rank * n
    allocate(all_keys(total), got(total), found(total), got_nb(total), flags_nb(total))
    do r = 0, n - 1
      do k = 1, per_rank
        all_keys(r * per_rank + k) = key_of(r, k)
        all_keys(per_rank * n + r * per_rank + k) = -key_of(r, k)
      end do
    end do
    got = -1
    got_nb = -1
    flags_nb = 7
    call check_ok(pgdds_hashmap_find_many_nb(map, all_keys, got_nb, flags_nb, req, PGDDS_CP_FIND), 'find_many_nb')
    call check_ok(pgdds_hashmap_find_many(map, all_keys, got, found, PGDDS_CP_FIND), 'find_many')
    call check_ok(pgdds_wait(ctx, req), 'wait for find_many_nb')
    bad = 0
    do k = 1, total
      want = k <= per_rank * n
      if (found(k) .neqv. want) bad = bad + 1
      if ((flags_nb(k) == 1) .neqv. want) bad = bad + 1
      if (want .and. (got(k) /= 5 * all_keys(k) .or. got_nb(k) /= 5 * all_keys(k))) bad = bad + 1
    end do
    call check(bad == 0, 'find_many and find_many_nb give every value and flag')

    ! Bad input, refused by the call itself.
    allocate(wrong(total))
    call check_status(pgdds_hashmap_insert_many(map, all_keys(1:4), values(1:3)), PGDDS_ERR_INVALID_ARG, &
                      'insert_many with fewer values than keys')
    call check_status(pgdds_hashmap_find_many(map, all_keys(1:4), got(1:4), found(1:3)), PGDDS_ERR_INVALID_ARG, &
                      'find_many with fewer flags than keys')
    call check_status(pgdds_hashmap_find_many(map, all_keys(1:4), wrong(1:4), found(1:4)), PGDDS_ERR_INVALID_ARG, &
                      'find_many into real64 values')
    call check_status(pgdds_hashmap_find_many_nb(map, all_keys(1:4), got_nb(1:8:2), flags_nb(1:4), req2), &
                      PGDDS_ERR_INVALID_ARG, 'find_many_nb into a strided section')
    call check(.not. c_associated(req2%handle), 'a refused batch gives no request')
    call check_status(pgdds_hashmap_find_many_nb(map, all_keys(1:4), wrong(1:4), flags_nb(1:4), req2), &
                      PGDDS_ERR_INVALID_ARG, 'find_many_nb into real64 values')
    call check_status(pgdds_hashmap_find_many_nb(map, all_keys(1:4), got_nb(1:4), flags_nb(1:2), req2), &
                      PGDDS_ERR_INVALID_ARG, 'find_many_nb with fewer flags than keys')
    call check_status(pgdds_hashmap_insert_many_nb(never_created, all_keys(1:4), got(1:4), req2), &
                      PGDDS_ERR_INVALID_ARG, 'insert_many_nb into a map never created')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroying the batch map')
    call check_ok(pgdds_hashmap_destroy(map), 'destroy the batch map')
  end subroutine

  integer(int64) function key_of(r, k)
    integer, intent(in) :: r, k
    key_of = int(r, int64) * 100000 + k
  end function

  ! A circular queue on rank 0: every rank pushes its numbers, blocking (one and several at a
  ! time) and with requests, then every rank pops until PGDDS_ERR_EMPTY; over all ranks the count
  ! and the sum popped are those pushed.
  subroutine test_queue()
    integer, parameter :: per_rank = 40
    type(pgdds_queue) :: q, never_created, bad
    type(pgdds_request) :: reqs(per_rank), req
    integer(int64), target, asynchronous :: got(7), strided(8)
    integer(c_size_t), target, asynchronous :: got_count
    integer(int64) :: batch(4), popped, mine_count, mine_sum, count, total_count, total_sum, capacity, size_now
    integer(int64) :: expected_sum, x, none(0)
    integer(int32) :: wrong(2)
    integer :: k, host, nreq
    integer(c_int) :: st

    call check_ok(pgdds_queue_create(ctx, q, PGDDS_QUEUE_CIRCULAR, PGDDS_INT64, int(per_rank * n, int64), 0), &
                  'create a circular queue on rank 0')
    call check_ok(pgdds_queue_capacity(q, capacity), 'queue capacity')
    call check(capacity == per_rank * n, 'the capacity asked for')
    call check_ok(pgdds_queue_host(q, host), 'queue host')
    call check(host == 0, 'the queue is on rank 0')

    ! Pushes: numbers 1 .. per_rank of this rank, me * 1000 + k; blocking ones, then with requests.
    do k = 1, 8
      call check_ok(pgdds_queue_push(q, qval(k)), 'push one element')
    end do
    batch = [(qval(k), k = 9, 12)]
    call check_ok(pgdds_queue_push(q, batch), 'push four elements')
    call check_ok(pgdds_queue_push(q, none), 'push no element')
    nreq = 0
    do k = 13, per_rank - 4
      nreq = nreq + 1
      call check_ok(pgdds_queue_push_nb(q, qval(k), reqs(nreq)), 'push_nb one element')
    end do
    batch = [(qval(k), k = per_rank - 3, per_rank)]
    nreq = nreq + 1
    call check_ok(pgdds_queue_push_nb(q, batch, reqs(nreq)), 'push_nb four elements')
    do k = 1, nreq
      call check_ok(pgdds_wait(ctx, reqs(k)), 'wait for push_nb')
    end do
    call check_ok(pgdds_barrier(ctx), 'barrier after the pushes')
    call check_ok(pgdds_queue_size(q, size_now), 'queue size')
    call check(size_now == per_rank * n, 'every element pushed is queued')
    call check_status(pgdds_queue_push(q, qval(1)), PGDDS_ERR_FULL, 'a push into a full queue')
    call check_ok(pgdds_barrier(ctx), 'barrier before the pops')

    ! Pops, alternately blocking and with a request, until the queue is empty.
    mine_count = 0
    mine_sum = 0
    do k = 1, 100000
      if (mod(k, 2) == 0) then
        st = pgdds_queue_pop(q, got(1:3), popped)
      else
        got_count = 0
        call check_ok(pgdds_queue_pop_nb(q, got, got_count, req), 'pop_nb')
        st = pgdds_wait(ctx, req)
        popped = int(got_count, int64)
      end if
      if (st == PGDDS_ERR_EMPTY) exit
      call check_ok(st, 'pop')
      if (st /= PGDDS_OK) exit
      call check(popped >= 1 .and. popped <= 7, 'a pop gives between one element and the room given')
      mine_count = mine_count + popped
      mine_sum = mine_sum + sum(got(1:popped))
    end do
    call check_ok(pgdds_allreduce(ctx, mine_count, total_count, PGDDS_OP_SUM), 'sum of the counts popped')
    call check_ok(pgdds_allreduce(ctx, mine_sum, total_sum, PGDDS_OP_SUM), 'sum of the elements popped')
    expected_sum = 0
    do x = 0, n - 1
      expected_sum = expected_sum + x * 1000 * per_rank + per_rank * (per_rank + 1) / 2
    end do
    call check(total_count == per_rank * n, 'every element is popped once')
    call check(total_sum == expected_sum, 'the elements popped are those pushed')
    call check_ok(pgdds_barrier(ctx), 'barrier after the pops')
    call check_ok(pgdds_queue_size(q, count), 'size of the emptied queue')
    call check(count == 0, 'the queue is empty')
    call check_status(pgdds_queue_pop(q, got, popped), PGDDS_ERR_EMPTY, 'a pop from an empty queue')
    call check_ok(pgdds_queue_pop_nb(q, got, got_count, req), 'pop_nb from an empty queue')
    call check_status(pgdds_wait(ctx, req), PGDDS_ERR_EMPTY, 'the request of a pop_nb from an empty queue')

    ! Bad input, each refused with a message.
    wrong = 1
    call check_status(pgdds_queue_push(q, 1_int32), PGDDS_ERR_INVALID_ARG, 'push an int32 into an int64 queue')
    call check_status(pgdds_queue_push(q, wrong), PGDDS_ERR_INVALID_ARG, 'push int32 elements into an int64 queue')
    call check_status(pgdds_queue_push_nb(q, 1.0_real64, req), PGDDS_ERR_INVALID_ARG, 'push_nb of a real64')
    call check_status(pgdds_queue_push_nb(q, wrong, req), PGDDS_ERR_INVALID_ARG, 'push_nb of int32 elements')
    call check_status(pgdds_queue_pop(q, wrong, popped), PGDDS_ERR_INVALID_ARG, 'pop into int32 elements')
    call check_status(pgdds_queue_pop(q, none, popped), PGDDS_ERR_INVALID_ARG, 'pop into an empty array')
    call check_status(pgdds_queue_pop_nb(q, none, got_count, req), PGDDS_ERR_INVALID_ARG, 'pop_nb into an empty array')
    call check_status(pgdds_queue_pop_nb(q, strided(1:8:2), got_count, req), PGDDS_ERR_INVALID_ARG, &
                      'pop_nb into a section with a stride')
    call check_status(pgdds_queue_pop_nb(q, wrong, got_count, req), PGDDS_ERR_INVALID_ARG, 'pop_nb into int32 elements')
    call check_status(pgdds_queue_push(q, qval(1), concurrent=PGDDS_CP_INSERT * 64), PGDDS_ERR_INVALID_ARG, &
                      'a push under an unknown promise')
    call check_status(pgdds_queue_push(never_created, 1_int64), PGDDS_ERR_INVALID_ARG, 'push into a queue never created')
    call check_status(pgdds_queue_pop(never_created, got, popped), PGDDS_ERR_INVALID_ARG, &
                      'pop from a queue never created')
    call check_status(pgdds_queue_size(never_created, count), PGDDS_ERR_INVALID_ARG, 'size of a queue never created')
    call check_status(pgdds_queue_capacity(never_created, count), PGDDS_ERR_INVALID_ARG, &
                      'capacity of a queue never created')
    call check_status(pgdds_queue_host(never_created, host), PGDDS_ERR_INVALID_ARG, 'host of a queue never created')
    call check_status(pgdds_queue_destroy(never_created), PGDDS_ERR_INVALID_ARG, 'destroy a queue never created')
    call check_status(pgdds_queue_create(ctx, bad, PGDDS_QUEUE_FAST, PGDDS_UINT64, 8_int64, 0), PGDDS_ERR_INVALID_ARG, &
                      'a queue of an element type Fortran has no variable of')
    call check_status(pgdds_queue_create(ctx, bad, PGDDS_QUEUE_FAST, PGDDS_INT64, 0_int64, 0), PGDDS_ERR_INVALID_ARG, &
                      'a queue of capacity 0')
    call check_status(pgdds_queue_create(ctx, bad, PGDDS_QUEUE_FAST, PGDDS_INT64, 8_int64, n), &
                      PGDDS_ERR_OUT_OF_BOUNDS, 'a queue on a rank past the job')
    call check_status(pgdds_queue_create(ctx, bad, 7_c_int, PGDDS_INT64, 8_int64, 0), PGDDS_ERR_INVALID_ARG, &
                      'a queue of an unknown kind')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroying the queue')
    call check_ok(pgdds_queue_destroy(q), 'destroy the queue')
    call check(.not. c_associated(q%handle), 'a destroyed queue''s handle is null')
  end subroutine

  integer(int64) function qval(k)
    integer, intent(in) :: k
    qval = int(me, int64) * 1000 + k
  end function

  ! A Bloom filter of int64 keys: every rank inserts its own, one at a time, in a batch and in
  ! batches with requests; every rank then finds every other rank's keys, the same three ways.
  subroutine test_bloom()
    integer, parameter :: per_rank = 48, third = per_rank / 3
    type(pgdds_bloom) :: bloom, never_created, bad
    type(pgdds_request) :: req, req2
    integer(int64) :: keys(third)
    integer(int64), allocatable :: all_keys(:)
    logical :: flag, flags(third), many(per_rank * n), few(2)
    integer(c_signed_char), target, asynchronous :: nb_flags(third), nb_all(per_rank * n), strided(2 * third)
    integer(int32) :: wrong(2)
    integer :: k, r, i

    call check_ok(pgdds_bloom_create(ctx, bloom, int(4 * per_rank * n, int64), 0.01_real64, PGDDS_INT64), &
                  'create a Bloom filter')
    do k = 1, third
      call check_ok(pgdds_bloom_insert(bloom, bkey(me, k)), 'insert one key')
    end do
    keys = [(bkey(me, k), k = third + 1, 2 * third)]
    flags = .true.
    call check_ok(pgdds_bloom_insert_many(bloom, keys, flags), 'insert_many')
    keys = [(bkey(me, k), k = 2 * third + 1, per_rank)]
    nb_flags = -1
    call check_ok(pgdds_bloom_insert_many_nb(bloom, keys, req, nb_flags), 'insert_many_nb')
    call check_ok(pgdds_wait(ctx, req), 'wait for insert_many_nb')
    call check(all(nb_flags == 0 .or. nb_flags == 1), 'insert_many_nb sets every flag')
    call check_ok(pgdds_bloom_insert(bloom, bkey(me, 1), flag), 'insert a key again')
    call check(flag, 'a key inserted again was present')
    call check_ok(pgdds_barrier(ctx), 'barrier after the inserts')

    ! Every key of every rank, one at a time, in one batch, and in one batch with a request.
    allocate(all_keys(per_rank * n))
    i = 0
    do r = 0, n - 1
      do k = 1, per_rank
        i = i + 1
        all_keys(i) = bkey(r, k)
      end do
    end do
    do r = 0, n - 1
      do k = 1, per_rank, 5
        flag = .false.
        call check_ok(pgdds_bloom_contains(bloom, bkey(r, k), flag), 'contains')
        call check(flag, 'every rank''s key is present')
      end do
    end do
    many = .false.
    call check_ok(pgdds_bloom_contains_many(bloom, all_keys, many), 'contains_many')
    call check(all(many), 'contains_many finds every rank''s keys')
    nb_all = 0
    call check_ok(pgdds_bloom_contains_many_nb(bloom, all_keys, nb_all, req), 'contains_many_nb')
    nb_flags = 0
    call check_ok(pgdds_bloom_contains_many_nb(bloom, all_keys(1:third), nb_flags, req2), 'a second contains_many_nb')
    call check_ok(pgdds_wait(ctx, req2), 'wait for the second contains_many_nb')
    call check_ok(pgdds_wait(ctx, req), 'wait for contains_many_nb')
    call check(all(nb_all == 1), 'contains_many_nb finds every rank''s keys')
    call check(all(nb_flags == 1), 'the second contains_many_nb finds its keys')

    ! Bad input, each refused with a message.
    wrong = 1
    call check_status(pgdds_bloom_insert(bloom, 1_int32), PGDDS_ERR_INVALID_ARG, 'insert an int32 key')
    call check_status(pgdds_bloom_contains(bloom, 1.0_real64, flag), PGDDS_ERR_INVALID_ARG, 'contains of a real64 key')
    call check_status(pgdds_bloom_insert_many(bloom, wrong), PGDDS_ERR_INVALID_ARG, 'insert_many of int32 keys')
    call check_status(pgdds_bloom_contains_many(bloom, wrong, few), PGDDS_ERR_INVALID_ARG, 'contains_many of int32 keys')
    call check_status(pgdds_bloom_insert_many(bloom, keys, few), PGDDS_ERR_INVALID_ARG, &
                      'insert_many with too few was_present flags')
    call check_status(pgdds_bloom_contains_many(bloom, all_keys, few), PGDDS_ERR_INVALID_ARG, &
                      'contains_many with too few flags')
    call check_status(pgdds_bloom_insert_many_nb(bloom, wrong, req), PGDDS_ERR_INVALID_ARG, &
                      'insert_many_nb of int32 keys')
    call check_status(pgdds_bloom_insert_many_nb(bloom, keys, req, nb_flags(1:2)), PGDDS_ERR_INVALID_ARG, &
                      'insert_many_nb with too few flags')
    call check_status(pgdds_bloom_contains_many_nb(bloom, all_keys, nb_flags, req), PGDDS_ERR_INVALID_ARG, &
                      'contains_many_nb with too few flags')
    call check_status(pgdds_bloom_contains_many_nb(bloom, wrong, nb_flags, req), PGDDS_ERR_INVALID_ARG, &
                      'contains_many_nb of int32 keys')
    call check_status(pgdds_bloom_contains_many_nb(bloom, keys, strided(1:2 * third:2), req), PGDDS_ERR_INVALID_ARG, &
                      'contains_many_nb into a section with a stride')
    call check(.not. c_associated(req%handle), 'a refused call gives no request')
    call check_status(pgdds_bloom_insert(never_created, 1_int64), PGDDS_ERR_INVALID_ARG, &
                      'insert into a filter never created')
    call check_status(pgdds_bloom_contains(never_created, 1_int64, flag), PGDDS_ERR_INVALID_ARG, &
                      'contains in a filter never created')
    call check_status(pgdds_bloom_contains_many_nb(never_created, keys, nb_flags, req), PGDDS_ERR_INVALID_ARG, &
                      'contains_many_nb in a filter never created')
    call check_status(pgdds_bloom_destroy(never_created), PGDDS_ERR_INVALID_ARG, 'destroy a filter never created')
    call check_status(pgdds_bloom_create(ctx, bad, 100_int64, 0.01_real64, PGDDS_UINT32), PGDDS_ERR_INVALID_ARG, &
                      'a filter of a key type Fortran has no variable of')
    call check_status(pgdds_bloom_create(ctx, bad, 100_int64, 1.5_real64, PGDDS_INT64), PGDDS_ERR_INVALID_ARG, &
                      'a false-positive rate past 1')
    call check_ok(pgdds_barrier(ctx), 'barrier before destroying the filter')
    call check_ok(pgdds_bloom_destroy(bloom), 'destroy the filter')
  end subroutine

  integer(int64) function bkey(r, k)
    integer, intent(in) :: r, k
    bkey = int(r, int64) * 7919 + k * 31
  end function

end program fortran_containers
