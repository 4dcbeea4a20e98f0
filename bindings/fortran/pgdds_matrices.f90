! The dense matrix routines of module pgdds (see their interfaces in pgdds.f90).
submodule (pgdds) pgdds_matrices
  implicit none

contains

  ! The address of buf if it is of the matrix's type and holds nrows rows of ncols elements, ld
  ! apart (ld left out: ncols); else the failure, naming who.
  function buffer_for(who, matrix, buf, nrows, ncols, ld, addr, eff_ld) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_dmatrix), intent(in) :: matrix
    class(*), intent(in), target, contiguous :: buf(:)
    integer(int64), intent(in) :: nrows, ncols
    integer(int64), intent(in), optional :: ld
    type(c_ptr), intent(out) :: addr
    integer(c_int64_t), intent(out) :: eff_ld
    integer(c_int) :: st, dtype
    integer(c_size_t) :: bytes
    integer(int64) :: need
    character(len=24) :: have_text, need_text
    eff_ld = ncols
    if (present(ld)) eff_ld = ld
    if (eff_ld < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': ld is negative')
      return
    end if
    call describe_array(buf, addr, bytes, dtype)
    if (dtype /= matrix%elem_type) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': buf is not of the matrix''s element type')
      return
    end if
    need = 0
    if (nrows > 0 .and. ncols > 0) need = (nrows - 1) * max(eff_ld, ncols) + ncols
    if (int(size(buf), int64) < need) then
      write (have_text, '(i0)') size(buf)
      write (need_text, '(i0)') need
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': buf holds ' // trim(have_text) // ' elements, the rows need ' // &
                trim(need_text))
      return
    end if
    st = PGDDS_OK
  end function

  ! Tile (ti, tj)'s rows and columns (no failure recorded beyond C's own).
  function tile_size(matrix, ti, tj, rows, cols) result(st)
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    integer(int64), intent(out) :: rows, cols
    integer(c_int) :: st, owner
    integer(c_int64_t) :: r, c
    if (ti < 0 .or. tj < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_dmatrix: a tile index is negative (tiles start at 0)')
      return
    end if
    st = c_dmatrix_tile_shape(matrix%handle, ti, tj, r, c, owner)
    rows = r
    cols = c
  end function

  module procedure pgdds_dmatrix_create
    type(c_dmatrix_params) :: p
    if (rows < 0 .or. cols < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_dmatrix_create: rows and cols must not be negative')
      return
    end if
    if ((present(grid_rows) .neqv. present(grid_cols)) .or. (present(tile_rows) .neqv. present(tile_cols))) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_dmatrix_create: give grid_rows with grid_cols, tile_rows with tile_cols')
      return
    end if
    p%rows = rows
    p%cols = cols
    p%dtype = elem_type
    p%distribution = distribution
    if (present(grid_rows)) then
      p%field_mask = ior(p%field_mask, int(PGDDS_DMATRIX_FIELD_GRID, c_int64_t))
      p%grid_rows = int(grid_rows, c_int)
      p%grid_cols = int(grid_cols, c_int)
    end if
    if (present(tile_rows)) then
      if (tile_rows < 0 .or. tile_cols < 0) then
        st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_dmatrix_create: tile_rows and tile_cols must not be negative')
        return
      end if
      p%field_mask = ior(p%field_mask, int(PGDDS_DMATRIX_FIELD_TILE, c_int64_t))
      p%tile_rows = tile_rows
      p%tile_cols = tile_cols
    end if
    if (present(memory)) then
      p%field_mask = ior(p%field_mask, int(PGDDS_DMATRIX_FIELD_MEMORY, c_int64_t))
      p%memory = int(memory, c_int)
    end if
    st = c_dmatrix_create(ctx%handle, p, matrix%handle)
    if (st == PGDDS_OK) matrix%elem_type = elem_type
  end procedure

  module procedure pgdds_dmatrix_destroy
    st = c_dmatrix_destroy(matrix%handle)
    if (st == PGDDS_OK) then
      matrix%handle = c_null_ptr
      matrix%elem_type = -1
    end if
  end procedure

  module procedure pgdds_dmatrix_info
    type(c_dmatrix_info_record) :: in
    st = c_dmatrix_info(matrix%handle, in)
    if (st /= PGDDS_OK) return
    if (present(rows)) rows = in%rows
    if (present(cols)) cols = in%cols
    if (present(tile_rows)) tile_rows = in%tile_rows
    if (present(tile_cols)) tile_cols = in%tile_cols
    if (present(tile_grid_rows)) tile_grid_rows = in%tile_grid_rows
    if (present(tile_grid_cols)) tile_grid_cols = in%tile_grid_cols
    if (present(grid_rows)) grid_rows = int(in%grid_rows)
    if (present(grid_cols)) grid_cols = int(in%grid_cols)
  end procedure

  module procedure pgdds_dmatrix_tile_shape
    integer(int64) :: r, c
    integer(c_int) :: o
    integer(c_int64_t) :: r64, c64
    if (ti < 0 .or. tj < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_dmatrix_tile_shape: a tile index is negative (tiles start at 0)')
      return
    end if
    st = c_dmatrix_tile_shape(matrix%handle, ti, tj, r64, c64, o)
    if (st /= PGDDS_OK) return
    r = r64
    c = c64
    if (present(rows)) rows = r
    if (present(cols)) cols = c
    if (present(owner)) owner = int(o)
  end procedure

  module procedure pgdds_dmatrix_get_tile
    integer(int64) :: rows, cols
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_get_tile', matrix, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_get_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_put_tile
    integer(int64) :: rows, cols
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_put_tile', matrix, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_put_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_accumulate_tile
    integer(int64) :: rows, cols
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_accumulate_tile', matrix, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_accumulate_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  ! The checks both slice routines make before C's own.
  function slice_args(who, matrix, row0, col0, nrows, ncols, buf, ld, addr, eff) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: row0, col0, nrows, ncols
    class(*), intent(in), target, contiguous :: buf(:)
    integer(int64), intent(in), optional :: ld
    type(c_ptr), intent(out) :: addr
    integer(c_int64_t), intent(out) :: eff
    integer(c_int) :: st
    if (row0 < 0 .or. col0 < 0 .or. nrows < 0 .or. ncols < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, who // ': row0, col0, nrows and ncols must not be negative')
      return
    end if
    st = buffer_for(who, matrix, buf, nrows, ncols, ld, addr, eff)
  end function

  module procedure pgdds_dmatrix_get_slice
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = slice_args('pgdds_dmatrix_get_slice', matrix, row0, col0, nrows, ncols, buf, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_get_slice(matrix%handle, row0, col0, nrows, ncols, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_put_slice
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = slice_args('pgdds_dmatrix_put_slice', matrix, row0, col0, nrows, ncols, buf, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_put_slice(matrix%handle, row0, col0, nrows, ncols, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_gemm
    integer(c_int) :: alg
    alg = PGDDS_GEMM_STATIONARY_C
    if (present(algorithm)) alg = algorithm
    st = c_dmatrix_gemm(real(alpha, c_double), a%handle, b%handle, real(beta, c_double), c%handle, alg)
  end procedure

  module procedure pgdds_dmatrix_steals
    type(c_matrix_steals) :: s
    st = c_dmatrix_steals(c%handle, s)
    if (st /= PGDDS_OK) return
    if (present(own_steps)) own_steps = s%own_steps
    if (present(stolen_steps)) stolen_steps = s%stolen_steps
    if (present(claims)) claims = s%claims
  end procedure

end submodule pgdds_matrices
