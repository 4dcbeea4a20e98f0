! An outside Fortran program, built against an installed libpgdds with nothing but
! `pkg-config --cflags --libs pgdds` (the module pgdds.mod is on its include path).
program consumer
  use pgdds
  implicit none
  type(pgdds_context) :: ctx
  integer(PGDDS_GPTR_KIND) :: mine
  integer(PGDDS_GPTR_KIND), allocatable :: all(:)
  integer(int64) :: got(2), failed, total
  integer :: me, n

  if (pgdds_init(ctx, segment_size=16_int64 * 1024 * 1024) /= PGDDS_OK) then
    print '(2a)', 'consumer-fortran: pgdds_init: ', pgdds_last_error()
    error stop 1
  end if
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)
  allocate(all(n))
  failed = 0
  if (pgdds_alloc(ctx, 16_int64, mine, alignment=8_int64) /= PGDDS_OK) failed = failed + 1
  if (pgdds_put(ctx, mine, [0_int64, 0_int64]) /= PGDDS_OK) failed = failed + 1
  if (pgdds_allgather(ctx, mine, all) /= PGDDS_OK) failed = failed + 1
  if (pgdds_barrier(ctx) /= PGDDS_OK) failed = failed + 1

  if (pgdds_atomic(ctx, all(1), PGDDS_AOP_ADD, int(me + 1, int64)) /= PGDDS_OK) failed = failed + 1
  if (pgdds_put(ctx, pgdds_gptr_add(all(mod(me + 1, n) + 1), 8_int64), 3000_int64 + me) /= PGDDS_OK) &
    failed = failed + 1
  if (pgdds_barrier(ctx) /= PGDDS_OK) failed = failed + 1
  if (pgdds_get(ctx, got, mine) /= PGDDS_OK) failed = failed + 1
  if (got(2) /= 3000 + mod(me + n - 1, n)) failed = failed + 1
  if (me == 0 .and. got(1) /= n * (n + 1) / 2) failed = failed + 1

  total = failed + 1
  if (pgdds_allreduce(ctx, failed, total, PGDDS_OP_SUM) /= PGDDS_OK) print '(a)', pgdds_last_error()
  if (me == 0) print '(3a, i0, a)', 'consumer-fortran: ', merge('passed', 'FAILED', total == 0), ' on ', n, ' ranks'
  if (pgdds_finalize(ctx) /= PGDDS_OK) error stop 1
  if (total /= 0) error stop 1
end program consumer
