! The dense and sparse matrix routines of module pgdds (see their interfaces in pgdds.f90).
submodule (pgdds) pgdds_matrices
  implicit none

  ! What the in-place views of an empty CSR tile's entries point to.
  integer(int64), target :: no_index(0), no_int64(0)
  integer(int32), target :: no_int32(0)
  real(real32), target :: no_real32(0)
  real(real64), target :: no_real64(0)

contains

  ! The address of buf if it is of the matrix's element type and holds nrows rows of ncols
  ! elements, ld apart (ld left out: ncols); else the failure, naming who.
  function buffer_for(who, elem_type, buf, nrows, ncols, ld, addr, eff_ld) result(st)
    character(len=*), intent(in) :: who
    integer(c_int), intent(in) :: elem_type
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
    if (dtype /= elem_type) then
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

  ! Whether the matrix's tiles, and so its buffers, are column-major.
  logical function col_major(matrix)
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(c_int) :: order
    order = PGDDS_ROW_MAJOR
    if (c_dmatrix_order(matrix%handle, order) /= PGDDS_OK) order = PGDDS_ROW_MAJOR
    col_major = order == PGDDS_COL_MAJOR
  end function

  ! Tile (ti, tj) as stored: `outer` runs (its rows, or its columns when column-major) of
  ! `inner` elements (no failure recorded beyond C's own).
  function tile_size(matrix, ti, tj, outer, inner) result(st)
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    integer(int64), intent(out) :: outer, inner
    integer(c_int) :: st, owner
    integer(c_int64_t) :: r, c
    logical :: cm
    if (ti < 0 .or. tj < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_dmatrix: a tile index is negative (tiles start at 0)')
      return
    end if
    st = c_dmatrix_tile_shape(matrix%handle, ti, tj, r, c, owner)
    cm = col_major(matrix)
    outer = merge(c, r, cm)
    inner = merge(r, c, cm)
  end function

  ! pgdds_dmatrix_params_t of a layout given as pgdds_dmatrix_create takes it; else the failure,
  ! naming who.
  function layout_params(who, rows, cols, elem_type, distribution, grid_rows, grid_cols, tile_rows, tile_cols, &
                         memory, p) result(st)
    character(len=*), intent(in) :: who
    integer(int64), intent(in) :: rows, cols
    integer(c_int), intent(in) :: elem_type, distribution
    integer, intent(in), optional :: grid_rows, grid_cols, memory
    integer(int64), intent(in), optional :: tile_rows, tile_cols
    type(c_dmatrix_params), intent(out) :: p
    integer(c_int) :: st
    st = PGDDS_OK
    if (rows < 0 .or. cols < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': rows and cols must not be negative')
      return
    end if
    if ((present(grid_rows) .neqv. present(grid_cols)) .or. (present(tile_rows) .neqv. present(tile_cols))) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': give grid_rows with grid_cols, tile_rows with tile_cols')
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
        st = fail(PGDDS_ERR_INVALID_ARG, who // ': tile_rows and tile_cols must not be negative')
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
  end function

  module procedure pgdds_dmatrix_create
    type(c_dmatrix_params) :: p
    st = layout_params('pgdds_dmatrix_create', rows, cols, elem_type, distribution, grid_rows, grid_cols, tile_rows, &
                       tile_cols, memory, p)
    if (present(order)) then
      p%field_mask = ior(p%field_mask, int(PGDDS_DMATRIX_FIELD_ORDER, c_int64_t))
      p%order = order
    end if
    if (st /= PGDDS_OK) return
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
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_get_tile', matrix%elem_type, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_get_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_put_tile
    integer(int64) :: rows, cols
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_put_tile', matrix%elem_type, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_put_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  module procedure pgdds_dmatrix_accumulate_tile
    integer(int64) :: rows, cols
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for('pgdds_dmatrix_accumulate_tile', matrix%elem_type, buf, rows, cols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_dmatrix_accumulate_tile(matrix%handle, ti, tj, addr, eff)
  end procedure

  ! The non-blocking tile transfers: the buffer checked as the blocking calls check it, packed,
  ! then `start` (the C call) given it.
  function tile_nb(who, matrix, ti, tj, buf, req, start) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    class(*), intent(in), target, contiguous :: buf(:)
    type(pgdds_request), intent(out) :: req
    procedure(c_dmatrix_get_tile_nb) :: start
    integer(c_int) :: st
    integer(int64) :: rows, cols
    integer(c_int64_t) :: eff
    type(c_ptr) :: addr
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = buffer_for(who, matrix%elem_type, buf, rows, cols, addr=addr, eff_ld=eff)
    if (st == PGDDS_OK) st = start(matrix%handle, ti, tj, addr, req%handle)
  end function

  module procedure pgdds_dmatrix_get_tile_nb
    st = tile_nb('pgdds_dmatrix_get_tile_nb', matrix, ti, tj, buf, req, c_dmatrix_get_tile_nb)
  end procedure

  module procedure pgdds_dmatrix_put_tile_nb
    st = tile_nb('pgdds_dmatrix_put_tile_nb', matrix, ti, tj, buf, req, c_dmatrix_put_tile_nb)
  end procedure

  module procedure pgdds_dmatrix_accumulate_tile_nb
    st = tile_nb('pgdds_dmatrix_accumulate_tile_nb', matrix, ti, tj, buf, req, c_dmatrix_accumulate_tile_nb)
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
    if (col_major(matrix)) then  ! ncols runs of nrows
      st = buffer_for(who, matrix%elem_type, buf, ncols, nrows, ld, addr, eff)
    else
      st = buffer_for(who, matrix%elem_type, buf, nrows, ncols, ld, addr, eff)
    end if
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
    integer(c_int) :: alg, ta, tb
    alg = PGDDS_GEMM_STATIONARY_C
    if (present(algorithm)) alg = algorithm
    ta = PGDDS_NO_TRANS
    tb = PGDDS_NO_TRANS
    if (present(trans_a)) ta = trans_a
    if (present(trans_b)) tb = trans_b
    if (ta == PGDDS_NO_TRANS .and. tb == PGDDS_NO_TRANS) then
      st = c_dmatrix_gemm(real(alpha, c_double), a%handle, b%handle, real(beta, c_double), c%handle, alg)
    else
      st = c_dmatrix_gemm_trans(ta, tb, real(alpha, c_double), a%handle, b%handle, real(beta, c_double), c%handle, alg)
    end if
  end procedure

  module procedure pgdds_dmatrix_steals
    type(c_matrix_steals) :: s
    st = c_dmatrix_steals(c%handle, s)
    if (st /= PGDDS_OK) return
    if (present(own_steps)) own_steps = s%own_steps
    if (present(stolen_steps)) stolen_steps = s%stolen_steps
    if (present(claims)) claims = s%claims
  end procedure

  module procedure pgdds_dmatrix_tile_gptr
    integer(c_int64_t) :: out
    ptr = PGDDS_GPTR_NULL
    if (ti < 0 .or. tj < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_dmatrix_tile_gptr: a tile index is negative (tiles start at 0)')
      return
    end if
    st = c_dmatrix_tile_gptr(matrix%handle, ti, tj, out)
    if (st == PGDDS_OK) ptr = out
  end procedure

  ! The address of value, a scalar of the matrix's element type at row i, column j (not
  ! negative); else the failure, naming who.
  function element_args(who, matrix, i, j, value, addr) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: i, j
    class(*), intent(in), target :: value
    type(c_ptr), intent(out) :: addr
    integer(c_int) :: st, dtype
    integer(c_size_t) :: bytes
    addr = c_null_ptr
    if (i < 0 .or. j < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, who // ': a row or column is negative (they start at 0)')
      return
    end if
    call describe_scalar(value, addr, bytes, dtype)
    st = PGDDS_OK
    if (dtype /= matrix%elem_type) st = fail(PGDDS_ERR_INVALID_ARG, who // ': value is not of the matrix''s element type')
  end function

  module procedure pgdds_dmatrix_get
    type(c_ptr) :: addr
    st = element_args('pgdds_dmatrix_get', matrix, i, j, value, addr)
    if (st == PGDDS_OK) st = c_dmatrix_get(matrix%handle, i, j, addr)
  end procedure

  module procedure pgdds_dmatrix_put
    type(c_ptr) :: addr
    st = element_args('pgdds_dmatrix_put', matrix, i, j, value, addr)
    if (st == PGDDS_OK) st = c_dmatrix_put(matrix%handle, i, j, addr)
  end procedure

  module procedure pgdds_dmatrix_fill
    st = c_dmatrix_fill(matrix%handle, c_funloc(generator), arg_or_null(arg))
  end procedure

  ! The address of value, a scalar of element type elem_type; else the failure, naming who.
  function typed_scalar(who, elem_type, value, addr) result(st)
    character(len=*), intent(in) :: who
    integer(c_int), intent(in) :: elem_type
    class(*), intent(in), target :: value
    type(c_ptr), intent(out) :: addr
    integer(c_int) :: st, dtype
    integer(c_size_t) :: bytes
    call describe_scalar(value, addr, bytes, dtype)
    st = PGDDS_OK
    if (dtype /= elem_type) st = fail(PGDDS_ERR_INVALID_ARG, who // ': value is not of the matrix''s element type')
  end function

  ! arg, or c_null_ptr where it is left out.
  function arg_or_null(arg) result(a)
    type(c_ptr), intent(in), optional :: arg
    type(c_ptr) :: a
    a = c_null_ptr
    if (present(arg)) a = arg
  end function

  module procedure pgdds_dmatrix_view
    integer(c_int) :: t
    t = PGDDS_NO_TRANS
    if (present(trans)) t = trans
    if (row0 < 0 .or. col0 < 0 .or. rows < 0 .or. cols < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, 'pgdds_dmatrix_view: row0, col0, rows and cols must not be negative')
      return
    end if
    st = c_dmatrix_view(matrix%handle, t, row0, col0, rows, cols, view%handle)
    if (st == PGDDS_OK) view%elem_type = matrix%elem_type
  end procedure

  module procedure pgdds_dmatrix_scale
    st = c_dmatrix_scale(real(alpha, c_double), matrix%handle)
  end procedure

  module procedure pgdds_smatrix_scale
    st = c_smatrix_scale(real(alpha, c_double), matrix%handle)
  end procedure

  module procedure pgdds_dmatrix_add
    st = c_dmatrix_add(real(alpha, c_double), a%handle, real(beta, c_double), b%handle)
  end procedure

  module procedure pgdds_smatrix_add
    st = c_smatrix_add(real(alpha, c_double), a%handle, real(beta, c_double), b%handle, c%handle)
    if (st == PGDDS_OK) c%elem_type = a%elem_type
  end procedure

  module procedure pgdds_dmatrix_transpose
    st = c_dmatrix_transpose(a%handle, b%handle)
  end procedure

  module procedure pgdds_smatrix_transpose
    st = c_smatrix_transpose(a%handle, c%handle)
    if (st == PGDDS_OK) c%elem_type = a%elem_type
  end procedure

  module procedure pgdds_dmatrix_apply
    st = c_dmatrix_apply(matrix%handle, c_funloc(fn), arg_or_null(arg))
  end procedure

  module procedure pgdds_smatrix_apply
    st = c_smatrix_apply(matrix%handle, c_funloc(fn), arg_or_null(arg))
  end procedure

  ! A type mismatch is found on every rank alike (every rank passes the same type), so no rank
  ! is left in the collective alone.
  module procedure pgdds_dmatrix_reduce
    type(c_ptr) :: addr
    st = typed_scalar('pgdds_dmatrix_reduce', matrix%elem_type, value, addr)
    if (st == PGDDS_OK) st = c_dmatrix_reduce(matrix%handle, op, addr)
  end procedure

  module procedure pgdds_smatrix_reduce
    type(c_ptr) :: addr
    st = typed_scalar('pgdds_smatrix_reduce', matrix%elem_type, value, addr)
    if (st == PGDDS_OK) st = c_smatrix_reduce(matrix%handle, op, addr)
  end procedure

  module procedure pgdds_dmatrix_norm
    st = c_dmatrix_norm(matrix%handle, norm, value)
  end procedure

  module procedure pgdds_smatrix_norm
    st = c_smatrix_norm(matrix%handle, norm, value)
  end procedure

  ! Tile (ti, tj)'s address on this rank and its shape, for a view of type dtype; else the
  ! failure.
  function local_tile_of(matrix, ti, tj, dtype, base, rows, cols) result(st)
    type(pgdds_dmatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    integer(c_int), intent(in) :: dtype
    type(c_ptr), intent(out) :: base
    integer(int64), intent(out) :: rows, cols
    integer(c_int) :: st
    base = c_null_ptr
    rows = 0
    cols = 0
    if (matrix%elem_type /= dtype) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_dmatrix_local_tile: the view is not of the matrix''s element type')
      return
    end if
    st = tile_size(matrix, ti, tj, rows, cols)
    if (st == PGDDS_OK) st = c_dmatrix_local_tile(matrix%handle, ti, tj, base)
  end function

  module procedure dmatrix_local_tile_int32
    type(c_ptr) :: base
    integer(int64) :: rows, cols
    nullify(view)
    st = local_tile_of(matrix, ti, tj, PGDDS_INT32, base, rows, cols)
    if (st == PGDDS_OK) call c_f_pointer(base, view, [cols, rows])
  end procedure

  module procedure dmatrix_local_tile_int64
    type(c_ptr) :: base
    integer(int64) :: rows, cols
    nullify(view)
    st = local_tile_of(matrix, ti, tj, PGDDS_INT64, base, rows, cols)
    if (st == PGDDS_OK) call c_f_pointer(base, view, [cols, rows])
  end procedure

  module procedure dmatrix_local_tile_real32
    type(c_ptr) :: base
    integer(int64) :: rows, cols
    nullify(view)
    st = local_tile_of(matrix, ti, tj, PGDDS_FLOAT, base, rows, cols)
    if (st == PGDDS_OK) call c_f_pointer(base, view, [cols, rows])
  end procedure

  module procedure dmatrix_local_tile_real64
    type(c_ptr) :: base
    integer(int64) :: rows, cols
    nullify(view)
    st = local_tile_of(matrix, ti, tj, PGDDS_DOUBLE, base, rows, cols)
    if (st == PGDDS_OK) call c_f_pointer(base, view, [cols, rows])
  end procedure

  ! --- Sparse matrices -------------------------------------------------------------------------

  module procedure pgdds_smatrix_create_coo
    character(len=*), parameter :: who = 'pgdds_smatrix_create_coo'
    type(c_dmatrix_params) :: p
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    integer(c_int) :: dtype
    st = layout_params(who, rows, cols, elem_type, distribution, grid_rows, grid_cols, tile_rows, tile_cols, p=p)
    if (st /= PGDDS_OK) return
    if (size(row_idx) /= size(values) .or. size(col_idx) /= size(values)) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': row_idx, col_idx and values differ in length')
      return
    end if
    call describe_array(values, addr, bytes, dtype)
    if (dtype /= elem_type) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': values are not of elem_type')
      return
    end if
    st = c_smatrix_create_coo(ctx%handle, p, int(size(values), c_size_t), row_idx, col_idx, addr, matrix%handle)
    if (st == PGDDS_OK) matrix%elem_type = elem_type
  end procedure

  module procedure pgdds_smatrix_destroy
    st = c_smatrix_destroy(matrix%handle)
    if (st == PGDDS_OK) then
      matrix%handle = c_null_ptr
      matrix%elem_type = -1
    end if
  end procedure

  module procedure pgdds_smatrix_info
    type(c_dmatrix_info_record) :: in
    integer(c_int64_t) :: n
    st = c_smatrix_info(matrix%handle, in, n)
    if (st /= PGDDS_OK) return
    if (present(rows)) rows = in%rows
    if (present(cols)) cols = in%cols
    if (present(nnz)) nnz = n
    if (present(tile_grid_rows)) tile_grid_rows = in%tile_grid_rows
    if (present(tile_grid_cols)) tile_grid_cols = in%tile_grid_cols
  end procedure

  ! Tile (ti, tj)'s rows, columns, entries and owner (no failure recorded beyond C's own).
  function sparse_tile_size(who, matrix, ti, tj, rows, cols, nnz, owner) result(st)
    character(len=*), intent(in) :: who
    type(pgdds_smatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    integer(int64), intent(out) :: rows, cols, nnz
    integer, intent(out) :: owner
    integer(c_int) :: st, o
    integer(c_int64_t) :: r, c, z
    rows = 0
    cols = 0
    nnz = 0
    owner = -1
    if (ti < 0 .or. tj < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, who // ': a tile index is negative (tiles start at 0)')
      return
    end if
    st = c_smatrix_tile_shape(matrix%handle, ti, tj, r, c, z, o)
    if (st /= PGDDS_OK) return
    rows = r
    cols = c
    nnz = z
    owner = int(o)
  end function

  module procedure pgdds_smatrix_tile_shape
    integer(int64) :: r, c, z
    integer :: o
    st = sparse_tile_size('pgdds_smatrix_tile_shape', matrix, ti, tj, r, c, z, o)
    if (st /= PGDDS_OK) return
    if (present(rows)) rows = r
    if (present(cols)) cols = c
    if (present(nnz)) nnz = z
    if (present(owner)) owner = o
  end procedure

  module procedure pgdds_smatrix_get_tile
    character(len=*), parameter :: who = 'pgdds_smatrix_get_tile'
    integer(int64) :: rows, cols, nnz
    integer :: owner
    type(c_ptr) :: offp, idxp, valp
    integer(c_size_t) :: bytes
    integer(c_int) :: dtype
    character(len=24) :: need
    st = sparse_tile_size(who, matrix, ti, tj, rows, cols, nnz, owner)
    if (st /= PGDDS_OK) return
    call describe_array(values, valp, bytes, dtype)
    if (dtype /= matrix%elem_type) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': values are not of the matrix''s element type')
      return
    end if
    if (int(size(row_offsets), int64) < rows + 1) then
      write (need, '(i0)') rows + 1
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': row_offsets holds fewer than the tile''s ' // trim(need) // ' offsets')
      return
    end if
    if (int(size(col_indices), int64) < nnz .or. int(size(values), int64) < nnz) then
      write (need, '(i0)') nnz
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': col_indices and values must hold the tile''s ' // trim(need) // &
                ' entries')
      return
    end if
    offp = c_loc(row_offsets(1))
    idxp = c_null_ptr
    if (size(col_indices) > 0) idxp = c_loc(col_indices(1))
    st = c_smatrix_get_tile(matrix%handle, ti, tj, offp, idxp, valp)
  end procedure

  ! The CSR arrays of tile (ti, tj) in place on this rank, its rows and entries, for values of
  ! type dtype; else the failure. The entry arrays of an empty tile, and all three on failure, are
  ! empty arrays.
  function sparse_local_of(matrix, ti, tj, dtype, row_offsets, col_indices, values, nnz) result(st)
    type(pgdds_smatrix), intent(in) :: matrix
    integer(int64), intent(in) :: ti, tj
    integer(c_int), intent(in) :: dtype
    integer(int64), pointer, intent(out) :: row_offsets(:), col_indices(:)
    type(c_ptr), intent(out) :: values
    integer(int64), intent(out) :: nnz
    integer(c_int) :: st
    character(len=*), parameter :: who = 'pgdds_smatrix_local_tile'
    integer(int64) :: rows, cols
    integer :: owner
    type(c_ptr) :: offp, idxp
    row_offsets => no_index
    col_indices => no_index
    values = c_null_ptr
    nnz = 0
    if (matrix%elem_type /= dtype) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': the values'' view is not of the matrix''s element type')
      return
    end if
    st = sparse_tile_size(who, matrix, ti, tj, rows, cols, nnz, owner)
    if (st == PGDDS_OK) st = c_smatrix_local_tile(matrix%handle, ti, tj, offp, idxp, values)
    if (st /= PGDDS_OK) return
    call c_f_pointer(offp, row_offsets, [rows + 1])
    if (nnz > 0) call c_f_pointer(idxp, col_indices, [nnz])
  end function

  module procedure smatrix_local_tile_int32
    type(c_ptr) :: base
    integer(int64) :: nnz
    values => no_int32
    st = sparse_local_of(matrix, ti, tj, PGDDS_INT32, row_offsets, col_indices, base, nnz)
    if (st == PGDDS_OK .and. nnz > 0) call c_f_pointer(base, values, [nnz])
  end procedure

  module procedure smatrix_local_tile_int64
    type(c_ptr) :: base
    integer(int64) :: nnz
    values => no_int64
    st = sparse_local_of(matrix, ti, tj, PGDDS_INT64, row_offsets, col_indices, base, nnz)
    if (st == PGDDS_OK .and. nnz > 0) call c_f_pointer(base, values, [nnz])
  end procedure

  module procedure smatrix_local_tile_real32
    type(c_ptr) :: base
    integer(int64) :: nnz
    values => no_real32
    st = sparse_local_of(matrix, ti, tj, PGDDS_FLOAT, row_offsets, col_indices, base, nnz)
    if (st == PGDDS_OK .and. nnz > 0) call c_f_pointer(base, values, [nnz])
  end procedure

  module procedure smatrix_local_tile_real64
    type(c_ptr) :: base
    integer(int64) :: nnz
    values => no_real64
    st = sparse_local_of(matrix, ti, tj, PGDDS_DOUBLE, row_offsets, col_indices, base, nnz)
    if (st == PGDDS_OK .and. nnz > 0) call c_f_pointer(base, values, [nnz])
  end procedure

  module procedure pgdds_smatrix_get_slice
    character(len=*), parameter :: who = 'pgdds_smatrix_get_slice'
    type(c_ptr) :: addr
    integer(c_int64_t) :: eff
    if (row0 < 0 .or. col0 < 0 .or. nrows < 0 .or. ncols < 0) then
      st = fail(PGDDS_ERR_OUT_OF_BOUNDS, who // ': a row, column or count is negative')
      return
    end if
    st = buffer_for(who, matrix%elem_type, buf, nrows, ncols, ld, addr, eff)
    if (st == PGDDS_OK) st = c_smatrix_get_slice(matrix%handle, row0, col0, nrows, ncols, addr, eff)
  end procedure

  module procedure pgdds_smatrix_spmm
    integer(c_int) :: alg
    alg = PGDDS_GEMM_STATIONARY_C
    if (present(algorithm)) alg = algorithm
    st = c_smatrix_spmm_algorithm(real(alpha, c_double), a%handle, b%handle, real(beta, c_double), c%handle, alg)
  end procedure

  module procedure pgdds_smatrix_spgemm
    type(c_dmatrix_params) :: p
    integer(c_int) :: alg
    alg = PGDDS_GEMM_STATIONARY_C
    if (present(algorithm)) alg = algorithm
    ! Rows and columns 0: C takes A's rows and B's columns.
    st = layout_params('pgdds_smatrix_spgemm', 0_int64, 0_int64, a%elem_type, distribution, grid_rows, grid_cols, &
                       tile_rows, tile_cols, p=p)
    if (st /= PGDDS_OK) return
    st = c_smatrix_spgemm(real(alpha, c_double), a%handle, b%handle, p, alg, c%handle)
    if (st == PGDDS_OK) c%elem_type = a%elem_type
  end procedure

  module procedure pgdds_smatrix_steals
    type(c_matrix_steals) :: s
    st = c_smatrix_steals(c%handle, s)
    if (st /= PGDDS_OK) return
    if (present(own_steps)) own_steps = s%own_steps
    if (present(stolen_steps)) stolen_steps = s%stolen_steps
    if (present(claims)) claims = s%claims
  end procedure

  module procedure pgdds_smatrix_stencil
    type(c_dmatrix_params) :: p
    character(len=*), parameter :: who = 'pgdds_smatrix_stencil'
    if (nx < 0 .or. ny < 0 .or. nz < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': a grid size is negative')
      return
    end if
    st = layout_params(who, 0_int64, 0_int64, elem_type, distribution, grid_rows, grid_cols, tile_rows, tile_cols, p=p)
    if (st /= PGDDS_OK) return
    st = c_smatrix_stencil(ctx%handle, p, nx, ny, nz, int(points, c_int), matrix%handle)
    if (st == PGDDS_OK) matrix%elem_type = elem_type
  end procedure

  module procedure pgdds_smatrix_rmat
    type(c_dmatrix_params) :: p
    st = layout_params('pgdds_smatrix_rmat', 0_int64, 0_int64, elem_type, distribution, grid_rows, grid_cols, &
                       tile_rows, tile_cols, p=p)
    if (st /= PGDDS_OK) return
    st = c_smatrix_rmat(ctx%handle, p, int(scale, c_int), int(edge_factor, c_int), seed, matrix%handle)
    if (st == PGDDS_OK) matrix%elem_type = elem_type
  end procedure

  module procedure pgdds_smatrix_read_mm
    type(c_dmatrix_params) :: p
    st = layout_params('pgdds_smatrix_read_mm', 0_int64, 0_int64, elem_type, distribution, grid_rows, grid_cols, &
                       tile_rows, tile_cols, p=p)
    if (st /= PGDDS_OK) return
    st = c_smatrix_read_mm(ctx%handle, path // c_null_char, p, matrix%handle)
    if (st == PGDDS_OK) matrix%elem_type = elem_type
  end procedure

  module procedure pgdds_smatrix_write_mm
    st = c_smatrix_write_mm(matrix%handle, path // c_null_char)
  end procedure

end submodule pgdds_matrices
