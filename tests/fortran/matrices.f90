! Dense matrices from Fortran: creation and layout, tiles and slices through rank-1 buffers in C's
! row-major order, accumulation from every rank at once (exact sums), C = alpha A B + beta C by
! every algorithm against the product computed here (small whole numbers: exact in double and in
! int64) and with B read transposed, elements, a generator and tiles in place, transpose, add,
! scale, apply, reduce and norm, column-major tiles (Fortran arrays as they are), and bad input:
! buffers and values of the wrong type or too small, negative indexes, tiles outside the grid,
! half of an optional pair.
module matrix_generators
  use, intrinsic :: iso_c_binding
  implicit none
contains
  ! Element (i, j) = 100 i + j, times arg's real(c_double) where arg is given.
  subroutine hundred_i_plus_j(i, j, value, arg) bind(C)
    integer(c_int64_t), value :: i, j
    type(c_ptr), value :: value, arg
    real(c_double), pointer :: v, factor
    call c_f_pointer(value, v)
    v = real(100 * i + j, c_double)
    if (c_associated(arg)) then
      call c_f_pointer(arg, factor)
      v = v * factor
    end if
  end subroutine
  ! Element (i, j) = its value + i - j, plus arg's real(c_double) where arg is given.
  subroutine plus_i_minus_j(i, j, value, arg) bind(C)
    integer(c_int64_t), value :: i, j
    type(c_ptr), value :: value, arg
    real(c_double), pointer :: v, extra
    call c_f_pointer(value, v)
    v = v + real(i - j, c_double)
    if (c_associated(arg)) then
      call c_f_pointer(arg, extra)
      v = v + extra
    end if
  end subroutine
end module

