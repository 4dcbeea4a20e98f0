! The core of the Fortran module on every rank of a job: identity, collectives of every type,
! the segment, put and get of integer and real data (blocking, with requests, and completed by a
! flush), atomics of 64 and 32 bits, signed and unsigned, blocking and not, with exact totals
! under contention, the GPU queries, typed RPC to a neighbour with Fortran functions and
! callbacks, active messages, segment sizes, VCIs and network counts, introspection, static
! data reached remotely, and the errors a Fortran program gets for bad input.

! The RPC functions and reply callbacks: bind(C) subroutines of the module's abstract interfaces
! pgdds_rpc_fn and pgdds_rpc_done.
module core_rpc
  use, intrinsic :: iso_c_binding, only: c_char
  use pgdds
  implicit none
  private
  public :: combine, refuse_odd, count_call, store_answer, note_message

  ! What a reply's callback stores for its caller (arg points at it).
  type, public :: rpc_answer
    integer :: calls = 0
    integer(c_int) :: status = 1
    integer(c_size_t) :: size = 0
    integer(int64) :: values(2) = -1
    character(len=300) :: why = ''
  end type

  ! What the calls without reply added on this rank.
  integer, public, volatile :: received = 0
  ! The active messages this rank's handler saw: how many, the sum of their integer(int64)
  ! payloads, how many came with another payload or from an unexpected rank or argument.
  integer, public, volatile :: messages = 0, odd_messages = 0
  integer(int64), public, volatile :: message_sum = 0
  integer, public, target :: message_tag = 4242
  ! Static data that pgdds_map_static_data makes remotely accessible.
  integer(int64), public, target :: static_words(3) = [11_int64, 0_int64, 33_int64]

