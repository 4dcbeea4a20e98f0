! Sparse matrices from Fortran: a 13 x 11 matrix from coordinate triples given by every rank
! (duplicates summed), its shape, entry count and dense slices; C = A B with B dense by every
! algorithm, and A D with D sparse (SpGEMM) by every algorithm, against products computed here
! (small whole numbers: exact in double), with work stealing's counts; A's CSR tiles copied and
! in place; the stencil and R-MAT generators; a Matrix Market round trip; and bad input: arrays
! of different lengths or the wrong type, negative sizes, half of an optional pair.
program fortran_sparse
  use pgdds
  use harness
  implicit none

  integer, parameter :: m = 13, k = 11, nc = 5
  type(pgdds_context) :: ctx
  type(pgdds_smatrix) :: a, d, p, s, g, back, refused, at, a3
  type(pgdds_dmatrix) :: b, c
  integer :: me, n, alg, q
  integer(int64) :: rows, cols, nnz, i, j, x, bad, own, stolen, steps, tgr, tgc, agc, seed
  integer(int64), allocatable :: ri(:), ci(:)
  real(real64), allocatable :: v(:)
  real(real64) :: adense(m * k), got(m * k), bbuf(k * nc), cbuf(m * nc), want, sbuf(27 * 27), sback(27 * 27)
  real(real32) :: wrong_type(4)
  integer(int64) :: ti, tj, tnnz, offs(5), cols_of(16)
  integer :: owner
  real(real64) :: vals(16), tdense(16), total, norm
  real(real32) :: wrong_total
  integer(int64), pointer :: loff(:), lcol(:)
  real(real64), pointer :: lval(:)
  real(real32), pointer :: wrong_view(:)
  character(len=64) :: path

  call start(ctx, 32_int64 * 1024 * 1024)
  me = pgdds_rank(ctx)
  n = pgdds_nranks(ctx)

  ! A: every rank gives rows i with mod(i, n) == me two entries, (i, mod(i, k)) = i + 1 and
  ! (i, mod(3 i + 1, k)) = 2, which fall on one entry (summed) for some rows; the whole matrix,
  ! as every rank computes it here, in adense.
  adense = 0
  do i = 0, m - 1
    adense(i * k + mod(i, int(k, int64)) + 1) = adense(i * k + mod(i, int(k, int64)) + 1) + real(i + 1, real64)
    adense(i * k + mod(3 * i + 1, int(k, int64)) + 1) = adense(i * k + mod(3 * i + 1, int(k, int64)) + 1) + 2
  end do
  allocate(ri(0), ci(0), v(0))
  do i = 0, m - 1
    if (mod(i, int(n, int64)) /= me) cycle
    ri = [ri, i, i]
    ci = [ci, mod(i, int(k, int64)), mod(3 * i + 1, int(k, int64))]
    v = [v, real(i + 1, real64), 2.0_real64]
  end do
  call check_ok(pgdds_smatrix_create_coo(ctx, a, int(m, int64), int(k, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                         ri, ci, v, tile_rows=4_int64, tile_cols=4_int64), 'create A from triples')
  call check_ok(pgdds_smatrix_info(a, rows=rows, cols=cols, nnz=nnz, tile_grid_cols=agc), 'info A')
  call check(rows == m .and. cols == k .and. nnz == count(adense /= 0) .and. agc == 3, 'A''s shape, entries, tiles')
  got = -1
  call check_ok(pgdds_smatrix_get_slice(a, 0_int64, 0_int64, int(m, int64), int(k, int64), got), 'slice of A')
  call check(all(got == adense), 'A read back whole, zeros where no entry')

  ! Element-wise: A^T (a new matrix), A + 2 A, scaling, a reduction and a norm of A's entries.
  call check_ok(pgdds_smatrix_transpose(a, at), 'transpose')
  call check_ok(pgdds_smatrix_get_slice(at, 0_int64, 0_int64, int(k, int64), int(m, int64), got), 'slice of A^T')
  call check(all(reshape(got, [m, k]) == transpose(reshape(adense, [k, m]))), 'A^T')
  call check_ok(pgdds_smatrix_add(1.0_real64, a, 2.0_real64, a, a3), 'add')
  call check_ok(pgdds_smatrix_get_slice(a3, 0_int64, 0_int64, int(m, int64), int(k, int64), got), 'slice of 3 A')
  call check(all(got == 3 * adense), 'A + 2 A')
  call check_status(pgdds_smatrix_add(1.0_real64, a, 1.0_real64, at, refused), PGDDS_ERR_INVALID_ARG, 'A + A^T (13x11, 11x13)')
  call check_ok(pgdds_smatrix_destroy(a3), 'destroy 3 A')
  call check_ok(pgdds_smatrix_destroy(at), 'destroy A^T')
  call check_ok(pgdds_smatrix_scale(2.0_real64, a), 'scale')
  call check_ok(pgdds_smatrix_reduce(a, PGDDS_OP_SUM, total), 'reduce')
  call check(total == 2 * sum(adense), 'the sum of 2 A''s entries')
  call check_ok(pgdds_smatrix_norm(a, PGDDS_NORM_MAX, norm), 'norm')
  call check(norm == 2 * maxval(abs(adense)), 'the largest entry of 2 A')
  call check_status(pgdds_smatrix_reduce(a, PGDDS_OP_SUM, wrong_total), PGDDS_ERR_INVALID_ARG, 'reduce into a real32')
  call check_status(pgdds_smatrix_norm(a, 9_c_int, norm), PGDDS_ERR_INVALID_ARG, 'norm 9')
  call check_ok(pgdds_smatrix_scale(0.5_real64, a), 'scale back')

  ! A's CSR tiles: every tile copied by every rank (offsets and columns from 0, in C's terms)
  ! matches adense; the tiles this rank holds also in place, the same arrays.
  bad = 0
  do ti = 0, 3
    do tj = 0, agc - 1
      call check_ok(pgdds_smatrix_tile_shape(a, ti, tj, rows, cols, tnnz, owner), 'sparse tile_shape')
      offs = -1
      call check_ok(pgdds_smatrix_get_tile(a, ti, tj, offs, cols_of, vals), 'sparse get_tile')
      if (offs(1) /= 0 .or. offs(rows + 1) /= tnnz) bad = bad + 1
      tdense = 0
      do i = 0, rows - 1
        do x = offs(i + 1) + 1, offs(i + 2)
          tdense(i * 4 + cols_of(x) + 1) = vals(x)
        end do
      end do
      do i = 0, rows - 1
        do j = 0, cols - 1
          if (tdense(i * 4 + j + 1) /= adense((ti * 4 + i) * k + tj * 4 + j + 1)) bad = bad + 1
        end do
      end do
      if (owner == me) then
        call check_ok(pgdds_smatrix_local_tile(a, ti, tj, loff, lcol, lval), 'sparse local_tile')
        if (size(loff) /= rows + 1 .or. size(lcol) /= tnnz .or. size(lval) /= tnnz) then
          bad = bad + 1
        else if (any(loff /= offs(1:rows + 1)) .or. any(lcol /= cols_of(1:tnnz)) .or. any(lval /= vals(1:tnnz))) then
          bad = bad + 1
        end if
      else
        call check_status(pgdds_smatrix_local_tile(a, ti, tj, loff, lcol, lval), PGDDS_ERR_INVALID_ARG, &
                          'another rank''s sparse tile in place')
      end if
    end do
  end do
  call check(bad == 0, 'A''s tiles copied and in place')
  call check_status(pgdds_smatrix_get_tile(a, 0_int64, 0_int64, offs(1:4), cols_of, vals), PGDDS_ERR_INVALID_ARG, &
                    'sparse get_tile, offsets too short')
  call check_status(pgdds_smatrix_get_tile(a, 0_int64, 0_int64, offs, cols_of, wrong_type), PGDDS_ERR_INVALID_ARG, &
                    'sparse get_tile, values of the wrong type')
  call check_status(pgdds_smatrix_get_tile(a, 0_int64, 0_int64, offs, cols_of(1:0), vals), PGDDS_ERR_INVALID_ARG, &
                    'sparse get_tile, no room for the columns')
  call check_status(pgdds_smatrix_get_tile(a, 4_int64, 0_int64, offs, cols_of, vals), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'sparse get_tile outside the grid')
  call check_status(pgdds_smatrix_tile_shape(a, -1_int64, 0_int64), PGDDS_ERR_OUT_OF_BOUNDS, 'sparse tile_shape, negative')
  call check_status(pgdds_smatrix_local_tile(a, 0_int64, 0_int64, loff, lcol, wrong_view), PGDDS_ERR_INVALID_ARG, &
                    'sparse local_tile, values of the wrong type')

  ! C = A B by every algorithm; B(x, j) = x + 2 j.
  call check_ok(pgdds_dmatrix_create(ctx, b, int(k, int64), int(nc, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create B')
  call check_ok(pgdds_dmatrix_create(ctx, c, int(m, int64), int(nc, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                     tile_rows=4_int64, tile_cols=4_int64), 'create C')
  do x = 0, k - 1
    do j = 0, nc - 1
      bbuf(x * nc + j + 1) = real(x + 2 * j, real64)
    end do
  end do
  if (me == 0) call check_ok(pgdds_dmatrix_put_slice(b, 0_int64, 0_int64, int(k, int64), int(nc, int64), bbuf), 'put B')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  do alg = PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STEAL_LOCALITY
    if (alg == PGDDS_GEMM_SUMMA) then
      call check_status(pgdds_smatrix_spmm(1.0_real64, a, b, 0.0_real64, c, alg), PGDDS_ERR_INVALID_ARG, 'SpMM by SUMMA')
      cycle
    end if
    call check_ok(pgdds_smatrix_spmm(1.0_real64, a, b, 0.0_real64, c, alg), 'spmm')
    call check_ok(pgdds_dmatrix_get_slice(c, 0_int64, 0_int64, int(m, int64), int(nc, int64), cbuf), 'get C')
    bad = 0
    do i = 0, m - 1
      do j = 0, nc - 1
        want = 0
        do x = 0, k - 1
          want = want + adense(i * k + x + 1) * bbuf(x * nc + j + 1)
        end do
        if (cbuf(i * nc + j + 1) /= want) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'C = A B by every algorithm SpMM offers')
    call check_ok(pgdds_barrier(ctx), 'barrier')  ! every rank has read C before the next product
  end do

  ! P = A D, D = diag(1, 2, ..., k) from rank 0 alone: P(i, j) = A(i, j) (j + 1).
  if (me == 0) then
    ri = [(x, x = 0, k - 1)]
    ci = ri
    v = [(real(x + 1, real64), x = 0, k - 1)]
  else
    deallocate(ri, ci, v)
    allocate(ri(0), ci(0), v(0))
  end if
  call check_ok(pgdds_smatrix_create_coo(ctx, d, int(k, int64), int(k, int64), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                         ri, ci, v, tile_rows=4_int64, tile_cols=4_int64), 'create D')
  deallocate(ri, ci, v)  ! the main program's allocatables are not freed at its end
  do alg = PGDDS_GEMM_STATIONARY_C, PGDDS_GEMM_STEAL_LOCALITY
    if (alg == PGDDS_GEMM_SUMMA) cycle
    call check_ok(pgdds_smatrix_spgemm(1.0_real64, a, d, p, PGDDS_DIST_BLOCK_CYCLIC, alg, tile_rows=4_int64, &
                                       tile_cols=4_int64), 'spgemm')
    call check_ok(pgdds_smatrix_info(p, rows=rows, cols=cols, nnz=nnz, tile_grid_rows=tgr, tile_grid_cols=tgc), &
                  'info P')
    call check(rows == m .and. cols == k .and. nnz == count(adense /= 0), 'P''s shape and entries')
    call check_ok(pgdds_smatrix_get_slice(p, 0_int64, 0_int64, int(m, int64), int(k, int64), got), 'slice of P')
    bad = 0
    do i = 0, m - 1
      do j = 0, k - 1
        if (got(i * k + j + 1) /= adense(i * k + j + 1) * real(j + 1, real64)) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'P = A D by every algorithm SpGEMM offers')
    call check_ok(pgdds_smatrix_steals(p, own_steps=own, stolen_steps=stolen), 'steals')
    call check_ok(pgdds_allreduce(ctx, own + stolen, steps, PGDDS_OP_SUM), 'allreduce steps')
    if (alg >= PGDDS_GEMM_STEAL_RANDOM) then
      call check(steps == tgr * tgc * agc, 'work stealing computes every step once')
    else
      call check(steps == 0, 'no steals counted without work stealing')
    end if
    call check_ok(pgdds_smatrix_destroy(p), 'destroy P')
  end do

  ! Generators: the 27-point stencil of a 3 x 3 x 3 grid (7 x 7 x 7 entries: 2 + 3 + 2 neighbours
  ! along each axis) and an R-MAT graph; a Matrix Market round trip of the stencil.
  call check_ok(pgdds_smatrix_stencil(ctx, s, 3_int64, 3_int64, 3_int64, 27, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW), &
                'stencil')
  call check_ok(pgdds_smatrix_info(s, rows=rows, nnz=nnz), 'info stencil')
  call check(rows == 27 .and. nnz == 7 * 7 * 7, 'the stencil''s rows and entries')
  seed = 7
  call check_ok(pgdds_smatrix_rmat(ctx, g, 5, 2, seed, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_2D), 'rmat')
  call check_ok(pgdds_smatrix_info(g, rows=rows, nnz=nnz), 'info rmat')
  call check(rows == 32 .and. nnz >= 1 .and. nnz <= 64, 'the R-MAT graph''s vertices and edges')
  seed = 0
  if (me == 0) seed = int(getpid_of_rank0(), int64)
  call check_ok(pgdds_allreduce(ctx, seed, x, PGDDS_OP_MAX), 'agree on a file name')
  write (path, '(a, i0, a)') '/tmp/pgdds-fortran-sparse-', x, '.mtx'
  call check_ok(pgdds_smatrix_write_mm(s, trim(path)), 'write Matrix Market')
  call check_ok(pgdds_smatrix_read_mm(ctx, back, trim(path), PGDDS_DOUBLE, PGDDS_DIST_BLOCK_CYCLIC, &
                                      tile_rows=5_int64, tile_cols=5_int64), 'read Matrix Market')
  call check_ok(pgdds_smatrix_get_slice(s, 0_int64, 0_int64, 27_int64, 27_int64, sbuf), 'slice of the stencil')
  call check_ok(pgdds_smatrix_get_slice(back, 0_int64, 0_int64, 27_int64, 27_int64, sback), 'slice read back')
  call check(all(sbuf == sback), 'the stencil survives a Matrix Market round trip')
  call check_ok(pgdds_barrier(ctx), 'barrier')
  if (me == 0) then
    open (newunit=q, file=trim(path), status='old')
    close (q, status='delete')
  end if

  ! Bad input.
  call check_status(pgdds_smatrix_create_coo(ctx, refused, 4_int64, 4_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW, &
                                             [0_int64], [0_int64, 1_int64], [1.0_real64]), PGDDS_ERR_INVALID_ARG, &
                    'triples of different lengths')
  call check_status(pgdds_smatrix_create_coo(ctx, refused, 4_int64, 4_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW, &
                                             [0_int64], [0_int64], [1.0_real32]), PGDDS_ERR_INVALID_ARG, &
                    'values of another type')
  call check_status(pgdds_smatrix_create_coo(ctx, refused, 4_int64, 4_int64, PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW, &
                                             [4_int64], [0_int64], [1.0_real64]), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'an entry outside the matrix')
  call check_status(pgdds_smatrix_stencil(ctx, refused, -3_int64, 3_int64, 3_int64, 7, PGDDS_DOUBLE, &
                                          PGDDS_DIST_BLOCK_ROW), PGDDS_ERR_INVALID_ARG, 'negative grid')
  call check_status(pgdds_smatrix_rmat(ctx, refused, 5, 2, seed, PGDDS_DOUBLE, PGDDS_DIST_CUSTOM, grid_rows=n), &
                    PGDDS_ERR_INVALID_ARG, 'grid_rows without grid_cols')
  call check_status(pgdds_smatrix_get_slice(a, 0_int64, 0_int64, 1_int64, 4_int64, wrong_type), PGDDS_ERR_INVALID_ARG, &
                    'a slice into a buffer of another type')
  call check_status(pgdds_smatrix_get_slice(a, 12_int64, 0_int64, 2_int64, 1_int64, got), PGDDS_ERR_OUT_OF_BOUNDS, &
                    'a slice leaving the matrix')
  call check_status(pgdds_smatrix_read_mm(ctx, refused, '/nonexistent/a.mtx', PGDDS_DOUBLE, PGDDS_DIST_BLOCK_ROW), &
                    PGDDS_ERR_NOT_FOUND, 'a file that is not there')

  call check_ok(pgdds_smatrix_destroy(back), 'destroy the matrix read')
  call check_ok(pgdds_smatrix_destroy(g), 'destroy R-MAT')
  call check_ok(pgdds_smatrix_destroy(s), 'destroy stencil')
  call check_ok(pgdds_dmatrix_destroy(c), 'destroy C')
  call check_ok(pgdds_dmatrix_destroy(b), 'destroy B')
  call check_ok(pgdds_smatrix_destroy(d), 'destroy D')
  call check_ok(pgdds_smatrix_destroy(a), 'destroy A')
  call check_status(pgdds_smatrix_destroy(a), PGDDS_ERR_INVALID_ARG, 'destroyed twice')
  call finish(ctx, 'fortran sparse')

contains

  integer function getpid_of_rank0()
    interface
      integer(c_int) function c_getpid() bind(C, name='getpid')
        import :: c_int
      end function
    end interface
    getpid_of_rank0 = int(c_getpid())
  end function
end program