program fortran_matrices
  use matrix_generators
  use pgdds
  use harness
  implicit none

  integer, parameter :: m = 13, k = 11, nc = 9
  type(pgdds_context) :: ctx
  type(pgdds_dmatrix) :: a, b, c, t, ia, ib, ic, g, bt, refused, e, f, cma, cmc, fv
  integer(int64) :: ti, tj
  integer(PGDDS_GPTR_KIND) :: gp
  real(real64), target :: factor
  real(real64) :: value
  real(real64), pointer :: view(:, :)
  real(real32), pointer :: wrong_view(:, :)
  integer :: me, n, owner, alg, gr, gc
  integer(int64) :: rows, cols, trows, tcols, tgr, tgc, i, j, x, bad
  integer(int64) :: own, stolen, steps, cgr, cgc, agc
  real(real64) :: abuf(m * k), bbuf(k * nc), cbuf(m * nc), btbuf(nc * k), want
  real(real64), asynchronous :: tile(16)
  type(pgdds_request) :: req
  integer(int64) :: iabuf(m * k), ibbuf(k * nc), icbuf(m * nc), iwant
  real(real32) :: wrong_type(16)
  real(real64) :: small(3), ebuf(m * k), fbuf(m * k), total, norm
  real(real64) :: afort(m, k), cfort(m, nc), vbuf(12)
  real(real64), pointer :: cview(:, :)
  real(real32) :: wrong_total

  call start(ctx, 32_int64 * 1024 * 1024)
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)

  ! Layout: 13 x 11 in 4 x 4 tiles, block-cyclic over the near-square grid.
  call check_ok(pgdds_dmatrix_create(ctx, a, int(m, int64), int(k, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create A')
  call check_ok(pgdds_dmatrix_info(a, rows=rows, cols=cols, tile_rows=trows, tile_cols=tcols, tile_grid_rows=tgr, &
                                   tile_grid_cols=tgc, grid_rows=gr, grid_cols=gc), 'info')
  call check(rows == m .and. cols == k .and. trows == 4 .and. tcols == 4, 'shape and tile size')
  call check(tgr == 4 .and. tgc == 3 .and. gr * gc == n, 'tile grid and grid of ranks')
  call check_ok(pgdds_dmatrix_tile_shape(a, 3_int64, 2_int64, rows, cols, owner), 'tile_shape')
  call check(rows == 1 .and. cols == 3 .and. owner >= 0 .and. owner < n, 'edge tile shape and owner')
  call check_ok(pgdds_dmatrix_create(ctx, b, int(k, int64), int(nc, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create B')
  call check_ok(pgdds_dmatrix_create(ctx, c, int(m, int64), int(nc, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create C')

  ! Rank 0 writes A and B whole (row-major); the last rank C.
  do i = 0, m - 1
    do j = 0, k - 1
      abuf(i * k + j + 1) = real(mod(i * 7 + j * 3, 5_int64) - 2, real64)
    end do
  end do
  do i = 0, k - 1
    do j = 0, nc - 1
      bbuf(i * nc + j + 1) = real(mod(i * 2 + j * 5, 7_int64) - 3, real64)
    end do
  end do
  if (me == 0) then
    call check_ok(pgdds_dmatrix_put_slice(a, 0_int64, 0_int64, int(m, int64), int(k, int64), abuf), 'put A')
    call check_ok(pgdds_dmatrix_put_slice(b, 0_int64, 0_int64, int(k, int64), int(nc, int64), bbuf), 'put B')
  end if
  call check_ok(pgdds_barrier(ctx), 'barrier')

  ! Every algorithm: C = 2 A B - C0, C0(i, j) = mod(i + j, 3_int64), read back whole by every rank.
  do alg = PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STEAL_LOCALITY
    if (me == n - 1) then
      do i = 0, m - 1
        do j = 0, nc - 1
          cbuf(i * nc + j + 1) = real(mod(i + j, 3_int64), real64)
        end do
      end do
      call check_ok(pgdds_dmatrix_put_slice(c, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf), 'put C')
    end if
    call check_ok(pgdds_barrier(ctx), 'barrier')
    call check_ok(pgdds_dmatrix_gemm(2.0_real64, a, b, -1.0_real64, c, alg), 'gemm')
    cbuf = -99
    call check_ok(pgdds_dmatrix_get_slice(c, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf), 'get C')
    bad = 0
    do i = 0, m - 1
      do j = 0, nc - 1
        want = -real(mod(i + j, 3_int64), real64)
        do x = 0, k - 1
          want = want + 2 * abuf(i * k + x + 1) * bbuf(x * nc + j + 1)
        end do
        if (cbuf(i * nc + j + 1) /= want) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'C = 2 A B - C0 by every algorithm')
    ! Work stealing: every step of the product once over the ranks (C's tiles times A's tile
    ! columns); the other algorithms count none.
    call check_ok(pgdds_dmatrix_steals(c, own_steps=own, stolen_steps=stolen), 'steals')
    call check_ok(pgdds_dmatrix_info(c, tile_grid_rows=cgr, tile_grid_cols=cgc), 'info C')
    call check_ok(pgdds_dmatrix_info(a, tile_grid_cols=agc), 'info A')
    call check_ok(pgdds_allreduce(ctx, own + stolen, steps, PGDDS_OP_SUM), 'allreduce steps')
    if (alg >= PGDDS_GEMM_STEAL_RANDOM) then
      call check(steps == cgr * cgc * agc, 'work stealing computes every step once')
    else
      call check(steps == 0, 'no steals counted without work stealing')
    end if
    call check_ok(pgdds_barrier(ctx), 'barrier')
  end do

  ! C = A (B^T)^T: B stored transposed (nc x k, tiles 4 x 4) and read transposed in place, by
  ! every algorithm (SUMMA multiplies a transposed copy).
  call check_ok(pgdds_dmatrix_create(ctx, bt, int(nc, int64), int(k, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create B^T')
  if (me == 0) then
    do i = 0, nc - 1
      do j = 0, k - 1
        btbuf(i * k + j + 1) = bbuf(j * nc + i + 1)
      end do
    end do
    call check_ok(pgdds_dmatrix_put_slice(bt, 0_int64, 0_int64, int(nc, int64), int(k, int64), btbuf), 'put B^T')
  end if
  call check_ok(pgdds_barrier(ctx), 'barrier')
  do alg = PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STEAL_LOCALITY
    call check_ok(pgdds_dmatrix_gemm(1.0_real64, a, bt, 0.0_real64, c, alg, trans_b=PGDDS_TRANS), 'gemm with B^T')
    call check_ok(pgdds_dmatrix_get_slice(c, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf), 'get C')
    bad = 0
    do i = 0, m - 1
      do j = 0, nc - 1
        want = 0
        do x = 0, k - 1
          want = want + abuf(i * k + x + 1) * bbuf(x * nc + j + 1)
        end do
        if (cbuf(i * nc + j + 1) /= want) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'C = A B with B read transposed')
    call check_ok(pgdds_barrier(ctx), 'barrier')
  end do
  call check_status(pgdds_dmatrix_gemm(1.0_real64, a, bt, 0.0_real64, c, trans_a=PGDDS_TRANS), PGDDS_ERR_INVALID_ARG, &
                    'A^T does not conform')
  call check_ok(pgdds_dmatrix_destroy(bt), 'destroy B^T')

  ! int64: the same product, exact.
  call check_ok(pgdds_dmatrix_create(ctx, ia, int(m, int64), int(k, int64), PGDDS_INT64, PGDDS_DIST_BLOCK_ROW), 'int A')
  call check_ok(pgdds_dmatrix_create(ctx, ib, int(k, int64), int(nc, int64), PGDDS_INT64, PGDDS_DIST_BLOCK_ROW, &
                                     grid_rows=n, grid_cols=1), 'int B')
  call check_ok(pgdds_dmatrix_create(ctx, ic, int(m, int64), int(nc, int64), PGDDS_INT64, PGDDS_DIST_CUSTOM, &
                                     grid_rows=n, grid_cols=1, tile_rows=(m + n - 1) / int(n, int64), &
                                     tile_cols=int(nc, int64)), 'int C')
  iabuf = int(abuf, int64)
  ibbuf = int(bbuf, int64)
  if (me == 0) then
    call check_ok(pgdds_dmatrix_put_slice(ia, 0_int64, 0_int64, int(m, int64), int(k, int64), iabuf), 'put int A')
    call check_ok(pgdds_dmatrix_put_slice(ib, 0_int64, 0_int64, int(k, int64), int(nc, int64), ibbuf), 'put int B')
  end if
  call check_ok(pgdds_barrier(ctx), 'barrier')
  ! A's tile columns must be B's tile rows: block-row tiles of A span all k columns, and so do
  ! B's tiles only with one tile row, which a grid of one rank row gives.
  call check_status(pgdds_dmatrix_gemm(1.0_real64, ia, ib, 0.0_real64, ic), merge(PGDDS_OK, PGDDS_ERR_INVALID_ARG, n == 1), &
                    'int gemm conforms only where the tilings do')
  call check_ok(pgdds_dmatrix_destroy(ib), 'destroy int B')
  call check_ok(pgdds_dmatrix_create(ctx, ib, int(k, int64), int(nc, int64), PGDDS_INT64, PGDDS_DIST_CUSTOM, &
                                     grid_rows=n, grid_cols=1, tile_rows=int(k, int64), tile_cols=int(nc, int64)), &
                'int B, one tile row')
  if (me == 0) call check_ok(pgdds_dmatrix_put_slice(ib, 0_int64, 0_int64, int(k, int64), int(nc, int64), ibbuf), &
                             'put int B')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  call check_ok(pgdds_dmatrix_gemm(1.0_real64, ia, ib, 0.0_real64, ic, PGDDS_GEMM_STATIONARY_A), 'int gemm')
  call check_ok(pgdds_dmatrix_get_slice(ic, 0_int64, 0_int64, int(m, int64), int(nc, int64), icbuf), 'get int C')
  bad = 0
  do i = 0, m - 1
    do j = 0, nc - 1
      iwant = 0
      do x = 0, k - 1
        iwant = iwant + iabuf(i * k + x + 1) * ibbuf(x * nc + j + 1)
      end do
      if (icbuf(i * nc + j + 1) /= iwant) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'int64 C = A B')

  ! Accumulation: every rank adds rank + 1 into every tile of a 10 x 10 matrix of 4 x 4 tiles.
  call check_ok(pgdds_dmatrix_create(ctx, t, 10_int64, 10_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create T')
  tile = real(me + 1, real64)
  do i = 0, 2
    do j = 0, 2
      call check_ok(pgdds_dmatrix_accumulate_tile(t, i, j, tile, 4_int64), 'accumulate')
    end do
  end do
  call check_ok(pgdds_barrier(ctx), 'barrier')
  call check_ok(pgdds_dmatrix_get_tile(t, 2_int64, 2_int64, tile, 4_int64), 'get edge tile')
  call check(all(tile([1, 2, 5, 6]) == real(n * (n + 1) / 2, real64)), 'every rank''s addition in the edge tile')
  tile = 0
  call check_ok(pgdds_dmatrix_get_tile(t, 0_int64, 1_int64, tile), 'get tile, ld left out')
  call check(all(tile == real(n * (n + 1) / 2, real64)), 'every rank''s addition in a whole tile')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  if (me == 0) then
    tile = [(real(x, real64), x = 1, 16)]
    call check_ok(pgdds_dmatrix_put_tile(t, 1_int64, 1_int64, tile), 'put tile')
    tile = 0
    call check_ok(pgdds_dmatrix_get_tile(t, 1_int64, 1_int64, tile), 'get tile')
    call check(all(tile == [(real(x, real64), x = 1, 16)]), 'a tile put and read back')
  end if

  ! The same with requests: every rank adds 1 into tile (0, 0) (the buffer reused at once: the call
  ! copies it), the last rank puts tile (0, 2) (4 x 2), and each reads tile (0, 0) by a request.
  call check_ok(pgdds_barrier(ctx), 'barrier')
  tile = 1.0_real64
  call check_ok(pgdds_dmatrix_accumulate_tile_nb(t, 0_int64, 0_int64, tile, req), 'accumulate_tile_nb')
  tile = 99.0_real64
  call check_ok(pgdds_wait(ctx, req), 'wait for the accumulation')
  if (me == n - 1) then
    tile(1:8) = [(real(-x, real64), x = 1, 8)]
    call check_ok(pgdds_dmatrix_put_tile_nb(t, 0_int64, 2_int64, tile, req), 'put_tile_nb')
    call check_ok(pgdds_wait(ctx, req), 'wait for the put')
    call check_ok(pgdds_flush(ctx), 'flush the put')
  end if
  call check_ok(pgdds_barrier(ctx), 'barrier')
  tile = 0
  call check_ok(pgdds_dmatrix_get_tile_nb(t, 0_int64, 0_int64, tile, req), 'get_tile_nb')
  call check_ok(pgdds_wait(ctx, req), 'wait for the get')
  call check(all(tile == real(n * (n + 1) / 2 + n, real64)), 'every rank''s non-blocking addition')
  tile = 0
  call check_ok(pgdds_dmatrix_get_tile(t, 0_int64, 2_int64, tile), 'get the tile put')
  call check(all(tile(1:8) == [(real(-x, real64), x = 1, 8)]), 'a tile put by a request')
  call check_status(pgdds_dmatrix_get_tile_nb(t, 3_int64, 0_int64, tile, req), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'get_tile_nb outside the grid')
  call check_status(pgdds_dmatrix_put_tile_nb(t, 0_int64, 0_int64, small, req), PGDDS_ERR_INVALID_ARG, &
                    'put_tile_nb buffer too small')
  call check_status(pgdds_dmatrix_accumulate_tile_nb(t, 0_int64, 0_int64, wrong_type, req), PGDDS_ERR_INVALID_ARG, &
                    'accumulate_tile_nb real32 buffer')
  call check_ok(pgdds_barrier(ctx), 'barrier')

  ! Elements, a generator and tiles in place: G (10 x 7 in 4 x 3 tiles) filled from a bind(C)
  ! generator with and without its argument, read back element by element; each rank writes the
  ! first element of each tile it holds through the tile in place (view(j + 1, i + 1) is the
  ! tile's element (i, j)), rank 0 puts one element, and every rank reads them.
  call check_ok(pgdds_dmatrix_create(ctx, g, 10_int64, 7_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=3_int64), 'create G')
  factor = 2
  call check_ok(pgdds_dmatrix_fill(g, hundred_i_plus_j, c_loc(factor)), 'fill G, with an argument')
  bad = 0
  do i = 0, 9
    do j = 0, 6
      call check_ok(pgdds_dmatrix_get(g, i, j, value), 'get an element')
      if (value /= 2 * (100 * i + j)) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'every element from the generator and its argument')
  call check_ok(pgdds_barrier(ctx), 'barrier')  ! every rank has read G before it is filled again
  call check_ok(pgdds_dmatrix_fill(g, hundred_i_plus_j), 'fill G')
  call check_ok(pgdds_dmatrix_info(g, tile_grid_rows=tgr, tile_grid_cols=tgc), 'info G')
  bad = 0
  do ti = 0, tgr - 1
    do tj = 0, tgc - 1
      call check_ok(pgdds_dmatrix_tile_shape(g, ti, tj, rows, cols, owner), 'tile_shape G')
      if (owner /= me) then
        call check_status(pgdds_dmatrix_local_tile(g, ti, tj, view), PGDDS_ERR_INVALID_ARG, 'another rank''s tile in place')
        cycle
      end if
      call check_ok(pgdds_dmatrix_local_tile(g, ti, tj, view), 'local tile')
      call check_ok(pgdds_dmatrix_tile_gptr(g, ti, tj, gp), 'tile_gptr')
      if (.not. c_associated(pgdds_gptr_to_local(ctx, gp), c_loc(view(1, 1)))) bad = bad + 1
      if (size(view, 1) /= cols .or. size(view, 2) /= rows) then
        bad = bad + 1
        cycle
      end if
      do i = 0, rows - 1
        do j = 0, cols - 1
          if (view(j + 1, i + 1) /= 100 * (ti * 4 + i) + tj * 3 + j) bad = bad + 1
        end do
      end do
      view(1, 1) = -1
    end do
  end do
  call check(bad == 0, 'each tile this rank holds, in place')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  if (me == 0) call check_ok(pgdds_dmatrix_put(g, 9_int64, 6_int64, 5.5_real64), 'put an element')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  bad = 0
  do i = 0, 9
    do j = 0, 6
      call check_ok(pgdds_dmatrix_get(g, i, j, value), 'get an element')
      want = real(100 * i + j, real64)
      if (mod(i, 4_int64) == 0 .and. mod(j, 3_int64) == 0) want = -1
      if (i == 9 .and. j == 6) want = 5.5_real64
      if (value /= want) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'elements written in place and by a put')
  call check_status(pgdds_dmatrix_get(g, 0_int64, 0_int64, wrong_type(1)), PGDDS_ERR_INVALID_ARG, 'get, real32 value')
  call check_status(pgdds_dmatrix_put(g, 0_int64, 0_int64, 1_int64), PGDDS_ERR_INVALID_ARG, 'put, int64 value')
  call check_status(pgdds_dmatrix_get(g, 10_int64, 0_int64, value), PGDDS_ERR_OUT_OF_BOUNDS, 'get outside the matrix')
  call check_status(pgdds_dmatrix_put(g, 0_int64, -1_int64, value), PGDDS_ERR_OUT_OF_BOUNDS, 'put, negative column')
  call check_status(pgdds_dmatrix_local_tile(g, 0_int64, 0_int64, wrong_view), PGDDS_ERR_INVALID_ARG, &
                    'local tile, view of the wrong type')
  call check_status(pgdds_dmatrix_local_tile(g, tgr, 0_int64, view), PGDDS_ERR_OUT_OF_BOUNDS, 'local tile outside the grid')
  call check_status(pgdds_dmatrix_tile_gptr(g, 0_int64, -1_int64, gp), PGDDS_ERR_OUT_OF_BOUNDS, 'tile_gptr, negative index')
  call check_ok(pgdds_dmatrix_destroy(g), 'destroy G')

  ! Bad input: nothing is read or written past a buffer, nothing of the wrong type.
  call check_status(pgdds_dmatrix_get_tile(t, 0_int64, 0_int64, wrong_type), PGDDS_ERR_INVALID_ARG, 'real32 buffer')
  call check_status(pgdds_dmatrix_get_tile(t, 0_int64, 0_int64, small), PGDDS_ERR_INVALID_ARG, 'buffer too small')
  call check_status(pgdds_dmatrix_put_slice(t, 0_int64, 0_int64, 2_int64, 2_int64, small), PGDDS_ERR_INVALID_ARG, &
                    'slice buffer too small')
  call check_status(pgdds_dmatrix_get_tile(t, 0_int64, 0_int64, tile, 2_int64), PGDDS_ERR_INVALID_ARG, 'ld below columns')
  call check_status(pgdds_dmatrix_get_tile(t, 0_int64, 0_int64, tile, -1_int64), PGDDS_ERR_INVALID_ARG, 'negative ld')
  call check_status(pgdds_dmatrix_get_tile(t, 3_int64, 0_int64, tile), PGDDS_ERR_OUT_OF_BOUNDS, 'tile outside the grid')
  call check_status(pgdds_dmatrix_get_tile(t, -1_int64, 0_int64, tile), PGDDS_ERR_OUT_OF_BOUNDS, 'negative tile index')
  call check_status(pgdds_dmatrix_get_slice(t, 8_int64, 0_int64, 3_int64, 1_int64, tile), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'slice leaving the matrix')
  call check_status(pgdds_dmatrix_get_slice(t, -1_int64, 0_int64, 1_int64, 1_int64, tile), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'negative row')
  call check_status(pgdds_dmatrix_tile_shape(t, 0_int64, 3_int64), PGDDS_ERR_OUT_OF_BOUNDS, 'tile_shape outside')
  call check_status(pgdds_dmatrix_create(ctx, refused, 4_int64, 4_int64, PGDDS_DOUBLE, PGDDS_DIST_CUSTOM, grid_rows=n), &
                    PGDDS_ERR_INVALID_ARG, 'grid_rows without grid_cols')
  call check_status(pgdds_dmatrix_create(ctx, refused, -4_int64, 4_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW), &
                    PGDDS_ERR_INVALID_ARG, 'negative rows')
  call check_status(pgdds_dmatrix_create(ctx, refused, 4_int64, 4_int64, 9, PGDDS_DIST_BLOCK_ROW), PGDDS_ERR_INVALID_ARG, &
                    'unknown type')
  call check_status(pgdds_dmatrix_gemm(1.0_real64, a, b, 0.0_real64, a), PGDDS_ERR_INVALID_ARG, 'C is A')

  call check_ok(pgdds_dmatrix_destroy(t), 'destroy T')
  ! Element-wise: E = A^T and F = A^T in two layouts, E = 3 E, F = E - F (2 A^T), F(i, j) + i - j,
  ! its sum and its largest row sum, against A read here.
  call check_ok(pgdds_dmatrix_get_slice(a, 0_int64, 0_int64, int(m, int64), int(k, int64), abuf), 'get A')
  call check_ok(pgdds_dmatrix_create(ctx, e, int(k, int64), int(m, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW), 'E')
  call check_ok(pgdds_dmatrix_create(ctx, f, int(k, int64), int(m, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=3_int64, tile_cols=5_int64), 'F')
  call check_ok(pgdds_dmatrix_transpose(a, e), 'transpose into E')
  call check_ok(pgdds_dmatrix_transpose(a, f), 'transpose into F')
  call check_ok(pgdds_dmatrix_scale(3.0_real64, e), 'scale')
  call check_ok(pgdds_dmatrix_add(1.0_real64, e, -1.0_real64, f), 'add')
  factor = 0.5_real64
  call check_ok(pgdds_dmatrix_apply(f, plus_i_minus_j, c_loc(factor)), 'apply')
  ! ebuf: 2 A^T + i - j + 0.5, row-major k x m.
  do i = 0, k - 1
    do j = 0, m - 1
      ebuf(i * m + j + 1) = 2 * abuf(j * k + i + 1) + real(i - j, real64) + 0.5_real64
    end do
  end do
  call check_ok(pgdds_dmatrix_get_slice(f, 0_int64, 0_int64, int(k, int64), int(m, int64), fbuf), 'get F')
  call check(all(fbuf == ebuf), 'F = 2 A^T + i - j + 0.5')
  call check_ok(pgdds_dmatrix_reduce(f, PGDDS_OP_SUM, total), 'reduce')
  call check(total == sum(ebuf), 'the sum of F')
  call check_ok(pgdds_dmatrix_norm(f, PGDDS_NORM_INF, norm), 'norm')
  call check(norm == maxval(sum(abs(reshape(ebuf, [m, k])), dim=1)), 'the largest row sum of F')
  call check_status(pgdds_dmatrix_reduce(f, PGDDS_OP_SUM, wrong_total), PGDDS_ERR_INVALID_ARG, 'reduce into a real32')
  call check_status(pgdds_dmatrix_reduce(f, PGDDS_OP_BAND, total), PGDDS_ERR_INVALID_ARG, 'a bitwise op on doubles')
  call check_status(pgdds_dmatrix_transpose(a, c), PGDDS_ERR_INVALID_ARG, 'A^T into a 13 x 9 matrix')
  call check_status(pgdds_dmatrix_add(1.0_real64, a, 1.0_real64, e), PGDDS_ERR_INVALID_ARG, 'A + E (13x11, 11x13)')
  ! A view of F^T's [1, 4) x [2, 6): column-major (F is row-major), F's own elements.
  call check_ok(pgdds_dmatrix_view(f, fv, 1_int64, 2_int64, 3_int64, 4_int64, trans=PGDDS_TRANS), 'view')
  call check_ok(pgdds_dmatrix_get_slice(fv, 0_int64, 0_int64, 3_int64, 4_int64, vbuf), 'slice of the view')
  bad = 0
  do i = 0, 2
    do j = 0, 3
      if (vbuf(j * 3 + i + 1) /= ebuf((2 + j) * m + 1 + i + 1)) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'a transposed view of F')
  call check_ok(pgdds_dmatrix_reduce(fv, PGDDS_OP_SUM, total), 'reduce over the view')
  call check(total == sum(vbuf), 'the sum of the view')
  call check_status(pgdds_dmatrix_view(f, refused, 0_int64, 0_int64, 99_int64, 1_int64), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'a view outside F')
  call check_status(pgdds_dmatrix_get_tile(fv, 0_int64, 0_int64, vbuf), PGDDS_ERR_INVALID_ARG, 'a view has no tiles')
  call check_ok(pgdds_dmatrix_destroy(fv), 'destroy the view')
  call check_ok(pgdds_dmatrix_destroy(f), 'destroy F')
  call check_ok(pgdds_dmatrix_destroy(e), 'destroy E')

  ! Column-major tiles: a Fortran array goes in as it is, a local tile is view(i + 1, j + 1), and
  ! C = A B lands column-major; a buffer's ld counts its rows.
  call check_ok(pgdds_dmatrix_create(ctx, cma, int(m, int64), int(k, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64, order=PGDDS_COL_MAJOR), 'column-major A')
  call check_ok(pgdds_dmatrix_create(ctx, cmc, int(m, int64), int(nc, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64, order=PGDDS_COL_MAJOR), 'column-major C')
  call check_ok(pgdds_dmatrix_get_slice(b, 0_int64, 0_int64, int(k, int64), int(nc, int64), bbuf), 'get B')
  afort = transpose(reshape(abuf, [k, m]))
  if (me == 0) call check_ok(pgdds_dmatrix_put_slice(cma, 0_int64, 0_int64, int(m, int64), int(k, int64), &
                                                     reshape(afort, [m * k])), 'put A column-major')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  bad = 0
  do ti = 0, 3
    do tj = 0, 2
      call check_ok(pgdds_dmatrix_tile_shape(cma, ti, tj, rows, cols, owner), 'tile_shape')
      if (owner /= me) cycle
      call check_ok(pgdds_dmatrix_local_tile(cma, ti, tj, cview), 'column-major local_tile')
      call check(size(cview, 1) == rows .and. size(cview, 2) == cols, 'a column-major view is rows x cols')
      do i = 0, rows - 1
        do j = 0, cols - 1
          if (cview(i + 1, j + 1) /= afort(ti * 4 + i + 1, tj * 4 + j + 1)) bad = bad + 1
        end do
      end do
    end do
  end do
  call check(bad == 0, 'column-major tiles in place, view(i + 1, j + 1)')
  call check_ok(pgdds_dmatrix_gemm(1.0_real64, cma, b, 0.0_real64, cmc), 'gemm into column-major C')
  call check_ok(pgdds_dmatrix_get_slice(cmc, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf), 'get C')
  cfort = reshape(cbuf, [m, nc])
  call check(all(cfort == matmul(afort, transpose(reshape(bbuf, [nc, k])))), 'C = A B, column-major')
  call check_status(pgdds_dmatrix_get_slice(cmc, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf, ld=3_int64), &
                    PGDDS_ERR_INVALID_ARG, 'a column-major slice with ld below its rows')
  call check_status(pgdds_dmatrix_create(ctx, refused, int(m, int64), int(k, int64), PGDDS_DOUBLE, &
                                         PGDDS_DIST_BLOCK_CYCLIC, order=7_c_int), PGDDS_ERR_INVALID_ARG, 'order 7')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  call check_ok(pgdds_dmatrix_destroy(cmc), 'destroy column-major C')
  call check_ok(pgdds_dmatrix_destroy(cma), 'destroy column-major A')

  call check_ok(pgdds_dmatrix_destroy(ic), 'destroy int C')
  call check_ok(pgdds_dmatrix_destroy(ib), 'destroy int B')
  call check_ok(pgdds_dmatrix_destroy(ia), 'destroy int A')
  call check_ok(pgdds_dmatrix_destroy(c), 'destroy C')
  call check_ok(pgdds_dmatrix_destroy(b), 'destroy B')
  call check_ok(pgdds_dmatrix_destroy(a), 'destroy A')
  call check_status(pgdds_dmatrix_destroy(a), PGDDS_ERR_INVALID_ARG, 'destroyed twice')
  call finish(ctx, 'fortran matrices')
end program