contains

  ! args: two integer(int32) a, b; answers the integer(int64) a * 10000 + b * 100 + the rank that
  ! runs it, or PGDDS_ERR_STATE when a is not the caller's rank.
  subroutine combine(ctx, src_rank, args, size, reply) bind(C)
    type(c_ptr), value :: ctx
    integer(c_int), value :: src_rank
    type(c_ptr), value :: args
    integer(c_size_t), value :: size
    type(c_ptr), value :: reply
    character(kind=c_char), pointer :: bytes(:)
    integer(int32) :: ab(2)
    integer(c_int) :: st
    if (size /= 8) then
      st = pgdds_rpc_reply(reply, PGDDS_ERR_INVALID_ARG, message='combine: expected two integer(int32)')
      return
    end if
    call c_f_pointer(args, bytes, [size])
    ab = transfer(bytes, ab)
    if (ab(1) /= src_rank) then
      st = pgdds_rpc_reply(reply, PGDDS_ERR_STATE, message='combine: the argument is not the caller''s rank')
      return
    end if
    st = pgdds_rpc_reply(reply, PGDDS_OK, int(ab(1), int64) * 10000 + ab(2) * 100 + pgdds_rank(pgdds_context(ctx)))
  end subroutine

  ! args: one integer(int64) x; answers [x, -x], or PGDDS_ERR_NOT_FOUND for an odd x.
  subroutine refuse_odd(ctx, src_rank, args, size, reply) bind(C)
    type(c_ptr), value :: ctx
    integer(c_int), value :: src_rank
    type(c_ptr), value :: args
    integer(c_size_t), value :: size
    type(c_ptr), value :: reply
    character(kind=c_char), pointer :: bytes(:)
    integer(int64) :: x
    character(len=24) :: text
    integer(c_int) :: st
    if (size /= 8 .or. .not. c_associated(ctx) .or. src_rank < 0) then
      st = pgdds_rpc_reply(reply, PGDDS_ERR_INVALID_ARG, message='refuse_odd: expected one integer(int64)')
      return
    end if
    call c_f_pointer(args, bytes, [size])
    x = transfer(bytes, x)
    if (mod(x, 2_int64) /= 0) then
      write (text, '(i0)') x
      st = pgdds_rpc_reply(reply, PGDDS_ERR_NOT_FOUND, message='refuse_odd: ' // trim(text) // ' is odd')
      return
    end if
    st = pgdds_rpc_reply(reply, PGDDS_OK, [x, -x])
  end subroutine

  ! No answer (an empty success): adds the integer(int32) argument to received, or 1000 for a call
  ! without arguments.
  subroutine count_call(ctx, src_rank, args, size, reply) bind(C)
    type(c_ptr), value :: ctx
    integer(c_int), value :: src_rank
    type(c_ptr), value :: args
    integer(c_size_t), value :: size
    type(c_ptr), value :: reply
    character(kind=c_char), pointer :: bytes(:)
    if (size == 4) then
      call c_f_pointer(args, bytes, [size])
      received = received + transfer(bytes, 0_int32)
    else if (size == 0 .and. c_associated(ctx) .and. src_rank >= 0 .and. c_associated(reply)) then
      received = received + 1000
    end if
  end subroutine

  ! Stores the reply in the rpc_answer arg points at: up to two integer(int64), or the failure's
  ! message.
  subroutine store_answer(ctx, status, result, size, arg) bind(C)
    type(c_ptr), value :: ctx
    integer(c_int), value :: status
    type(c_ptr), value :: result
    integer(c_size_t), value :: size
    type(c_ptr), value :: arg
    type(rpc_answer), pointer :: answer
    character(kind=c_char), pointer :: bytes(:)
    call c_f_pointer(arg, answer)
    answer%calls = answer%calls + 1
    answer%status = status
    answer%size = size
    if (status /= PGDDS_OK .or. .not. c_associated(ctx)) then
      answer%why = pgdds_last_error()
    else if (size > 0 .and. size <= 16 .and. mod(size, 8_c_size_t) == 0) then
      call c_f_pointer(result, bytes, [size])
      answer%values(1:size / 8) = transfer(bytes, answer%values, size / 8)
    end if
  end subroutine

  ! An active-message handler: payload is one integer(int64) from the rank to the left; arg points
  ! at message_tag.
  subroutine note_message(ctx, src_rank, payload, size, arg) bind(C)
    type(c_ptr), value :: ctx
    integer(c_int), value :: src_rank
    type(c_ptr), value :: payload
    integer(c_size_t), value :: size
    type(c_ptr), value :: arg
    integer(int64), pointer :: value
    integer, pointer :: tag
    call c_f_pointer(arg, tag)
    if (size /= 8 .or. .not. c_associated(ctx) .or. src_rank < 0 .or. tag /= 4242) then
      odd_messages = odd_messages + 1
      return
    end if
    call c_f_pointer(payload, value)
    messages = messages + 1
    message_sum = message_sum + value
  end subroutine

end module core_rpc

program fortran_core
  use pgdds
  use harness
  use core_rpc
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
  call test_nonblocking_put_get()
  call test_atomics_32_and_unsigned()
  call test_gpu()
  call test_rpc()
  call test_segments_vcis_counts()
  call test_active_messages()
  call test_introspection()
  call test_static_data()
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

  ! Requests and flush-completed transfers around the ring: each rank writes into its right
  ! neighbour's copy of a symmetric block with pgdds_put_nb and pgdds_put_nbi, then reads its own
  ! copy and its neighbour's back with pgdds_get_nb and pgdds_get_nbi.
  subroutine test_nonblocking_put_get()
    integer(PGDDS_GPTR_KIND) :: buf, rbuf
    integer(int64), target, asynchronous :: out(16), back(16), one, one_back, nbi_one, nbi_back
    real(real32), target, asynchronous :: r4(4), r4_back(4)
    logical, target, asynchronous :: flag
    type(pgdds_request) :: req, req2
    logical :: done
    integer :: right, left, k

    flag = .false.
    right = mod(me + 1, n)
    left = mod(me + n - 1, n)
    call check_ok(pgdds_alloc_all(ctx, 256_int64, buf, alignment=8_int64, zero=.true.), 'alloc_all the nb block')
    call check_ok(pgdds_gptr_at(ctx, buf, right, rbuf), 'the right neighbour''s nb block')

    ! Bytes 0-127: an int64 array (put_nb); 128: an int64 (put_nb); 136: an int64 (put_nbi);
    ! 144-159: a real32 array (put_nbi).
    out = [(int(me, int64) * 100 + k, k = 1, 16)]
    one = int(me, int64) + 7
    nbi_one = -1_int64 - me
    r4 = [(real(me, real32) + 0.5_real32 * k, k = 1, 4)]
    call check_ok(pgdds_put_nb(ctx, rbuf, out, req), 'put_nb an int64 array')
    call check_ok(pgdds_put_nb(ctx, pgdds_gptr_add(rbuf, 128_int64), one, req2), 'put_nb an int64')
    call check_ok(pgdds_wait(ctx, req), 'wait for put_nb')
    call check(.not. c_associated(req%handle), 'a completed request is freed')
    done = .false.
    do while (.not. done)
      call check_ok(pgdds_test(ctx, req2, done), 'test put_nb')
    end do
    call check_ok(pgdds_put_nbi(ctx, pgdds_gptr_add(rbuf, 136_int64), nbi_one), 'put_nbi an int64')
    call check_ok(pgdds_put_nbi(ctx, pgdds_gptr_add(rbuf, 144_int64), r4), 'put_nbi a real32 array')
    call check_ok(pgdds_flush(ctx), 'flush the put_nbi')
    call check_ok(pgdds_barrier(ctx), 'barrier after the non-blocking puts')

    back = -1
    one_back = -1
    call check_ok(pgdds_get_nb(ctx, back, buf, req), 'get_nb an int64 array')
    call check_ok(pgdds_get_nb(ctx, one_back, pgdds_gptr_add(buf, 128_int64), req2), 'get_nb an int64')
    call check_ok(pgdds_wait(ctx, req2), 'wait for get_nb')
    done = .false.
    do while (.not. done)
      call check_ok(pgdds_test(ctx, req, done), 'test get_nb')
    end do
    call check(all(back == [(int(left, int64) * 100 + k, k = 1, 16)]), 'the left neighbour''s put_nb array arrived')
    call check(one_back == int(left, int64) + 7, 'the left neighbour''s put_nb scalar arrived')
    ! The right neighbour's copy holds what this rank put there.
    back = -1
    call check_ok(pgdds_get_nb(ctx, back, rbuf, req), 'get_nb from the right neighbour')
    call check_ok(pgdds_wait(ctx, req), 'wait for the remote get_nb')
    call check(all(back == out), 'get_nb reads back the put_nb array')
    nbi_back = 0
    r4_back = -1
    call check_ok(pgdds_get_nbi(ctx, nbi_back, pgdds_gptr_add(buf, 136_int64)), 'get_nbi an int64')
    call check_ok(pgdds_get_nbi(ctx, r4_back, pgdds_gptr_add(buf, 144_int64)), 'get_nbi a real32 array')
    call check_ok(pgdds_flush(ctx), 'flush the get_nbi')
    call check(nbi_back == -1_int64 - left, 'the left neighbour''s put_nbi scalar arrived')
    call check(all(r4_back == [(real(left, real32) + 0.5_real32 * k, k = 1, 4)]), &
               'the left neighbour''s put_nbi array arrived')

    ! Bad input: a type no transfer takes, an array with a stride, memory past the segment.
    call check_status(pgdds_put_nb(ctx, rbuf, flag, req), PGDDS_ERR_INVALID_ARG, 'put_nb of a logical')
    call check_status(pgdds_get_nb(ctx, flag, buf, req), PGDDS_ERR_INVALID_ARG, 'get_nb into a logical')
    call check_status(pgdds_put_nbi(ctx, rbuf, flag), PGDDS_ERR_INVALID_ARG, 'put_nbi of a logical')
    call check_status(pgdds_get_nbi(ctx, flag, buf), PGDDS_ERR_INVALID_ARG, 'get_nbi into a logical')
    call check_status(pgdds_put_nb(ctx, rbuf, out(1:16:2), req), PGDDS_ERR_INVALID_ARG, 'put_nb of a strided section')
    call check(index(pgdds_last_error(), 'contiguous') > 0, 'the message says the array is not contiguous')
    call check_status(pgdds_get_nb(ctx, back(2:16:3), buf, req), PGDDS_ERR_INVALID_ARG, 'get_nb into a strided section')
    call check_status(pgdds_put_nbi(ctx, rbuf, out(16:1:-1)), PGDDS_ERR_INVALID_ARG, 'put_nbi of a reversed section')
    call check_status(pgdds_get_nbi(ctx, r4_back(1:4:2), buf), PGDDS_ERR_INVALID_ARG, 'get_nbi into a strided section')
    call check_status(pgdds_put_nb(ctx, pgdds_gptr_add(buf, 2_int64**38), one, req), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'put_nb past the segment')
    call check_status(pgdds_get_nb(ctx, one_back, pgdds_gptr_add(buf, 2_int64**38), req), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'get_nb past the segment')
    call check_status(pgdds_put_nbi(ctx, pgdds_gptr_add(buf, 2_int64**38), out), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'put_nbi past the segment')
    call check_status(pgdds_get_nbi(ctx, back, pgdds_gptr_add(buf, 2_int64**38)), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'get_nbi past the segment')
    call check_ok(pgdds_flush(ctx), 'flush after the refused transfers')
    call check_ok(pgdds_barrier(ctx), 'barrier before freeing the nb block')
    call check_ok(pgdds_free_all(ctx, buf), 'free_all the nb block')
  end subroutine

  ! 32-bit and unsigned atomics on rank 0's copy of symmetric words, each with its exact result:
  ! counts, unsigned maxima, non-fetching and non-blocking adds, and compare-and-swaps of negative
  ! values that exactly one rank wins.
  subroutine test_atomics_32_and_unsigned()
    integer(PGDDS_GPTR_KIND) :: words, at0
    integer(int32) :: i4, old32, fetched32
    integer(int32), target, asynchronous :: nb32, nb_old32
    integer(int32) :: nb_all(n)
    integer(int64) :: i8, old64, old_u64, wins, wins_all
    type(pgdds_request) :: req
    logical :: won64, won32, won_u64

    ! Offsets: 0 u32 count, 4 u32 max, 8 u64 max, 16 u32 nbi, 24 u64 nbi, 32 u32 nb, 40 i64 cswap,
    ! 48 u32 cswap, 56 u64 cswap.
    call check_ok(pgdds_alloc_all(ctx, 64_int64, words, alignment=8_int64, zero=.true.), 'alloc_all the 32-bit words')
    call check_ok(pgdds_gptr_at(ctx, words, 0, at0), 'rank 0''s 32-bit words')
    if (me == 0) then
      call check_ok(pgdds_put(ctx, pgdds_gptr_add(at0, 40_int64), -100_int64), 'set the i64 cswap word')
      call check_ok(pgdds_put(ctx, pgdds_gptr_add(at0, 48_int64), -5_int32), 'set the u32 cswap word')
      call check_ok(pgdds_put(ctx, pgdds_gptr_add(at0, 56_int64), -9_int64), 'set the u64 cswap word')
    end if
    call check_ok(pgdds_barrier(ctx), 'barrier before the 32-bit atomics')

    call check_ok(pgdds_atomic_unsigned(ctx, at0, PGDDS_AOP_ADD, 1_int32), 'u32 add')
    fetched32 = -7
    call check_ok(pgdds_atomic_unsigned(ctx, pgdds_gptr_add(at0, 4_int64), PGDDS_AOP_MAX, &
                                        merge(-2_int32, int(me, int32), me == n - 1), fetched32), 'u32 max')
    call check(fetched32 /= -7, 'u32 max fetches the old value')
    call check_ok(pgdds_atomic_unsigned(ctx, pgdds_gptr_add(at0, 8_int64), PGDDS_AOP_MAX, &
                                        merge(-2_int64, int(me, int64), me == n - 1)), 'u64 max')
    call check_ok(pgdds_atomic_nbi(ctx, pgdds_gptr_add(at0, 16_int64), PGDDS_AOP_ADD, 2_int32), 'u32 nbi add')
    call check_ok(pgdds_atomic_nbi(ctx, pgdds_gptr_add(at0, 24_int64), PGDDS_AOP_ADD, 3_int64), 'u64 nbi add')
    call check_ok(pgdds_flush(ctx), 'flush the nbi adds')
    nb_old32 = -1
    call check_ok(pgdds_atomic_nb(ctx, pgdds_gptr_add(at0, 32_int64), PGDDS_AOP_ADD, 1_int32, req, nb_old32), &
                  'u32 nb add')
    call check_ok(pgdds_wait(ctx, req), 'wait for the u32 nb add')
    call check_ok(pgdds_atomic_cswap(ctx, pgdds_gptr_add(at0, 40_int64), -100_int64, -1_int64 - me, old64), &
                  'i64 cswap of negative values')
    won64 = old64 == -100
    call check(won64 .or. (old64 <= -1 .and. old64 >= -n), 'i64 cswap returns the old value')
    call check_ok(pgdds_atomic_cswap_unsigned(ctx, pgdds_gptr_add(at0, 48_int64), -5_int32, -10_int32 - me, old32), &
                  'u32 cswap')
    won32 = old32 == -5
    call check(won32 .or. (old32 <= -10 .and. old32 > -10 - n), 'u32 cswap returns the old value')
    call check_ok(pgdds_atomic_cswap_unsigned(ctx, pgdds_gptr_add(at0, 56_int64), -9_int64, -20_int64 - me, old_u64), &
                  'u64 cswap')
    won_u64 = old_u64 == -9
    call check_ok(pgdds_barrier(ctx), 'barrier after the 32-bit atomics')

    wins = merge(1_int64, 0_int64, won64) + merge(100_int64, 0_int64, won32) + merge(10000_int64, 0_int64, won_u64)
    call check_ok(pgdds_allreduce(ctx, wins, wins_all, PGDDS_OP_SUM), 'count the cswap winners')
    call check(wins_all == 10101, 'exactly one rank wins each compare-and-swap')
    call check_ok(pgdds_allgather(ctx, nb_old32, nb_all), 'gather the nb fetched values')
    call check(all([(count(nb_all == i4), i4 = 0, n - 1)] == 1), 'each u32 nb add fetched its own value')

    if (me == 0) then
      call check_ok(pgdds_atomic_load(ctx, at0, i4), 'u32 load of the count')
      call check(i4 == n, 'no u32 add was lost')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 4_int64), i4), 'u32 load of the max')
      call check(i4 == -2, 'u32 max compares unsigned')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 8_int64), i8), 'u64 load of the max')
      call check(i8 == -2, 'u64 max compares unsigned')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 16_int64), i4), 'u32 load of the nbi sum')
      call check(i4 == 2 * n, 'every u32 nbi add arrived')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 24_int64), i8), 'u64 load of the nbi sum')
      call check(i8 == 3 * n, 'every u64 nbi add arrived')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 32_int64), i4), 'u32 load of the nb sum')
      call check(i4 == n, 'every u32 nb add arrived')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 40_int64), i8), 'load the i64 cswap word')
      call check(i8 <= -1 .and. i8 >= -n, 'the i64 cswap winner''s value')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 48_int64), i4), 'load the u32 cswap word')
      call check(i4 <= -10 .and. i4 > -10 - n, 'the u32 cswap winner''s value')
      call check_ok(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 56_int64), i8), 'load the u64 cswap word')
      call check(i8 <= -20 .and. i8 > -20 - n, 'the u64 cswap winner''s value')
    end if
    ! A failing non-blocking 32-bit compare-and-swap fetches the word.
    nb32 = -1
    call check_ok(pgdds_atomic_cswap_nb(ctx, pgdds_gptr_add(at0, 32_int64), -77_int32, 0_int32, nb32, req), &
                  'u32 nb cswap')
    call check_ok(pgdds_wait(ctx, req), 'wait for the u32 nb cswap')
    call check(nb32 == n, 'a failed u32 nb cswap fetches the word')
    call check_ok(pgdds_barrier(ctx), 'barrier after the u32 nb cswap')

    ! Misaligned words, an operation not allowed, MIN without a non-blocking form.
    call check_status(pgdds_atomic_unsigned(ctx, pgdds_gptr_add(at0, 2_int64), PGDDS_AOP_ADD, 1_int32), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u32 atomic')
    call check_status(pgdds_atomic_unsigned(ctx, pgdds_gptr_add(at0, 4_int64), PGDDS_AOP_ADD, 1_int64), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u64 atomic')
    call check_status(pgdds_atomic_cswap_unsigned(ctx, pgdds_gptr_add(at0, 2_int64), 0_int32, 1_int32, old32), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u32 cswap')
    call check_status(pgdds_atomic_cswap_unsigned(ctx, pgdds_gptr_add(at0, 4_int64), 0_int64, 1_int64, old64), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u64 cswap')
    call check_status(pgdds_atomic_cswap(ctx, pgdds_gptr_add(at0, 4_int64), 0_int64, 1_int64, old64), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned i64 cswap')
    call check_status(pgdds_atomic_nbi(ctx, pgdds_gptr_add(at0, 2_int64), PGDDS_AOP_ADD, 1_int32), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u32 nbi atomic')
    call check_status(pgdds_atomic_nbi(ctx, pgdds_gptr_add(at0, 4_int64), PGDDS_AOP_ADD, 1_int64), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u64 nbi atomic')
    call check_status(pgdds_atomic_nbi(ctx, at0, 99_c_int, 1_int32), PGDDS_ERR_INVALID_ARG, 'a u32 nbi of no operation')
    call check_status(pgdds_atomic_nb(ctx, at0, PGDDS_AOP_MIN, 1_int32, req), PGDDS_ERR_UNSUPPORTED, &
                      'u32 MIN has no non-blocking form')
    call check_status(pgdds_atomic_nb(ctx, pgdds_gptr_add(at0, 2_int64), PGDDS_AOP_ADD, 1_int32, req), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u32 nb atomic')
    call check_status(pgdds_atomic_cswap_nb(ctx, pgdds_gptr_add(at0, 2_int64), 0_int32, 1_int32, nb32, req), &
                      PGDDS_ERR_INVALID_ARG, 'a misaligned u32 nb cswap')
    call check_status(pgdds_atomic_load(ctx, pgdds_gptr_add(at0, 2_int64), i4), PGDDS_ERR_INVALID_ARG, &
                      'a misaligned u32 load')
    call check_ok(pgdds_flush(ctx), 'flush after the refused atomics')
    call check_ok(pgdds_barrier(ctx), 'barrier before freeing the 32-bit words')
    call check_ok(pgdds_free_all(ctx, words), 'free_all the 32-bit words')
  end subroutine

  ! The GPU queries answer on any machine: a count (0 without devices or CUDA), and the device of
  ! this rank's device segment (-1 without one).
  subroutine test_gpu()
    type(pgdds_context) :: never_initialized
    integer :: devices, device
    integer(c_int) :: st
    devices = -5
    st = pgdds_gpu_probe(devices)
    call check(st == PGDDS_OK .or. (st == PGDDS_ERR_UNSUPPORTED .and. devices == 0), &
               'pgdds_gpu_probe: OK, or unsupported with no device; returned ' // pgdds_strerror(st))
    call check(devices >= 0, 'pgdds_gpu_probe gives a count of devices')
    if (st == PGDDS_ERR_UNSUPPORTED) call check(len(pgdds_last_error()) > 0, 'pgdds_gpu_probe says why unsupported')
    device = -5
    call check_ok(pgdds_gpu_device(ctx, device), 'pgdds_gpu_device')
    if (len_trim(env('PGDDS_GPU_SEGMENT_SIZE')) == 0) then
      call check(device == -1, 'no device without a device segment')
    else
      call check(device >= 0 .and. device < devices, 'the device segment''s device is a visible one')
    end if
    call check_status(pgdds_gpu_device(never_initialized, device), PGDDS_ERR_INVALID_ARG, &
                      'pgdds_gpu_device of a context never initialized')
  end subroutine

  ! Typed RPC with Fortran functions and callbacks: a call to the right neighbour answered from
  ! its arguments, an array answer, failures with the target's message, a function nobody
  ! registered, calls without reply, and bad input.
  subroutine test_rpc()
    integer(int64), parameter :: id_combine = 1001, id_odd = 1002, id_count = 1003, id_nobody = 1999
    type(rpc_answer), target, volatile :: mine, liar, even, odd, nobody, empty
    logical :: flag
    integer :: right, left
    integer :: deadline

    flag = .false.
    right = mod(me + 1, n)
    left = mod(me + n - 1, n)
    ! A procedure (its interface checked against pgdds_rpc_fn), or its c_funloc.
    call check_ok(pgdds_rpc_register(id_combine, combine), 'register combine')
    call check_ok(pgdds_rpc_register(id_odd, c_funloc(refuse_odd)), 'register refuse_odd by c_funloc')
    call check_ok(pgdds_rpc_register(id_count, count_call), 'register count_call')
    call check_ok(pgdds_rpc_register(id_combine, c_funloc(combine)), 'register combine again')
    call check_status(pgdds_rpc_register(id_combine, refuse_odd), PGDDS_ERR_EXISTS, 'an id that names another function')
    call check_status(pgdds_rpc_register(0_int64, combine), PGDDS_ERR_INVALID_ARG, 'register id 0')
    call check_status(pgdds_rpc_register(1004_int64, c_null_funptr), PGDDS_ERR_INVALID_ARG, 'register a null function')
    call check_ok(pgdds_barrier(ctx), 'barrier after registration')

    call check_ok(pgdds_rpc_call(ctx, right, id_combine, [int(me, int32), 7_int32], store_answer, c_loc(mine)), &
                  'call combine on the right neighbour')
    call check_ok(pgdds_rpc_call(ctx, right, id_combine, [int(me + 1, int32), 7_int32], c_funloc(store_answer), &
                                 c_loc(liar)), 'call combine with another rank''s number')
    call check_ok(pgdds_rpc_call(ctx, left, id_odd, 2_int64 * me + 4, store_answer, c_loc(even)), 'call refuse_odd')
    call check_ok(pgdds_rpc_call(ctx, me, id_odd, 2_int64 * me + 3, c_funloc(store_answer), c_loc(odd)), &
                  'call refuse_odd on this rank with an odd number')
    call check_ok(pgdds_rpc_call(ctx, right, id_nobody, 1_int32, store_answer, c_loc(nobody)), &
                  'call a function nobody registered')
    call check_ok(pgdds_rpc_call(ctx, right, id_count, done=store_answer, arg=c_loc(empty)), 'call without arguments')
    call check_ok(pgdds_rpc_call(ctx, right, id_count, 5_int32, c_null_funptr), 'call without reply')

    call system_clock(deadline)
    do while (mine%calls + liar%calls + even%calls + odd%calls + nobody%calls + empty%calls < 6 .or. received < 1005)
      call check_ok(pgdds_progress(ctx), 'progress while the replies come')
      if (seconds_since(deadline) > 60) exit
    end do
    call check(mine%calls == 1 .and. mine%status == PGDDS_OK .and. mine%size == 8, 'combine answered once')
    call check(mine%values(1) == int(me, int64) * 10000 + 700 + right, 'combine''s answer is computed from the call')
    call check(liar%calls == 1 .and. liar%status == PGDDS_ERR_STATE, 'combine refused another rank''s number')
    call check(index(liar%why, 'not the caller''s rank') > 0, 'the caller gets the function''s message: ' // &
               trim(liar%why))
    call check(even%calls == 1 .and. even%status == PGDDS_OK .and. even%size == 16, 'refuse_odd answered an array')
    call check(all(even%values == [2_int64 * me + 4, -(2_int64 * me + 4)]), 'the array answer')
    call check(odd%calls == 1 .and. odd%status == PGDDS_ERR_NOT_FOUND, 'refuse_odd refused an odd number')
    call check(index(odd%why, 'is odd') > 0, 'the odd number''s message: ' // trim(odd%why))
    call check(nobody%calls == 1 .and. nobody%status == PGDDS_ERR_INVALID_ARG, 'a function nobody registered fails')
    call check(index(nobody%why, 'no function') > 0, 'the message names the missing function: ' // trim(nobody%why))
    call check(empty%calls == 1 .and. empty%status == PGDDS_OK .and. empty%size == 0, 'an empty success')
    call check(received == 1005, 'the calls without reply and without arguments arrived')
    call check_ok(pgdds_barrier(ctx), 'barrier after the calls')
    call check(mine%calls + liar%calls + even%calls + odd%calls + nobody%calls + empty%calls == 6, &
               'each callback ran once')

    ! Bad input: ranks outside the job, arguments of no supported type, a null reply.
    call check_status(pgdds_rpc_call(ctx, -1, id_combine, 1_int32, store_answer), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'call rank -1')
    call check_status(pgdds_rpc_call(ctx, n, id_combine, [1_int32], c_null_funptr), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'call a rank past the job')
    call check_status(pgdds_rpc_call(ctx, right, id_combine, flag, store_answer), PGDDS_ERR_INVALID_ARG, &
                      'call with a logical argument')
    call check_status(pgdds_rpc_reply(c_null_ptr, PGDDS_OK, 1_int32), PGDDS_ERR_INVALID_ARG, 'reply to no call')
    call check_status(pgdds_rpc_reply(c_null_ptr, PGDDS_OK, [flag]), PGDDS_ERR_INVALID_ARG, 'reply with logicals')
    call check_ok(pgdds_barrier(ctx), 'barrier after the RPC checks')
  end subroutine

  real function seconds_since(start)
    integer, intent(in) :: start
    integer :: now, rate
    call system_clock(now, rate)
    seconds_since = real(now - start) / real(rate)
  end function

  ! Segment sizes, local addresses and back, VCIs, and the network counts: a put to a neighbour
  ! that this rank does not map goes through the transport and is counted, with its flush.
  subroutine test_segments_vcis_counts()
    type(pgdds_context) :: never_initialized
    type(pgdds_net_counts_t) :: before, after
    integer(PGDDS_GPTR_KIND) :: p, back, mine(64)
    integer(int64) :: bytes
    integer(int64), target :: local_value
    integer :: right, nvcis, vci

    call check_ok(pgdds_segment_size(ctx, me, bytes), 'segment_size of this rank')
    call check(bytes >= 32_int64 * 1024 * 1024, 'the segment holds what start asked for')
    call check_ok(pgdds_segment_size(ctx, n - 1, bytes), 'segment_size of the last rank')
    call check_status(pgdds_segment_size(ctx, n, bytes), PGDDS_ERR_OUT_OF_BOUNDS, 'segment_size of a rank past the job')

    call check_ok(pgdds_alloc(ctx, 64_int64, p), 'alloc')
    call check_ok(pgdds_gptr_from_local(ctx, pgdds_gptr_to_local(ctx, p), back), 'gptr_from_local of a segment address')
    call check(back == p, 'gptr_from_local gives back the global pointer')
    call check_status(pgdds_gptr_from_local(ctx, c_loc(local_value), back), PGDDS_ERR_OUT_OF_BOUNDS, &
                      'gptr_from_local of a private variable')

    nvcis = pgdds_num_vcis(ctx)
    vci = pgdds_vci_current(ctx)
    call check(nvcis >= 1, 'at least one VCI')
    call check(vci >= 0 .and. vci < nvcis, 'the current VCI')
    call check_ok(pgdds_vci_bind(ctx, 0), 'vci_bind to VCI 0')
    vci = pgdds_vci_current(ctx)
    call check(vci == 0, 'bound to VCI 0')
    call check_status(pgdds_vci_bind(ctx, nvcis), PGDDS_ERR_INVALID_ARG, 'vci_bind past the VCIs')
    call check_status(pgdds_vci_bind(ctx, -1), PGDDS_ERR_INVALID_ARG, 'vci_bind to a negative VCI')
    call check(pgdds_num_vcis(never_initialized) == 0, 'no VCIs for a context never initialized')
    call check(pgdds_vci_current(never_initialized) == -1, 'no current VCI for a context never initialized')

    call check_ok(pgdds_allgather(ctx, p, mine(1:n)), 'allgather of the blocks')
    right = mod(me + 1, n)
    call check_ok(pgdds_net_counts(ctx, before), 'net_counts before')
    call check_ok(pgdds_put(ctx, mine(right + 1), 7_int64), 'put to the right neighbour')
    call check_ok(pgdds_flush(ctx), 'flush')
    call check_ok(pgdds_net_counts(ctx, after), 'net_counts after')
    call check(after%puts >= before%puts .and. after%flushes >= before%flushes, 'counts only grow')
    if (.not. c_associated(pgdds_gptr_to_local(ctx, mine(right + 1)))) then
      call check(after%puts >= before%puts + 1, 'a put through the transport is counted')
      call check(after%put_bytes >= before%put_bytes + 8, 'its bytes are counted')
      call check(after%flushes >= before%flushes + 1, 'its flush is counted')
    end if
    call check_status(pgdds_net_counts(never_initialized, after), PGDDS_ERR_INVALID_ARG, &
                      'net_counts of a context never initialized')
    call check_ok(pgdds_barrier(ctx), 'barrier')
    call check_ok(pgdds_free(ctx, p), 'free')
  end subroutine

  ! Each rank sends 50 active messages to its right neighbour, payloads 1000 * rank + k; the
  ! neighbour's handler counts them and sums the payloads, exactly.
  subroutine test_active_messages()
    integer, parameter :: count = 50
    integer :: id, k, spins, left
    integer(int64) :: want
    call check_ok(pgdds_am_register(ctx, note_message, id, c_loc(message_tag)), 'am_register')
    call check(id >= 0, 'a handler id')
    do k = 1, count
      call check_ok(pgdds_am_send(ctx, mod(me + 1, n), id, 1000_int64 * me + k), 'am_send')
    end do
    spins = 0
    do while (messages < count .and. spins < 10000000)
      call check_ok(pgdds_progress(ctx), 'progress')
      spins = spins + 1
    end do
    left = mod(me - 1 + n, n)
    want = 1000_int64 * left * count + int(count, int64) * (count + 1) / 2
    call check(messages == count, 'every active message arrived once')
    call check(message_sum == want, 'the payloads arrived whole')
    call check(odd_messages == 0, 'no message with a wrong size, context, source or argument')
    call check_status(pgdds_am_send(ctx, n, id, 1_int64), PGDDS_ERR_OUT_OF_BOUNDS, 'am_send to a rank past the job')
    call check_status(pgdds_am_send(ctx, 0, id + 1000, 1_int64), PGDDS_ERR_INVALID_ARG, 'am_send to an unknown handler')
    call check_status(pgdds_am_send(ctx, 0, -1, 1_int64), PGDDS_ERR_INVALID_ARG, 'am_send to a negative handler')
    call check_ok(pgdds_barrier(ctx), 'barrier')
  end subroutine

  ! The build options, the environment variables and the transports, as pgdds-info shows them.
  subroutine test_introspection()
    character(len=:), allocatable :: name, value
    type(pgdds_config_var) :: var
    type(pgdds_transport_attr) :: attr
    integer :: i, count
    logical :: found

    count = pgdds_build_option_count()
    call check(count > 0, 'build options')
    found = .false.
    do i = 0, count - 1
      call check_ok(pgdds_build_option(i, name, value), 'build_option')
      if (name == 'version') found = len(value) > 0
    end do
    call check(found, 'a version among the build options')
    call check_status(pgdds_build_option(count, name, value), PGDDS_ERR_INVALID_ARG, 'build_option past the last')

    found = .false.
    do i = 0, pgdds_config_count() - 1
      call check_ok(pgdds_config_describe(i, var), 'config_describe')
      if (var%name == 'PGDDS_SEGMENT_SIZE') &
        found = var%type == 'size' .and. var%default_value == '256M' .and. len(var%description) > 0 .and. var%value_ok
    end do
    call check(found, 'PGDDS_SEGMENT_SIZE described')
    call check_status(pgdds_config_describe(-1, var), PGDDS_ERR_INVALID_ARG, 'config_describe of index -1')

    call check_ok(pgdds_transport_probe(count), 'transport_probe')
    found = .false.
    do i = 0, count - 1
      call check_ok(pgdds_transport_describe(i, attr), 'transport_describe')
      if (attr%transport == 'shm') found = found .or. attr%built
    end do
    call check(found, 'the shared-memory path described, built')
    call check_status(pgdds_transport_describe(count, attr), PGDDS_ERR_INVALID_ARG, 'transport_describe past the last')
  end subroutine

  ! A module variable of every rank, reached through its global pointer: each rank puts into its
  ! right neighbour's static_words(2); the words beside it and their initial values stay.
  subroutine test_static_data()
    integer(PGDDS_GPTR_KIND) :: here, there
    integer :: left, right
    call check_status(pgdds_map_static_data(ctx, 1), PGDDS_ERR_INVALID_ARG, 'map_static_data with an unknown flag')
    call check_ok(pgdds_map_static_data(ctx), 'map_static_data')
    call check_ok(pgdds_gptr_from_local(ctx, c_loc(static_words(2)), here), 'gptr_from_local of a module variable')
    right = mod(me + 1, n)
    left = mod(me - 1 + n, n)
    call check_ok(pgdds_gptr_at(ctx, here, right, there), 'the right neighbour''s copy')
    call check_ok(pgdds_put(ctx, there, 1000_int64 + me), 'put into the neighbour''s module variable')
    call check_ok(pgdds_barrier(ctx), 'barrier')
    call check(static_words(2) == 1000_int64 + left, 'the left neighbour''s put is in the module variable')
    call check(static_words(1) == 11 .and. static_words(3) == 33, 'the words beside it keep their values')
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
