! Teams from Fortran: strided and 2D splits, rank translation, every team collective with exact
! integer results, and the null team a split gives non-members.
program fortran_teams
  use pgdds
  use harness
  implicit none

  type(pgdds_context) :: ctx
  type(pgdds_team) :: world, node, odd, row, col
  integer :: me, n, tr, ts, r, k, w
  integer(int64) :: v(2), s(2), gathered(64), swapped(64), mine(64)
  integer(int32) :: vin(8), vout(64)
  integer :: counts(64), rcounts(64)

  call start(ctx, 32_int64 * 1024 * 1024)
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)
  call check_ok(pgdds_team_world(ctx, world), 'pgdds_team_world')
  call check_ok(pgdds_team_node(ctx, node), 'pgdds_team_node')
  call check_ok(pgdds_team_size(node, ts), 'node team size')
  call check(ts == n, 'every rank on this node')

  ! The odd ranks.
  call check_ok(pgdds_team_split_strided(world, 1, 2, n / 2, odd), 'split strided')
  call check(pgdds_team_is_null(odd) .eqv. (mod(me, 2) == 0), 'non-members get the null team')
  if (.not. pgdds_team_is_null(odd)) then
    call check_ok(pgdds_team_rank(odd, tr), 'team rank')
    call check_ok(pgdds_team_size(odd, ts), 'team size')
    call check(tr == me / 2 .and. ts == n / 2, 'odd team rank and size')
    call check_ok(pgdds_team_translate_rank(odd, ts - 1, world, w), 'translate')
    call check(w == 2 * ts - 1, 'translated rank')
    v = [int(me, int64), 1_int64]
    call check_ok(pgdds_team_allreduce(odd, v, s, PGDDS_OP_SUM), 'team allreduce')
    call check(s(1) == int(ts, int64) * ts .and. s(2) == ts, 'sum of the odd ranks')
    s = -1
    call check_ok(pgdds_team_reduce(odd, v, s, PGDDS_OP_MAX, 0), 'team reduce')
    if (tr == 0) call check(s(1) == 2 * ts - 1 .and. s(2) == 1, 'max at the root')
    call check_ok(pgdds_team_barrier(odd), 'team barrier')
    call check_ok(pgdds_team_destroy(odd), 'team destroy')
  end if
  call check_status(pgdds_team_barrier(odd), PGDDS_ERR_INVALID_ARG, 'a null or destroyed team')

  ! Rows of two and columns.
  call check_ok(pgdds_team_split_2d(world, 2, row, col), 'split 2d')
  call check_ok(pgdds_team_rank(row, tr), 'row rank')
  call check(tr == mod(me, 2), 'row rank is the column')
  call check_ok(pgdds_team_size(col, ts), 'column size')
  v = [int(me, int64), 1_int64]
  call check_ok(pgdds_team_broadcast(col, v, 0), 'team broadcast')
  call check(v(1) == mod(me, 2), 'broadcast from the top of the column')

  ! The world team: allgather, allgather-v, all-to-all, all-to-all-v.
  call check_ok(pgdds_team_allgather(world, [int(me, int64) * 3], gathered), 'team allgather')
  call check(all(gathered(1:n) == [(int(k, int64) * 3, k = 0, n - 1)]), 'allgather arrived')
  counts(1:n) = [(k + 1, k = 0, n - 1)]
  vin = int(me, int32)
  call check_ok(pgdds_team_allgatherv(world, vin(1:me + 1), vout, counts(1:n)), 'team allgatherv')
  k = 0
  do r = 0, n - 1
    call check(all(vout(k + 1:k + r + 1) == r), 'allgatherv block')
    k = k + r + 1
  end do
  mine(1:n) = [(int(me, int64) * 100 + k, k = 0, n - 1)]
  call check_ok(pgdds_team_alltoall(world, mine(1:n), swapped(1:n)), 'team alltoall')
  call check(all(swapped(1:n) == [(int(k, int64) * 100 + me, k = 0, n - 1)]), 'alltoall arrived')
  ! Rank me sends one element to each rank, except none to itself.
  counts(1:n) = 1
  counts(me + 1) = 0
  rcounts(1:n) = counts(1:n)
  vin(1:n - 1) = int(me, int32)
  vout = -1
  call check_ok(pgdds_team_alltoallv(world, vin(1:n - 1), counts(1:n), vout, rcounts(1:n)), 'team alltoallv')
  call check(all(vout(1:n - 1) == pack([(k, k = 0, n - 1)], [(k /= me, k = 0, n - 1)])), 'alltoallv arrived')

  call check_ok(pgdds_team_destroy(row), 'destroy row')
  call check_ok(pgdds_team_destroy(col), 'destroy column')
  call finish(ctx, 'fortran/teams')
end program
