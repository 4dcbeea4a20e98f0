! The Fortran counterpart of tests/harness.h: checks that count failures and name the rank and
! the check, a collective verdict, and the exit status meson expects (0 pass, 1 fail, 77 skip).
module harness
  use pgdds
  implicit none
  private
  public :: start, check, check_ok, check_status, finish

  integer :: failures = 0
  integer :: me = -1

contains

  ! Initializes with the environment's configuration and checks the transport in use. Skips only
  ! where verbs, asked for, is unsupported here (no RDMA device); any other failure fails.
  subroutine start(ctx, segment_size)
    type(pgdds_context), intent(out) :: ctx
    integer(int64), intent(in) :: segment_size
    integer(c_int) :: st
    character(len=:), allocatable :: want
    want = env('PGDDS_TRANSPORT')
    st = pgdds_init(ctx, segment_size=segment_size)
    if (st == PGDDS_ERR_UNSUPPORTED .and. want == 'verbs') then
      print '(a)', 'SKIP: ' // pgdds_last_error()
      stop 77
    end if
    if (st /= PGDDS_OK) then
      print '(a)', 'FAIL: pgdds_init: ' // pgdds_last_error()
      error stop 1
    end if
    me = pgdds_rank(ctx)
    call check_transport(ctx)
  end subroutine

  ! The transport in use is the one the configuration asked for (PGDDS_TRANSPORT,
  ! PGDDS_OFI_PROVIDER, UCX_TLS, PGDDS_SHM), as tests/harness.h's t_check_transport.
  subroutine check_transport(ctx)
    type(pgdds_context), intent(in) :: ctx
    character(len=:), allocatable :: want, provider, tls, shm, name, expected
    logical :: full, shm_joins
    integer :: local
    ! Every value is read first: in a logical expression an impure call might not be evaluated.
    want = env('PGDDS_TRANSPORT')
    provider = env('PGDDS_OFI_PROVIDER')
    tls = env('UCX_TLS')
    shm = env('PGDDS_SHM')
    local = pgdds_local_nranks(ctx)
    if (want == '' .or. want == 'auto') return
    name = pgdds_transport_name(ctx)
    if (want == 'shm') then
      call check(name == 'shm', 'PGDDS_TRANSPORT=shm, but the transport is ' // name)
      return
    end if
    ! Without a provider or TLS named, only the transport's prefix is known.
    expected = want // '/'
    if (want == 'ofi' .and. provider /= '') expected = 'ofi/' // provider
    if (want == 'ucx' .and. tls /= '' .and. index(tls, ',') == 0) expected = 'ucx/' // tls
    full = expected(len(expected):) /= '/'
    ! The on-node path joins when it may and some peer is on this node (or PGDDS_SHM=on).
    shm_joins = shm /= 'off' .and. (local > 1 .or. shm == 'on')
    if (full .and. shm_joins) expected = expected // '+shm'
    if (full) then
      call check(name == expected, 'the configuration asks for ' // expected // ', but the transport is ' // name)
    else
      call check(index(name, expected) == 1, 'the configuration asks for ' // expected // '..., but the transport is ' // name)
    end if
  end subroutine

  function env(var) result(value)
    character(len=*), intent(in) :: var
    character(len=:), allocatable :: value
    integer :: length
    call get_environment_variable(var, length=length)
    allocate(character(len=length) :: value)
    if (length > 0) call get_environment_variable(var, value)
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    failures = failures + 1
    print '(a, i0, 2a)', 'FAIL rank ', me, ': ', what
  end subroutine

  ! Expects PGDDS_OK; reports the library's explanation otherwise.
  subroutine check_ok(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    call check_status(st, PGDDS_OK, what)
  end subroutine

  ! Expects a given status, and a message with any failure.
  subroutine check_status(st, expected, what)
    integer(c_int), intent(in) :: st, expected
    character(len=*), intent(in) :: what
    character(len=:), allocatable :: message
    message = pgdds_last_error()
    if (st /= expected) then
      failures = failures + 1
      print '(a, i0, 3a, i0, a, i0, 2a)', 'FAIL rank ', me, ': ', what, ' returned ', st, ', expected ', &
        expected, ': ', message
    else if (expected /= PGDDS_OK .and. len(message) == 0) then
      failures = failures + 1
      print '(a, i0, 3a)', 'FAIL rank ', me, ': ', what, ' gave no pgdds_last_error() message'
    end if
  end subroutine

  ! Every rank learns the number of failed checks; finalizes; fails the program if any.
  subroutine finish(ctx, name)
    type(pgdds_context), intent(inout) :: ctx
    character(len=*), intent(in) :: name
    integer(int64) :: mine, total
    integer :: n
    mine = failures
    total = mine + 1
    if (pgdds_allreduce(ctx, mine, total, PGDDS_OP_SUM) /= PGDDS_OK) &
      print '(a, i0, 2a)', 'FAIL rank ', me, ': final allreduce: ', pgdds_last_error()
    n = pgdds_nranks(ctx)
    if (me == 0) print '(3a, i0, 3a, i0, a)', name, merge(': passed', ': FAILED', total == 0), ' on ', n, &
      ' ranks over ', pgdds_transport_name(ctx), ' (', total, ' failed checks)'
    if (pgdds_finalize(ctx) /= PGDDS_OK) then
      print '(a, i0, 2a)', 'FAIL rank ', me, ': pgdds_finalize: ', pgdds_last_error()
      error stop 1
    end if
    if (total /= 0) error stop 1
  end subroutine

end module harness
