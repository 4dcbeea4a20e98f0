! The core of the Fortran module on every rank of a job: identity, collectives of every type,
! the segment, put and get of integer and real data, 64-bit atomics with exact totals under
! contention, and the errors a Fortran program gets for bad input.
program fortran_core
  use pgdds
  use harness
  implicit none

  type(pgdds_context) :: ctx
  integer :: me, n

  call start(ctx, 32_int64 * 1024 * 1024)
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)

  call test_identity()
  call test_collectives()
  call test_memory_kinds()
  call test_put_get()
  call test_atomics()
  call test_symmetric_and_signals()
  call test_bad_input()
  call finish(ctx, 'fortran/core')

contains

  subroutine test_identity()
    type(pgdds_context) :: never_initialized
    integer :: local_rank, local_nranks
    local_rank = pgdds_local_rank(ctx)
    local_nranks = pgdds_local_nranks(ctx)
    call check(n >= 1 .and. me >= 0 .and. me < n, 'rank within the job')
    call check(local_rank >= 0 .and. local_rank < local_nranks, 'local rank')
    call check(len(pgdds_transport_name(ctx)) > 0, 'a transport name')
    call check(len(pgdds_version_string()) > 0, 'a version string')
    call check(pgdds_strerror(PGDDS_ERR_NOT_FOUND) == 'not found', 'pgdds_strerror')
    call check(pgdds_rank(never_initialized) == -1, 'the rank of a context never initialized')
    call check(len(pgdds_transport_name(never_initialized)) == 0, 'the transport of a context never initialized')
  end subroutine

  subroutine test_collectives()
    integer(int32) :: i4, i4_sum, bits(3), bits_or(3)
    integer(int64) :: i8_max, i8_in(4), i8_sum(4), gathered(n)
    real(real32) :: r4, r4_min
    real(real64) :: r8(2), r8_sum(2), table(5)
    integer :: k
    integer(int64) :: expected_sum

    call check_ok(pgdds_barrier(ctx), 'pgdds_barrier')
    i4 = int(me + 1, int32)
    call check_ok(pgdds_allreduce(ctx, i4, i4_sum, PGDDS_OP_SUM), 'allreduce int32 sum')
    call check(i4_sum == n * (n + 1) / 2, 'int32 sum')
    call check_ok(pgdds_allreduce(ctx, int(me, int64) * 1000, i8_max, PGDDS_OP_MAX), 'allreduce int64 max')
    call check(i8_max == (n - 1) * 1000_int64, 'int64 max')
    i8_in = [(int(me, int64) * 10 + k, k = 1, 4)]
    call check_ok(pgdds_allreduce(ctx, i8_in, i8_sum, PGDDS_OP_SUM), 'allreduce int64 array')
    expected_sum = 10_int64 * (n * (n - 1) / 2)
    call check(all(i8_sum == [(expected_sum + k * n, k = 1, 4)]), 'int64 array sum')
    r4 = 2.5_real32 - me
    call check_ok(pgdds_allreduce(ctx, r4, r4_min, PGDDS_OP_MIN), 'allreduce real32 min')
    call check(r4_min == 2.5_real32 - (n - 1), 'real32 min')
    r8 = [0.5_real64 * me, 1.0_real64]
    call check_ok(pgdds_allreduce(ctx, r8, r8_sum, PGDDS_OP_SUM), 'allreduce real64 array')
    call check(r8_sum(1) == 0.25_real64 * n * (n - 1) .and. r8_sum(2) == n, 'real64 array sum')
    bits = [ishft(1_int32, me), 0_int32, -1_int32]
    call check_ok(pgdds_allreduce(ctx, bits, bits_or, PGDDS_OP_BOR), 'allreduce int32 bor')
    call check(bits_or(1) == 2**n - 1 .and. bits_or(2) == 0 .and. bits_or(3) == -1, 'int32 bor')

    table = 0
    if (me == n - 1) table = [(1.5_real64 * k, k = 1, 5)]
    call check_ok(pgdds_broadcast(ctx, table, n - 1), 'broadcast real64 array')
    call check(all(table == [(1.5_real64 * k, k = 1, 5)]), 'broadcast real64 array arrived')
    i4 = merge(42_int32, 0_int32, me == 0)
    call check_ok(pgdds_broadcast(ctx, i4, 0), 'broadcast int32')
    call check(i4 == 42, 'broadcast int32 arrived')

    call check_ok(pgdds_allgather(ctx, int(me, int64) * 7, gathered), 'allgather int64')
    call check(all(gathered == [(int(k, int64) * 7, k = 0, n - 1)]), 'allgather int64 arrived')
  end subroutine

  ! Memory kinds: host blocks are PGDDS_MEMORY_HOST; device memory without a device segment and
  ! unknown kinds are refused.
  subroutine test_memory_kinds()
    integer(PGDDS_GPTR_KIND) :: p, q
    call check_ok(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, 64_int64, p), 'alloc_kind host')
    call check(pgdds_gptr_memory(p) == PGDDS_MEMORY_HOST, 'a host block is of kind host')
    call check(pgdds_gptr_rank(p) == me, 'a host block is this rank''s')
    call check_ok(pgdds_put(ctx, p, [42_int64]), 'put into a block of alloc_kind')
    call check_ok(pgdds_free(ctx, p), 'free a block of alloc_kind')
    if (len_trim(env('PGDDS_GPU_SEGMENT_SIZE')) == 0) then
      call check_status(pgdds_alloc_kind(ctx, PGDDS_MEMORY_CUDA, 64_int64, q), PGDDS_ERR_UNSUPPORTED, &
                        'device memory without a device segment')
    end if
    call check_status(pgdds_alloc_kind(ctx, 7_c_int, 64_int64, q), PGDDS_ERR_INVALID_ARG, 'an unknown memory kind')
    call check_status(pgdds_alloc_kind(ctx, PGDDS_MEMORY_HOST, -1_int64, q), PGDDS_ERR_INVALID_ARG, 'a negative size')
  end subroutine

  function env(name) result(value)
    character(len=*), intent(in) :: name
    character(len=64) :: value
    value = ''
    call get_environment_variable(name, value)
  end function

  subroutine test_put_get()
    integer(int64), parameter :: slots = 64
    integer(PGDDS_GPTR_KIND) :: mine, all_ptrs(n), real_ptrs(n), mine_real
    integer(int64) :: values(slots), row(n)
    real(real32) :: reals(8), back(8)
    integer(int64), pointer :: local(:)
    integer :: k, right, left

    right = mod(me + 1, n)
    left = mod(me + n - 1, n)
    call check_ok(pgdds_alloc(ctx, slots * 8, mine), 'pgdds_alloc')
    call check(pgdds_gptr_rank(mine) == me, 'an allocation is in the own segment')
    call check_ok(pgdds_alloc(ctx, 32_int64, mine_real, alignment=64_int64), 'pgdds_alloc aligned')
    call check(mod(pgdds_gptr_offset(mine_real), 64_int64) == 0, 'alignment honoured')
    call check_ok(pgdds_allgather(ctx, mine, all_ptrs), 'share the pointers')
    call check_ok(pgdds_allgather(ctx, mine_real, real_ptrs), 'share the real pointers')

    ! Every rank writes its rank into slot me of every rank's array.
    do k = 1, n
      call check_ok(pgdds_put(ctx, pgdds_gptr_add(all_ptrs(k), int(me, int64) * 8), int(me, int64) + 100), &
                    'put int64 scalar')
    end do
    ! And an array to its right neighbour, after the n slots.
    values = [(int(me, int64) * 1000 + k, k = 1, slots)]
    call check_ok(pgdds_put(ctx, pgdds_gptr_add(all_ptrs(right + 1), int(n, int64) * 8), values(1:slots - n)), &
                  'put int64 array')
    reals = [(real(me, real32) + 0.25 * k, k = 1, 8)]
    call check_ok(pgdds_put(ctx, real_ptrs(right + 1), reals), 'put real32 array')
    call check_ok(pgdds_fence(ctx), 'fence after puts')
    call check_ok(pgdds_barrier(ctx), 'barrier after puts')

    call check_ok(pgdds_get(ctx, row, mine), 'get own slots')
    call check(all(row == [(int(k, int64) + 100, k = 0, n - 1)]), 'every rank''s value arrived')
    call check_ok(pgdds_get(ctx, values(1:slots - n), pgdds_gptr_add(mine, int(n, int64) * 8)), 'get the array')
    call check(all(values(1:slots - n) == [(int(left, int64) * 1000 + k, k = 1, int(slots) - n)]), 'the array arrived')
    call check_ok(pgdds_get(ctx, back, real_ptrs(right + 1)), 'get a remote real32 array')
    call check(all(back == reals), 'the remote real32 array is what was put')

    call c_f_pointer(pgdds_gptr_to_local(ctx, mine), local, [slots])
    call check(associated(local), 'own memory is load/store-reachable')
    if (associated(local)) call check(local(me + 1) == me + 100, 'own memory through a Fortran pointer')
    call check_ok(pgdds_barrier(ctx), 'barrier before free')
    call check_ok(pgdds_free(ctx, mine), 'pgdds_free')
    call check_ok(pgdds_free(ctx, mine_real), 'pgdds_free real')
  end subroutine

  subroutine test_atomics()
    integer, parameter :: rounds = 50
    integer(PGDDS_GPTR_KIND) :: words, all_words(n), counter
    integer(int64) :: old, total, seen(rounds), base
    integer(int64), target, asynchronous :: nb_seen(rounds), nb_old
    type(pgdds_request) :: reqs(rounds)
    logical :: done
    integer :: k

    call check_ok(pgdds_alloc(ctx, 16_int64, words, alignment=8_int64), 'alloc the atomic words')
    call check_ok(pgdds_put(ctx, words, [0_int64, 0_int64]), 'zero the words')
    call check_ok(pgdds_allgather(ctx, words, all_words), 'share the words')
    call check_ok(pgdds_barrier(ctx), 'barrier')
    counter = all_words(1)

    do k = 1, rounds
      call check_ok(pgdds_atomic_fetch_add(ctx, counter, 1_int64, seen(k)), 'fetch-add')
    end do
    call check(all(seen(2:) > seen(:rounds - 1)), 'fetch-add returns increasing values to one rank')
    call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(counter, 8_int64), PGDDS_AOP_OR, ishft(1_int64, me)), &
                  'non-fetching or')
    call check_ok(pgdds_barrier(ctx), 'barrier after atomics')
    call check_ok(pgdds_atomic_load(ctx, counter, total), 'atomic load')
    call check(total == int(rounds, int64) * n, 'no fetch-add was lost')
    call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(counter, 8_int64), PGDDS_AOP_XOR, 0_int64, old), 'fetching xor')
    call check(old == 2_int64**n - 1, 'every rank''s or arrived')
    call check_ok(pgdds_barrier(ctx), 'barrier before cswap')

    ! Non-blocking adds, all in flight, each fetched value distinct; half tested, half waited.
    call check_ok(pgdds_barrier(ctx), 'barrier before non-blocking adds')
    call check_ok(pgdds_atomic_load(ctx, counter, base), 'load before non-blocking adds')
    call check_ok(pgdds_barrier(ctx), 'barrier after the load')
    do k = 1, rounds
      nb_seen(k) = -1
      call check_ok(pgdds_atomic_nb(ctx, counter, PGDDS_AOP_ADD, 1_int64, reqs(k), nb_seen(k)), 'non-blocking add')
    end do
    do k = 1, rounds
      if (mod(k, 2) == 0) then
        call check_ok(pgdds_wait(ctx, reqs(k)), 'wait for a non-blocking add')
      else
        done = .false.
        do while (.not. done)
          call check_ok(pgdds_test(ctx, reqs(k), done), 'test a non-blocking add')
        end do
      end if
    end do
    call check(all(nb_seen >= base .and. nb_seen < base + int(rounds, int64) * n), 'non-blocking adds fetch old values')
    do k = 2, rounds
      call check(all(nb_seen(:k - 1) /= nb_seen(k)), 'each non-blocking add fetched its own value')
    end do
    call check_status(pgdds_atomic_nb(ctx, counter, PGDDS_AOP_MIN, 1_int64, reqs(1)), PGDDS_ERR_UNSUPPORTED, &
                      'MIN has no non-blocking form')
    call check_status(pgdds_atomic_nb(ctx, counter + 4, PGDDS_AOP_ADD, 1_int64, reqs(1)), PGDDS_ERR_INVALID_ARG, &
                      'a misaligned non-blocking add')
    call check_ok(pgdds_barrier(ctx), 'barrier after non-blocking adds')
    call check_ok(pgdds_atomic_load(ctx, counter, total), 'load after non-blocking adds')
    call check(total == base + int(rounds, int64) * n, 'no non-blocking add was lost')
    call check_ok(pgdds_atomic_cswap_nb(ctx, counter, -7_int64, 0_int64, nb_old, reqs(1)), 'non-blocking cswap')
    call check_ok(pgdds_wait(ctx, reqs(1)), 'wait for the cswap')
    call check(nb_old == total, 'a failed non-blocking cswap fetches the value')
    call check_ok(pgdds_barrier(ctx), 'barrier after the non-blocking cswap')

    ! Exactly one rank wins the swap of the total.
    call check_ok(pgdds_atomic_cswap(ctx, counter, total, -1_int64 - me, old), 'cswap')
    call check(old == total .or. old < 0, 'cswap returns the old value')
    call check_ok(pgdds_barrier(ctx), 'barrier after cswap')
    call check_ok(pgdds_atomic_load(ctx, counter, old), 'load the winner')
    call check(old < 0 .and. old >= -n, 'one rank won the cswap')
    call check_ok(pgdds_barrier(ctx), 'barrier before free')
    call check_ok(pgdds_free(ctx, words), 'free the words')
    call test_typed_atomics()
  end subroutine

  ! Real and int32 sums, and signed MIN/MAX, on rank 0's copy of symmetric words.
  subroutine test_typed_atomics()
    integer(PGDDS_GPTR_KIND) :: words, at0
    real(real64) :: d
    real(real32) :: r
    integer(int32) :: i4
    integer(int64) :: i8
    call check_ok(pgdds_alloc_all(ctx, 32_int64, words, alignment=8_int64, zero=.true.), 'alloc_all atomic words')
    call check_ok(pgdds_gptr_at(ctx, words, 0, at0), 'rank 0''s words')
    call check_ok(pgdds_atomic(ctx, at0, PGDDS_AOP_ADD, 0.5_real64), 'real64 add')
    call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 8_int64), PGDDS_AOP_ADD, 0.25_real32), 'real32 add')
    call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 12_int64), PGDDS_AOP_MIN, -1_int32 - me), 'int32 min')
    call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 16_int64), PGDDS_AOP_MIN, -1_int64 - me), 'int64 min (signed)')
    call check_ok(pgdds_barrier(ctx), 'barrier after typed atomics')
    call check_status(pgdds_atomic(ctx, at0, PGDDS_AOP_AND, 1.0_real64), PGDDS_ERR_INVALID_ARG, 'and of a real')
    if (me == 0) then
      call check_ok(pgdds_atomic(ctx, at0, PGDDS_AOP_MAX, -1.0_real64, d), 'real64 max')
      call check(d == 0.5_real64 * n, 'real64 sum')
      call check_ok(pgdds_atomic_cswap(ctx, at0, 0.5_real64 * n, 1.0_real64, d), 'real64 cswap')
      call check(d == 0.5_real64 * n, 'real64 cswap returns the old value')
      call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 8_int64), PGDDS_AOP_SWAP, 0.0_real32, r), 'real32 swap')
      call check(r == 0.25_real32 * n, 'real32 sum')
      call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 12_int64), PGDDS_AOP_ADD, 0_int32, i4), 'int32 fetch')
      call check(i4 == -n, 'int32 min')
      call check_ok(pgdds_atomic(ctx, pgdds_gptr_add(at0, 16_int64), PGDDS_AOP_ADD, 0_int64, i8), 'int64 fetch')
      call check(i8 == -n, 'int64 min compares signed')
    end if
    call check_ok(pgdds_free_all(ctx, words), 'free_all atomic words')
  end subroutine

  ! A ring over symmetric memory: each rank puts a block with a signal into its right
  ! neighbour's copy and waits on its own signal word; then errors every rank sees together.
  subroutine test_symmetric_and_signals()
    integer(PGDDS_GPTR_KIND) :: buf, sig, rbuf, rsig, w32, priv
    integer(int64) :: block(8), got(8), seen
    integer :: right, left, k
    logical :: ok

    right = mod(me + 1, n)
    left = mod(me + n - 1, n)
    call check_ok(pgdds_alloc_all(ctx, 64_int64, buf, zero=.true.), 'alloc_all the blocks')
    call check_ok(pgdds_alloc_all(ctx, 8_int64, sig, alignment=8_int64, zero=.true.), 'alloc_all the signals')
    call check_ok(pgdds_alloc_all(ctx, 4_int64, w32, alignment=4_int64, zero=.true.), 'alloc_all a 32-bit word')
    call check_ok(pgdds_gptr_at(ctx, buf, right, rbuf), 'gptr_at the block')
    call check_ok(pgdds_gptr_at(ctx, sig, right, rsig), 'gptr_at the signal')
    call check(pgdds_gptr_rank(rbuf) == right, 'gptr_at names the neighbour')
    call check(pgdds_gptr_offset(rbuf) == pgdds_gptr_offset(buf), 'gptr_at keeps the offset')

    call check_ok(pgdds_test_until(ctx, sig, PGDDS_CMP_NE, 0_int64, ok), 'test_until before the signal')
    call check(.not. ok, 'no signal before anyone sent one')
    call check_ok(pgdds_barrier(ctx), 'barrier before the ring')
    block = [(int(me, int64) * 100 + k, k = 1, 8)]
    call check_ok(pgdds_put_signal(ctx, rbuf, block, rsig, 1_int64, PGDDS_SIGNAL_SET), 'put_signal')
    call check_ok(pgdds_wait_until(ctx, sig, PGDDS_CMP_EQ, 1_int64), 'wait_until the signal')
    call check_ok(pgdds_get(ctx, got, buf), 'read the block')
    call check(all(got == [(int(left, int64) * 100 + k, k = 1, 8)]), 'the block came with its signal')
    call check_ok(pgdds_barrier(ctx), 'barrier in the ring')
    call check_ok(pgdds_put_signal_nbi(ctx, rbuf, 7_int64, rsig, 2_int64, PGDDS_SIGNAL_ADD), 'put_signal_nbi')
    call check_ok(pgdds_flush(ctx), 'flush')
    call check_ok(pgdds_wait_until(ctx, sig, PGDDS_CMP_GE, 3_int64), 'wait_until the added signal')
    call check_ok(pgdds_signal_fetch(ctx, sig, seen), 'signal_fetch')
    call check(seen == 3, 'set then add')
    call check_ok(pgdds_wait_until(ctx, w32, PGDDS_CMP_EQ, 0_int32), 'wait_until a zeroed 32-bit word')
    call check_ok(pgdds_test_until(ctx, w32, PGDDS_CMP_GT, 0_int32, ok), 'test_until a 32-bit word')
    call check(.not. ok, 'a zeroed 32-bit word is not above 0')

    call check_ok(pgdds_alloc(ctx, 16_int64, priv), 'alloc a private block')
    call check_status(pgdds_free_all(ctx, priv), PGDDS_ERR_INVALID_ARG, 'free_all of pgdds_alloc memory')
    call check_status(pgdds_gptr_at(ctx, buf, n, rbuf), PGDDS_ERR_OUT_OF_BOUNDS, 'gptr_at a rank outside the job')
    if (n > 1) then
      call check_status(pgdds_wait_until(ctx, rsig, PGDDS_CMP_EQ, 0_int64), PGDDS_ERR_INVALID_ARG, &
                        'wait_until on another rank''s word')
      call check_status(pgdds_alloc_all(ctx, 64_int64 + me, rbuf), PGDDS_ERR_INVALID_ARG, 'alloc_all of different sizes')
    end if
    call check_status(pgdds_alloc_all(ctx, -1_int64, rbuf), PGDDS_ERR_INVALID_ARG, 'alloc_all of a negative size')
    call check_ok(pgdds_free(ctx, priv), 'free the private block')
    call check_ok(pgdds_free_all(ctx, w32), 'free_all the 32-bit word')
    call check_ok(pgdds_free_all(ctx, sig), 'free_all the signals')
    call check_ok(pgdds_free_all(ctx, buf), 'free_all the blocks')
  end subroutine

  subroutine test_bad_input()
    integer(PGDDS_GPTR_KIND) :: p
    integer(int64) :: x, big(2)
    integer(int32) :: i4
    real(real64) :: r8

    call check_status(pgdds_put(ctx, PGDDS_GPTR_NULL, 1_int64), PGDDS_ERR_INVALID_ARG, 'put to PGDDS_GPTR_NULL')
    call check_ok(pgdds_alloc(ctx, 16_int64, p), 'alloc')
    call check_status(pgdds_get(ctx, x, pgdds_gptr_add(p, 2_int64**38)), PGDDS_ERR_OUT_OF_BOUNDS, 'get past the segment')
    call check_status(pgdds_atomic_fetch_add(ctx, pgdds_gptr_add(p, 4_int64), 1_int64, x), PGDDS_ERR_INVALID_ARG, &
                      'misaligned atomic')
    call check_status(pgdds_allreduce(ctx, i4, r8, PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG, 'allreduce of mixed types')
    call check_status(pgdds_allreduce(ctx, big, big(1:1), PGDDS_OP_SUM), PGDDS_ERR_INVALID_ARG, &
                      'allreduce of mismatched sizes')
    call check_status(pgdds_allgather(ctx, x, big(1:0)), PGDDS_ERR_INVALID_ARG, 'allgather into too small an array')
    call check_status(pgdds_alloc(ctx, -1_int64, p), PGDDS_ERR_INVALID_ARG, 'alloc of a negative size')
    call check_status(pgdds_free(ctx, PGDDS_GPTR_NULL), PGDDS_ERR_INVALID_ARG, 'free of PGDDS_GPTR_NULL')
  end subroutine

end program fortran_core
