! libpgdds for Fortran 2008: `use pgdds`.
!
! Thin wrappers over the C ABI (pgdds.h) through iso_c_binding. Every routine that can fail is an
! integer(c_int) function returning PGDDS_OK or a negative PGDDS_ERR_* status, as in C, and on
! failure pgdds_last_error() gives the explanation. Handles are derived types (pgdds_context,
! pgdds_hashmap, pgdds_queue, pgdds_bloom, pgdds_darray, pgdds_dmatrix, pgdds_smatrix); global pointers are integer(PGDDS_GPTR_KIND)
! values; byte counts, capacities and indexes are integer(int64); ranks, element indexes of
! distributed arrays and tile, row and column indexes of matrices start at 0, as in C.
!
! Data arguments (put, get and their non-blocking forms, broadcast, allreduce, allgather, RPC
! arguments and results, container keys and values) accept integer(int32), integer(int64),
! real(real32) and real(real64), as scalars or rank-1 arrays. RPC functions and their reply
! callbacks are bind(C) subroutines of the abstract interfaces pgdds_rpc_fn and pgdds_rpc_done.
!
!   use pgdds
!   type(pgdds_context) :: ctx
!   integer(int64) :: x, total
!   if (pgdds_init(ctx, segment_size=64_int64 * 1024 * 1024) /= PGDDS_OK) then
!     print *, pgdds_last_error()
!     error stop 1
!   end if
!   x = pgdds_rank(ctx)
!   if (pgdds_allreduce(ctx, x, total, PGDDS_OP_SUM) /= PGDDS_OK) print *, pgdds_last_error()
!   if (pgdds_finalize(ctx) /= PGDDS_OK) print *, pgdds_last_error()
!
! The HashMap, queue, Bloom filter and DArray routines are implemented in the submodule
! pgdds_containers, the dense and sparse matrix routines in pgdds_matrices.
module pgdds
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  implicit none
  private

  public :: int32, int64, real32, real64
  public :: c_int, c_ptr, c_null_ptr, c_associated, c_f_pointer
  ! For RPC functions and callbacks (bind(C) procedures; c_funloc, c_loc of an arg).
  public :: c_size_t, c_funptr, c_null_funptr, c_funloc, c_loc
  ! For the flags the non-blocking Bloom filter batches set.
  public :: c_signed_char

  ! --- Constants of pgdds.h -----------------------------------------------------------------
  integer(c_int), parameter, public :: PGDDS_VERSION_MAJOR = 0, PGDDS_VERSION_MINOR = 1, PGDDS_VERSION_PATCH = 0

  integer(c_int), parameter, public :: &
    PGDDS_OK = 0, PGDDS_ERR_INVALID_ARG = -1, PGDDS_ERR_NO_MEMORY = -2, PGDDS_ERR_OUT_OF_BOUNDS = -3, &
    PGDDS_ERR_NOT_FOUND = -4, PGDDS_ERR_FULL = -5, PGDDS_ERR_EMPTY = -6, PGDDS_ERR_EXISTS = -7, &
    PGDDS_ERR_UNSUPPORTED = -8, PGDDS_ERR_TRANSPORT = -9, PGDDS_ERR_BOOTSTRAP = -10, PGDDS_ERR_TIMEOUT = -11, &
    PGDDS_ERR_PEER_FAILED = -12, PGDDS_ERR_STATE = -13, PGDDS_ERR_AGAIN = -14, &
    PGDDS_ERR_STARTUP = -15

  integer(c_int), parameter, public :: PGDDS_THREAD_SINGLE = 0, PGDDS_THREAD_FUNNELED = 1, PGDDS_THREAD_MULTIPLE = 2, &
                                        PGDDS_THREAD_SERIALIZED = 3

  integer(c_int), parameter, public :: PGDDS_INIT_FIELD_THREAD_LEVEL = 1, PGDDS_INIT_FIELD_SEGMENT_SIZE = 2, &
    PGDDS_INIT_FIELD_TRANSPORT = 4, PGDDS_INIT_FIELD_NUM_VCIS = 8

  integer, parameter, public :: PGDDS_GPTR_KIND = c_int64_t
  integer(PGDDS_GPTR_KIND), parameter, public :: PGDDS_GPTR_NULL = 0
  integer(c_int), parameter, public :: PGDDS_GPTR_OFFSET_BITS = 40, PGDDS_GPTR_SEGMENT_BITS = 2, &
    PGDDS_GPTR_RANK_BITS = 22

  integer(c_int), parameter, public :: PGDDS_AOP_ADD = 0, PGDDS_AOP_AND = 1, PGDDS_AOP_OR = 2, PGDDS_AOP_XOR = 3, &
    PGDDS_AOP_SWAP = 4, PGDDS_AOP_MIN = 5, PGDDS_AOP_MAX = 6

  integer(c_int), parameter, public :: PGDDS_ALLOC_ZERO = 1
  integer(c_int), parameter, public :: PGDDS_MEMORY_HOST = 0, PGDDS_MEMORY_CUDA = 1

  ! Distributed dense matrices (matrix.h).
  integer(c_int), parameter, public :: PGDDS_DIST_BLOCK_ROW = 0, PGDDS_DIST_BLOCK_COL = 1, PGDDS_DIST_BLOCK_2D = 2, &
    PGDDS_DIST_BLOCK_CYCLIC = 3, PGDDS_DIST_CUSTOM = 4
  integer(c_int), parameter, public :: PGDDS_DMATRIX_DEFAULT_TILE = 64
  integer(c_int), parameter, public :: PGDDS_DMATRIX_FIELD_GRID = 1, PGDDS_DMATRIX_FIELD_TILE = 2, &
    PGDDS_DMATRIX_FIELD_MEMORY = 4, PGDDS_DMATRIX_FIELD_ORDER = 8
  integer(c_int), parameter, public :: PGDDS_GEMM_STATIONARY_C = 0, PGDDS_GEMM_STATIONARY_A = 1, &
    PGDDS_GEMM_STATIONARY_B = 2, PGDDS_GEMM_SUMMA = 3, PGDDS_GEMM_STEAL_RANDOM = 4, PGDDS_GEMM_STEAL_LOCALITY = 5
  integer(c_int), parameter, public :: PGDDS_NO_TRANS = 0, PGDDS_TRANS = 1
  integer(c_int), parameter, public :: PGDDS_ROW_MAJOR = 0, PGDDS_COL_MAJOR = 1
  integer(c_int), parameter, public :: PGDDS_NORM_FROBENIUS = 0, PGDDS_NORM_ONE = 1, PGDDS_NORM_INF = 2, &
    PGDDS_NORM_MAX = 3
  integer(c_int), parameter, public :: PGDDS_SIGNAL_SET = 0, PGDDS_SIGNAL_ADD = 1
  integer(c_int), parameter, public :: PGDDS_CMP_EQ = 0, PGDDS_CMP_NE = 1, PGDDS_CMP_GT = 2, PGDDS_CMP_GE = 3, &
    PGDDS_CMP_LT = 4, PGDDS_CMP_LE = 5

  integer(c_int), parameter, public :: PGDDS_INT32 = 0, PGDDS_INT64 = 1, PGDDS_UINT32 = 2, PGDDS_UINT64 = 3, &
    PGDDS_FLOAT = 4, PGDDS_DOUBLE = 5

  integer(c_int), parameter, public :: PGDDS_OP_SUM = 0, PGDDS_OP_MIN = 1, PGDDS_OP_MAX = 2, PGDDS_OP_BAND = 3, &
    PGDDS_OP_BOR = 4, PGDDS_OP_BXOR = 5

  integer(c_int), parameter, public :: PGDDS_CP_INSERT = 1, PGDDS_CP_FIND = 2, PGDDS_CP_PUSH = 4, PGDDS_CP_POP = 8, &
    PGDDS_CP_LOCAL = 16
  integer(c_int), parameter, public :: PGDDS_QUEUE_FAST = 0, PGDDS_QUEUE_CIRCULAR = 1, PGDDS_QUEUE_CHECKSUM = 2
  integer(c_int), parameter, public :: PGDDS_HASHMAP_BUFFER_OPTION_COMBINE = 1, &
    PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY = 2

  ! How operations reach a rank's part of a container (pgdds_hashmap_protocol), and the
  ! operations the per-operation query names (pgdds_hashmap_op_protocol).
  integer(c_int), parameter, public :: PGDDS_PROTOCOL_AUTO = 0, PGDDS_PROTOCOL_RDMA = 1, PGDDS_PROTOCOL_RPC = 2, &
    PGDDS_PROTOCOL_DIRECT = 3
  integer(c_int), parameter, public :: PGDDS_CONTAINER_OP_INSERT = 1, PGDDS_CONTAINER_OP_FIND = 2, &
    PGDDS_CONTAINER_OP_ERASE = 3, PGDDS_CONTAINER_OP_INSERT_MANY = 4, PGDDS_CONTAINER_OP_FIND_MANY = 5, &
    PGDDS_CONTAINER_OP_PUSH = 6, PGDDS_CONTAINER_OP_POP = 7, PGDDS_CONTAINER_OP_SIZE = 8, &
    PGDDS_CONTAINER_OP_CONTAINS = 9, PGDDS_CONTAINER_OP_GET = 10, PGDDS_CONTAINER_OP_PUT = 11, &
    PGDDS_CONTAINER_OP_ATOMIC_U64 = 12, PGDDS_CONTAINER_OP_REMOVE = 13

  ! --- Handles -------------------------------------------------------------------------------
  type, public :: pgdds_context
    type(c_ptr) :: handle = c_null_ptr
  end type

  ! A team (pgdds_team_t); the default value is PGDDS_TEAM_NULL, which a split gives non-members.
  type, public :: pgdds_team
    type(c_ptr) :: handle = c_null_ptr
  end type

  type, public :: pgdds_hashmap
    type(c_ptr) :: handle = c_null_ptr
    integer(c_int) :: key_type = -1, value_type = -1
  end type

  ! A queue (pgdds_queue_t) on one host rank, of elements of elem_type.
  type, public :: pgdds_queue
    type(c_ptr) :: handle = c_null_ptr
    integer(c_int) :: elem_type = -1
  end type

  ! A Bloom filter (pgdds_bloom_t) of keys of key_type.
  type, public :: pgdds_bloom
    type(c_ptr) :: handle = c_null_ptr
    integer(c_int) :: key_type = -1
  end type

  type, public :: pgdds_darray
    type(c_ptr) :: handle = c_null_ptr
    type(c_ptr) :: ctx = c_null_ptr
    integer(c_int) :: elem_type = -1
  end type

  ! Counts of the operations a context handed to its network transport (pgdds_net_counts_t).
  type, public, bind(C) :: pgdds_net_counts_t
    integer(c_int64_t) :: puts = 0, gets = 0, put_bytes = 0, get_bytes = 0
    integer(c_int64_t) :: atomics = 0, atomics_posted = 0, flushes = 0
    integer(c_int64_t) :: reserved(9) = 0
  end type

  ! A PGDDS_* environment variable (pgdds_config_var_t, every field): value is its text in the
  ! environment, '' with value_set false when unset; value_ok false when ill-formed.
  type, public :: pgdds_config_var
    character(len=:), allocatable :: name, type, default_value, choices, description, value
    logical :: value_set = .false., value_ok = .true.
  end type

  ! What a transport finds on this machine (pgdds_transport_attr_t, every field); usable: 1, 0,
  ! or -1 for unknown.
  type, public :: pgdds_transport_attr
    character(len=:), allocatable :: transport, component, atomics, progress, detail
    logical :: built = .false.
    integer :: usable = -1
  end type

  ! A distributed dense matrix (pgdds_dmatrix_t) of elements of elem_type.
  type, public :: pgdds_dmatrix
    type(c_ptr) :: handle = c_null_ptr
    integer(c_int) :: elem_type = -1
  end type

  ! A distributed sparse matrix (pgdds_smatrix_t, CSR tiles) of elements of elem_type.
  type, public :: pgdds_smatrix
    type(c_ptr) :: handle = c_null_ptr
    integer(c_int) :: elem_type = -1
  end type

  ! A non-blocking operation in flight (pgdds_request_t): pgdds_test or pgdds_wait completes it.
  type, public :: pgdds_request
    type(c_ptr) :: handle = c_null_ptr
  end type

  ! --- The routines ----------------------------------------------------------------------------
  public :: pgdds_init, pgdds_finalize, pgdds_rank, pgdds_nranks, pgdds_local_rank, pgdds_local_nranks
  public :: pgdds_transport_name, pgdds_version_string, pgdds_strerror, pgdds_last_error
  public :: pgdds_barrier, pgdds_broadcast, pgdds_allreduce, pgdds_allgather
  public :: pgdds_alloc, pgdds_free, pgdds_gptr_rank, pgdds_gptr_offset, pgdds_gptr_add, pgdds_gptr_to_local
  public :: pgdds_alloc_all, pgdds_free_all, pgdds_gptr_at, pgdds_alloc_kind, pgdds_gptr_memory
  public :: pgdds_put, pgdds_get, pgdds_flush, pgdds_fence
  public :: pgdds_put_nb, pgdds_get_nb, pgdds_put_nbi, pgdds_get_nbi
  public :: pgdds_put_signal, pgdds_put_signal_nbi, pgdds_signal_fetch, pgdds_wait_until, pgdds_test_until
  public :: pgdds_atomic, pgdds_atomic_fetch_add, pgdds_atomic_cswap, pgdds_atomic_load
  public :: pgdds_atomic_nb, pgdds_atomic_cswap_nb, pgdds_test, pgdds_wait
  public :: pgdds_atomic_unsigned, pgdds_atomic_cswap_unsigned, pgdds_atomic_nbi
  public :: pgdds_gpu_device, pgdds_gpu_probe
  public :: pgdds_gptr_from_local, pgdds_segment_size, pgdds_num_vcis, pgdds_vci_bind, pgdds_vci_current
  public :: pgdds_net_counts
  public :: pgdds_am_handler, pgdds_am_register, pgdds_am_send, pgdds_map_static_data
  public :: pgdds_build_option_count, pgdds_build_option, pgdds_config_count, pgdds_config_describe
  public :: pgdds_transport_probe, pgdds_transport_describe
  public :: pgdds_rpc_fn, pgdds_rpc_done, pgdds_rpc_register, pgdds_rpc_call, pgdds_rpc_reply, pgdds_progress
  public :: pgdds_hashmap_create, pgdds_hashmap_destroy, pgdds_hashmap_insert, pgdds_hashmap_find
  public :: pgdds_hashmap_erase, pgdds_hashmap_size, pgdds_hashmap_local_next
  public :: pgdds_hashmap_protocol, pgdds_hashmap_op_protocol
  public :: pgdds_hashmap_insert_nb, pgdds_hashmap_find_nb, pgdds_hashmap_erase_nb
  public :: pgdds_hashmap_insert_many, pgdds_hashmap_find_many, pgdds_hashmap_insert_many_nb
  public :: pgdds_hashmap_find_many_nb
  public :: pgdds_queue_create, pgdds_queue_destroy, pgdds_queue_push, pgdds_queue_pop, pgdds_queue_size
  public :: pgdds_queue_capacity, pgdds_queue_host, pgdds_queue_push_nb, pgdds_queue_pop_nb
  public :: pgdds_bloom_create, pgdds_bloom_destroy, pgdds_bloom_insert, pgdds_bloom_contains
  public :: pgdds_bloom_insert_many, pgdds_bloom_contains_many, pgdds_bloom_insert_many_nb
  public :: pgdds_bloom_contains_many_nb
  public :: pgdds_darray_create, pgdds_darray_destroy, pgdds_darray_gptr, pgdds_darray_put, pgdds_darray_get
  public :: pgdds_darray_local
  public :: pgdds_dmatrix_create, pgdds_dmatrix_destroy, pgdds_dmatrix_info, pgdds_dmatrix_tile_shape
  public :: pgdds_dmatrix_get_tile, pgdds_dmatrix_put_tile, pgdds_dmatrix_accumulate_tile
  public :: pgdds_dmatrix_get_tile_nb, pgdds_dmatrix_put_tile_nb, pgdds_dmatrix_accumulate_tile_nb
  public :: pgdds_dmatrix_get_slice, pgdds_dmatrix_put_slice, pgdds_dmatrix_gemm, pgdds_dmatrix_steals
  public :: pgdds_dmatrix_get, pgdds_dmatrix_put, pgdds_dmatrix_fill, pgdds_dmatrix_generator
  public :: pgdds_dmatrix_local_tile, pgdds_dmatrix_tile_gptr, pgdds_smatrix_tile_shape, pgdds_smatrix_get_tile
  public :: pgdds_smatrix_local_tile
  public :: pgdds_smatrix_create_coo, pgdds_smatrix_destroy, pgdds_smatrix_info, pgdds_smatrix_get_slice
  public :: pgdds_smatrix_spmm, pgdds_smatrix_spgemm, pgdds_smatrix_steals, pgdds_smatrix_stencil, pgdds_smatrix_rmat
  public :: pgdds_smatrix_read_mm, pgdds_smatrix_write_mm
  public :: pgdds_dmatrix_scale, pgdds_dmatrix_add, pgdds_dmatrix_transpose, pgdds_dmatrix_apply
  public :: pgdds_dmatrix_reduce, pgdds_dmatrix_norm, pgdds_dmatrix_view
  public :: pgdds_smatrix_scale, pgdds_smatrix_add, pgdds_smatrix_transpose, pgdds_smatrix_apply
  public :: pgdds_smatrix_reduce, pgdds_smatrix_norm
  public :: pgdds_team_world, pgdds_team_node, pgdds_team_split_strided, pgdds_team_split_2d, pgdds_team_rank
  public :: pgdds_team_size, pgdds_team_translate_rank, pgdds_team_destroy, pgdds_team_is_null
  public :: pgdds_team_barrier, pgdds_team_broadcast, pgdds_team_allreduce, pgdds_team_reduce
  public :: pgdds_team_allgather, pgdds_team_allgatherv, pgdds_team_alltoall, pgdds_team_alltoallv

  interface pgdds_broadcast
    module procedure broadcast_scalar, broadcast_array
  end interface
  interface pgdds_allreduce
    module procedure allreduce_scalar, allreduce_array
  end interface
  interface pgdds_put
    module procedure put_scalar, put_array
  end interface
  interface pgdds_get
    module procedure get_scalar, get_array
  end interface
  interface pgdds_atomic
    module procedure atomic_int64, atomic_int32, atomic_real32, atomic_real64
  end interface
  interface pgdds_atomic_cswap
    module procedure cswap_int64, cswap_int32, cswap_real32, cswap_real64
  end interface
  interface pgdds_atomic_load
    module procedure atomic_load_int64, atomic_load_int32
  end interface
  interface pgdds_atomic_unsigned
    module procedure atomic_unsigned_int64, atomic_unsigned_int32
  end interface
  interface pgdds_atomic_cswap_unsigned
    module procedure cswap_unsigned_int64, cswap_unsigned_int32
  end interface
  interface pgdds_atomic_nbi
    module procedure atomic_nbi_int64, atomic_nbi_int32
  end interface
  interface pgdds_atomic_nb
    module procedure atomic_nb_int64, atomic_nb_int32
  end interface
  interface pgdds_atomic_cswap_nb
    module procedure cswap_nb_int64, cswap_nb_int32
  end interface
  interface pgdds_put_nb
    module procedure put_nb_scalar, put_nb_array
  end interface
  interface pgdds_get_nb
    module procedure get_nb_scalar, get_nb_array
  end interface
  interface pgdds_put_nbi
    module procedure put_nbi_scalar, put_nbi_array
  end interface
  interface pgdds_get_nbi
    module procedure get_nbi_scalar, get_nbi_array
  end interface
  interface pgdds_rpc_register
    module procedure rpc_register_procedure, rpc_register_funptr
  end interface
  interface pgdds_rpc_call
    module procedure rpc_call_scalar, rpc_call_array, rpc_call_scalar_funptr, rpc_call_array_funptr
  end interface
  interface pgdds_rpc_reply
    module procedure rpc_reply_scalar, rpc_reply_array
  end interface
  interface pgdds_am_register
    module procedure am_register_procedure, am_register_funptr
  end interface
  interface pgdds_am_send
    module procedure am_send_scalar, am_send_array
  end interface

  ! --- RPC callbacks (pgdds_rpc_fn_t, pgdds_rpc_done_t) ------------------------------------------
  ! Write them as bind(C) subroutines with these interfaces; ctx is the context's C handle
  ! (pgdds_context(ctx) makes a type(pgdds_context) of it), args and result point at size bytes,
  ! which may be unaligned (copy them out, e.g. with transfer), valid during the call only.
  abstract interface
    ! A dense matrix's generator (pgdds_dmatrix_fill): gives element (i, j) (from 0) its value
    ! through value, the address of one element of the matrix's type (c_f_pointer it). The
    ! element functions of pgdds_dmatrix_apply and pgdds_smatrix_apply have this interface too:
    ! they read the element through value and replace it.
    subroutine pgdds_dmatrix_generator(i, j, value, arg) bind(C)
      import :: c_ptr, c_int64_t
      integer(c_int64_t), value :: i, j
      type(c_ptr), value :: value, arg
    end subroutine
    ! The function run on the target, inside a progress call there: it must not block (no flush,
    ! wait, barrier or waiting for an RPC). It answers with pgdds_rpc_reply (else an empty success).
    subroutine pgdds_rpc_fn(ctx, src_rank, args, size, reply) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: src_rank
      type(c_ptr), value :: args
      integer(c_size_t), value :: size
      type(c_ptr), value :: reply
    end subroutine
    ! The caller's side, run once inside a progress call of the caller: status PGDDS_OK with the
    ! function's result bytes, or the failure (with the target's message in pgdds_last_error()
    ! and no bytes). arg is the one given to pgdds_rpc_call.
    subroutine pgdds_rpc_done(ctx, status, result, size, arg) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: status
      type(c_ptr), value :: result
      integer(c_size_t), value :: size
      type(c_ptr), value :: arg
    end subroutine
    ! An active-message handler (pgdds_am_handler_t), run on the destination inside a progress
    ! call: it may send active messages but must not block. payload points at size bytes (copy
    ! them out), valid during the call only; arg is the one given to pgdds_am_register.
    subroutine pgdds_am_handler(ctx, src_rank, payload, size, arg) bind(C)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: src_rank
      type(c_ptr), value :: payload
      integer(c_size_t), value :: size
      type(c_ptr), value :: arg
    end subroutine
  end interface
  interface pgdds_put_signal
    module procedure put_signal_scalar, put_signal_array
  end interface
  interface pgdds_put_signal_nbi
    module procedure put_signal_nbi_scalar, put_signal_nbi_array
  end interface
  interface pgdds_wait_until
    module procedure wait_until_int64, wait_until_int32
  end interface
  interface pgdds_test_until
    module procedure test_until_int64, test_until_int32
  end interface
  interface pgdds_darray_local
    module procedure darray_local_int32, darray_local_int64, darray_local_real32, darray_local_real64
  end interface
  interface pgdds_dmatrix_local_tile
    module procedure dmatrix_local_tile_int32, dmatrix_local_tile_int64, dmatrix_local_tile_real32, &
                     dmatrix_local_tile_real64
  end interface
  interface pgdds_smatrix_local_tile
    module procedure smatrix_local_tile_int32, smatrix_local_tile_int64, smatrix_local_tile_real32, &
                     smatrix_local_tile_real64
  end interface
  interface pgdds_queue_push
    module procedure queue_push_scalar, queue_push_array
  end interface
  interface pgdds_queue_push_nb
    module procedure queue_push_nb_scalar, queue_push_nb_array
  end interface

  ! --- pgdds_init_params_t ---------------------------------------------------------------------
  type, bind(C) :: c_init_params
    integer(c_int64_t) :: field_mask = 0
    integer(c_int) :: thread_level = 0
    integer(c_size_t) :: segment_size = 0
    type(c_ptr) :: transport = c_null_ptr
    integer(c_int) :: num_vcis = 0
  end type

  ! --- pgdds_config_var_t, pgdds_transport_attr_t ---------------------------------------------
  type, bind(C) :: c_config_var
    integer(c_int64_t) :: field_mask = 0
    type(c_ptr) :: name = c_null_ptr, type = c_null_ptr, default_value = c_null_ptr, choices = c_null_ptr
    type(c_ptr) :: description = c_null_ptr, value = c_null_ptr
    integer(c_int) :: value_ok = 1
  end type
  type, bind(C) :: c_transport_attr
    integer(c_int64_t) :: field_mask = 0
    type(c_ptr) :: transport = c_null_ptr, component = c_null_ptr
    integer(c_int) :: built = 0, usable = -1
    type(c_ptr) :: atomics = c_null_ptr, progress = c_null_ptr, detail = c_null_ptr
  end type

  ! --- pgdds_hashmap_params_t -----------------------------------------------------------------
  type, bind(C) :: c_dmatrix_params
    integer(c_int64_t) :: field_mask = 0
    integer(c_int64_t) :: rows = 0, cols = 0
    integer(c_int) :: dtype = 0, distribution = 0
    integer(c_int) :: grid_rows = 0, grid_cols = 0
    integer(c_int64_t) :: tile_rows = 0, tile_cols = 0
    integer(c_int) :: memory = 0
    integer(c_int) :: order = 0
  end type

  type, bind(C) :: c_dmatrix_info_record
    integer(c_int64_t) :: rows, cols
    integer(c_int) :: dtype
    integer(c_size_t) :: elem_size
    integer(c_int) :: grid_rows, grid_cols
    integer(c_int64_t) :: tile_rows, tile_cols, tile_grid_rows, tile_grid_cols
  end type

  type, bind(C) :: c_matrix_steals
    integer(c_int64_t) :: own_steps, stolen_steps, claims
  end type

  type, bind(C) :: c_hashmap_params
    integer(c_int64_t) :: field_mask = 0
    integer(c_size_t) :: key_size = 0, value_size = 0
    integer(c_int64_t) :: capacity = 0
  end type

  ! --- pgdds_queue_params_t -------------------------------------------------------------------
  type, bind(C) :: c_queue_params
    integer(c_int64_t) :: field_mask = 0
    integer(c_int) :: kind = 0
    integer(c_size_t) :: elem_size = 0
    integer(c_int64_t) :: capacity = 0
    integer(c_int) :: host_rank = 0
  end type

  ! --- The C ABI, used by the wrappers and the containers submodule ---------------------------------------
  interface
    function c_init(params, ctx) bind(C, name='pgdds_init') result(st)
      import :: c_init_params, c_ptr, c_int
      type(c_init_params), intent(in) :: params
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: st
    end function
    function c_finalize(ctx) bind(C, name='pgdds_finalize') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: st
    end function
    function c_rank(ctx) bind(C, name='pgdds_rank') result(r)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: r
    end function
    function c_nranks(ctx) bind(C, name='pgdds_nranks') result(r)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: r
    end function
    function c_local_rank(ctx) bind(C, name='pgdds_local_rank') result(r)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: r
    end function
    function c_local_nranks(ctx) bind(C, name='pgdds_local_nranks') result(r)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: r
    end function
    function c_transport_name(ctx) bind(C, name='pgdds_transport_name') result(s)
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: s
    end function
    function c_version_string() bind(C, name='pgdds_version_string') result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function
    function c_strerror(st) bind(C, name='pgdds_strerror') result(s)
      import :: c_ptr, c_int
      integer(c_int), value :: st
      type(c_ptr) :: s
    end function
    function c_last_error() bind(C, name='pgdds_last_error') result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function
    function c_set_last_error(st, message) bind(C, name='pgdds_set_last_error') result(r)
      import :: c_int, c_char
      integer(c_int), value :: st
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: r
    end function
    function c_strlen(s) bind(C, name='strlen') result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function

    function c_barrier(ctx) bind(C, name='pgdds_barrier') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: st
    end function
    function c_broadcast(ctx, buf, n, root) bind(C, name='pgdds_broadcast') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx, buf
      integer(c_size_t), value :: n
      integer(c_int), value :: root
      integer(c_int) :: st
    end function
    function c_allreduce(ctx, in, out, count, dtype, op) bind(C, name='pgdds_allreduce') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx, in, out
      integer(c_size_t), value :: count
      integer(c_int), value :: dtype, op
      integer(c_int) :: st
    end function
    function c_allgather(ctx, in, out, bytes_per_rank) bind(C, name='pgdds_allgather') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx, in, out
      integer(c_size_t), value :: bytes_per_rank
      integer(c_int) :: st
    end function

    function c_team_world(ctx, team) bind(C, name='pgdds_team_world') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      type(c_ptr) :: team
      integer(c_int) :: st
    end function
    function c_team_node(ctx, team) bind(C, name='pgdds_team_node') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      type(c_ptr) :: team
      integer(c_int) :: st
    end function
    function c_team_rank(team, rank) bind(C, name='pgdds_team_rank') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team
      integer(c_int) :: rank, st
    end function
    function c_team_size(team, size) bind(C, name='pgdds_team_size') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team
      integer(c_int) :: size, st
    end function
    function c_team_translate_rank(src, src_rank, dst, dst_rank) bind(C, name='pgdds_team_translate_rank') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: src, dst
      integer(c_int), value :: src_rank
      integer(c_int) :: dst_rank, st
    end function
    function c_team_split_strided(parent, start, stride, size, new) bind(C, name='pgdds_team_split_strided') &
        result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: parent
      integer(c_int), value :: start, stride, size
      type(c_ptr) :: new
      integer(c_int) :: st
    end function
    function c_team_split_2d(parent, xrange, xaxis, yaxis) bind(C, name='pgdds_team_split_2d') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: parent
      integer(c_int), value :: xrange
      type(c_ptr) :: xaxis, yaxis
      integer(c_int) :: st
    end function
    function c_team_destroy(team) bind(C, name='pgdds_team_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team
      integer(c_int) :: st
    end function
    function c_team_barrier(team) bind(C, name='pgdds_team_barrier') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team
      integer(c_int) :: st
    end function
    function c_team_broadcast(team, buf, n, root) bind(C, name='pgdds_team_broadcast') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: team, buf
      integer(c_size_t), value :: n
      integer(c_int), value :: root
      integer(c_int) :: st
    end function
    function c_team_allreduce(team, in, out, count, dtype, op) bind(C, name='pgdds_team_allreduce') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: team, in, out
      integer(c_size_t), value :: count
      integer(c_int), value :: dtype, op
      integer(c_int) :: st
    end function
    function c_team_reduce(team, in, out, count, dtype, op, root) bind(C, name='pgdds_team_reduce') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: team, in, out
      integer(c_size_t), value :: count
      integer(c_int), value :: dtype, op, root
      integer(c_int) :: st
    end function
    function c_team_allgather(team, in, out, bytes_per_rank) bind(C, name='pgdds_team_allgather') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: team, in, out
      integer(c_size_t), value :: bytes_per_rank
      integer(c_int) :: st
    end function
    function c_team_allgatherv(team, in, out, counts, displs) bind(C, name='pgdds_team_allgatherv') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team, in, out, counts, displs
      integer(c_int) :: st
    end function
    function c_team_alltoall(team, in, out, bytes_per_pair) bind(C, name='pgdds_team_alltoall') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: team, in, out
      integer(c_size_t), value :: bytes_per_pair
      integer(c_int) :: st
    end function
    function c_team_alltoallv(team, in, send_counts, send_displs, out, recv_counts, recv_displs) &
        bind(C, name='pgdds_team_alltoallv') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: team, in, send_counts, send_displs, out, recv_counts, recv_displs
      integer(c_int) :: st
    end function

    function c_alloc(ctx, size, alignment, out) bind(C, name='pgdds_alloc') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_size_t), value :: size, alignment
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_free(ctx, ptr) bind(C, name='pgdds_free') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ptr
      integer(c_int) :: st
    end function
    function c_alloc_all(ctx, size, alignment, flags, out) bind(C, name='pgdds_alloc_all') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_size_t), value :: size, alignment
      integer(c_int), value :: flags
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_free_all(ctx, ptr) bind(C, name='pgdds_free_all') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ptr
      integer(c_int) :: st
    end function
    function c_gptr_at(ctx, ptr, rank, out) bind(C, name='pgdds_gptr_at') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ptr
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_put_signal(ctx, dst, src, n, sig, signal, sig_op) bind(C, name='pgdds_put_signal') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, src
      integer(c_int64_t), value :: dst, sig, signal
      integer(c_size_t), value :: n
      integer(c_int), value :: sig_op
      integer(c_int) :: st
    end function
    function c_put_signal_nbi(ctx, dst, src, n, sig, signal, sig_op) bind(C, name='pgdds_put_signal_nbi') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, src
      integer(c_int64_t), value :: dst, sig, signal
      integer(c_size_t), value :: n
      integer(c_int), value :: sig_op
      integer(c_int) :: st
    end function
    function c_signal_fetch(ctx, sig, value) bind(C, name='pgdds_signal_fetch') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: sig
      integer(c_int64_t), intent(out) :: value
      integer(c_int) :: st
    end function
    function c_wait_until_u64(ctx, ivar, cmp, value) bind(C, name='pgdds_wait_until_u64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ivar, value
      integer(c_int), value :: cmp
      integer(c_int) :: st
    end function
    function c_wait_until_u32(ctx, ivar, cmp, value) bind(C, name='pgdds_wait_until_u32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ivar
      integer(c_int), value :: cmp
      integer(c_int32_t), value :: value
      integer(c_int) :: st
    end function
    function c_test_until_u64(ctx, ivar, cmp, value, satisfied) bind(C, name='pgdds_test_until_u64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ivar, value
      integer(c_int), value :: cmp
      integer(c_int), intent(out) :: satisfied
      integer(c_int) :: st
    end function
    function c_test_until_u32(ctx, ivar, cmp, value, satisfied) bind(C, name='pgdds_test_until_u32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ivar
      integer(c_int), value :: cmp
      integer(c_int32_t), value :: value
      integer(c_int), intent(out) :: satisfied
      integer(c_int) :: st
    end function
    function c_alloc_kind(ctx, kind, size, alignment, out) bind(C, name='pgdds_alloc_kind') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: kind
      integer(c_size_t), value :: size, alignment
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_gptr_kind(ptr) bind(C, name='pgdds_gptr_kind') result(r)
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: ptr
      integer(c_int) :: r
    end function
    function c_gptr_rank(ptr) bind(C, name='pgdds_gptr_rank') result(r)
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: ptr
      integer(c_int) :: r
    end function
    function c_gptr_offset(ptr) bind(C, name='pgdds_gptr_offset') result(r)
      import :: c_int64_t
      integer(c_int64_t), value :: ptr
      integer(c_int64_t) :: r
    end function
    function c_gptr_add(ptr, bytes) bind(C, name='pgdds_gptr_add') result(r)
      import :: c_int64_t
      integer(c_int64_t), value :: ptr, bytes
      integer(c_int64_t) :: r
    end function
    function c_gptr_to_local(ctx, ptr) bind(C, name='pgdds_gptr_to_local') result(p)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: ptr
      type(c_ptr) :: p
    end function

    function c_put(ctx, dst, src, n) bind(C, name='pgdds_put') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, src
      integer(c_int64_t), value :: dst
      integer(c_size_t), value :: n
      integer(c_int) :: st
    end function
    function c_get(ctx, dst, src, n) bind(C, name='pgdds_get') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, dst
      integer(c_int64_t), value :: src
      integer(c_size_t), value :: n
      integer(c_int) :: st
    end function
    function c_flush(ctx) bind(C, name='pgdds_flush') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: st
    end function
    function c_fence(ctx) bind(C, name='pgdds_fence') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: st
    end function

    function c_atomic_i64(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_i64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target, operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_i32(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_i32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_float(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_float') result(st)
      import :: c_ptr, c_int, c_int64_t, c_float
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target
      real(c_float), value :: operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_double(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_double') result(st)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target
      real(c_double), value :: operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_cswap_i32(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_i32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: expected, desired
      integer(c_int32_t), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_cswap_float(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_float') result(st)
      import :: c_ptr, c_int, c_int64_t, c_float
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      real(c_float), value :: expected, desired
      real(c_float), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_cswap_double(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_double') result(st)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      real(c_double), value :: expected, desired
      real(c_double), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_u64(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_u64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target, operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_cswap_u64(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_u64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target, expected, desired
      integer(c_int64_t), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_u64_nb(ctx, target, op, operand, fetched, req) bind(C, name='pgdds_atomic_u64_nb') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target, operand
      integer(c_int), value :: op
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_atomic_cswap_u64_nb(ctx, target, expected, desired, old, req) &
        bind(C, name='pgdds_atomic_cswap_u64_nb') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx, old
      integer(c_int64_t), value :: target, expected, desired
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_test(ctx, req, done) bind(C, name='pgdds_test') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx, req
      integer(c_int), intent(out) :: done
      integer(c_int) :: st
    end function
    function c_wait(ctx, req) bind(C, name='pgdds_wait') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx, req
      integer(c_int) :: st
    end function
    function c_atomic_load_u64(ctx, target, value) bind(C, name='pgdds_atomic_load_u64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      integer(c_int64_t), intent(out) :: value
      integer(c_int) :: st
    end function
    function c_atomic_load_u32(ctx, target, value) bind(C, name='pgdds_atomic_load_u32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      integer(c_int32_t), intent(out) :: value
      integer(c_int) :: st
    end function
    function c_atomic_u32(ctx, target, op, operand, fetched) bind(C, name='pgdds_atomic_u32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_cswap_u32(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_u32') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: expected, desired
      integer(c_int32_t), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_cswap_i64(ctx, target, expected, desired, old) bind(C, name='pgdds_atomic_cswap_i64') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target, expected, desired
      integer(c_int64_t), intent(out) :: old
      integer(c_int) :: st
    end function
    function c_atomic_u64_nbi(ctx, target, op, operand) bind(C, name='pgdds_atomic_u64_nbi') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target, operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_u32_nbi(ctx, target, op, operand) bind(C, name='pgdds_atomic_u32_nbi') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: operand
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_atomic_u32_nb(ctx, target, op, operand, fetched, req) bind(C, name='pgdds_atomic_u32_nb') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx, fetched
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: operand
      integer(c_int), value :: op
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_atomic_cswap_u32_nb(ctx, target, expected, desired, old, req) &
        bind(C, name='pgdds_atomic_cswap_u32_nb') result(st)
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx, old
      integer(c_int64_t), value :: target
      integer(c_int32_t), value :: expected, desired
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_put_nb(ctx, dst, src, n, req) bind(C, name='pgdds_put_nb') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, src
      integer(c_int64_t), value :: dst
      integer(c_size_t), value :: n
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_get_nb(ctx, dst, src, n, req) bind(C, name='pgdds_get_nb') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, dst
      integer(c_int64_t), value :: src
      integer(c_size_t), value :: n
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_put_nbi(ctx, dst, src, n) bind(C, name='pgdds_put_nbi') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, src
      integer(c_int64_t), value :: dst
      integer(c_size_t), value :: n
      integer(c_int) :: st
    end function
    function c_get_nbi(ctx, dst, src, n) bind(C, name='pgdds_get_nbi') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx, dst
      integer(c_int64_t), value :: src
      integer(c_size_t), value :: n
      integer(c_int) :: st
    end function

    function c_gptr_from_local(ctx, addr, out) bind(C, name='pgdds_gptr_from_local') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: ctx, addr
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_segment_size(ctx, rank, size) bind(C, name='pgdds_segment_size') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: rank
      integer(c_size_t), intent(out) :: size
      integer(c_int) :: st
    end function
    function c_num_vcis(ctx) bind(C, name='pgdds_num_vcis') result(n)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: n  ! C's unsigned: a count far below 2^31
    end function
    function c_vci_bind(ctx, vci) bind(C, name='pgdds_vci_bind') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int), value :: vci
      integer(c_int) :: st
    end function
    function c_vci_current(ctx) bind(C, name='pgdds_vci_current') result(v)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: v
    end function
    function c_net_counts(ctx, counts) bind(C, name='pgdds_net_counts') result(st)
      import :: c_ptr, c_int, pgdds_net_counts_t
      type(c_ptr), value :: ctx
      type(pgdds_net_counts_t), intent(out) :: counts
      integer(c_int) :: st
    end function

    function c_gpu_device(ctx, device) bind(C, name='pgdds_gpu_device') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: device
      integer(c_int) :: st
    end function
    function c_gpu_probe(devices) bind(C, name='pgdds_gpu_probe') result(st)
      import :: c_int
      integer(c_int), intent(out) :: devices
      integer(c_int) :: st
    end function

    function c_map_static_data(ctx, flags) bind(C, name='pgdds_map_static_data') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int), value :: flags
      integer(c_int) :: st
    end function
    function c_build_option_count() bind(C, name='pgdds_build_option_count') result(n)
      import :: c_int
      integer(c_int) :: n
    end function
    function c_build_option(index, name, value) bind(C, name='pgdds_build_option') result(st)
      import :: c_int, c_ptr
      integer(c_int), value :: index
      type(c_ptr), intent(out) :: name, value
      integer(c_int) :: st
    end function
    function c_config_count() bind(C, name='pgdds_config_count') result(n)
      import :: c_int
      integer(c_int) :: n
    end function
    function c_config_describe(index, var) bind(C, name='pgdds_config_describe') result(st)
      import :: c_int, c_config_var
      integer(c_int), value :: index
      type(c_config_var), intent(inout) :: var
      integer(c_int) :: st
    end function
    function c_transport_probe(count) bind(C, name='pgdds_transport_probe') result(st)
      import :: c_int
      integer(c_int), intent(out) :: count
      integer(c_int) :: st
    end function
    function c_transport_describe(index, attr) bind(C, name='pgdds_transport_describe') result(st)
      import :: c_int, c_transport_attr
      integer(c_int), value :: index
      type(c_transport_attr), intent(inout) :: attr
      integer(c_int) :: st
    end function
    function c_am_register(ctx, h, arg, id) bind(C, name='pgdds_am_register') result(st)
      import :: c_ptr, c_int, c_int32_t, c_funptr
      type(c_ptr), value :: ctx, arg
      type(c_funptr), value :: h
      integer(c_int32_t), intent(out) :: id
      integer(c_int) :: st
    end function
    function c_am_send(ctx, dst_rank, id, payload, size) bind(C, name='pgdds_am_send') result(st)
      import :: c_ptr, c_int, c_int32_t, c_size_t
      type(c_ptr), value :: ctx, payload
      integer(c_int), value :: dst_rank
      integer(c_int32_t), value :: id
      integer(c_size_t), value :: size
      integer(c_int) :: st
    end function
    function c_rpc_register(id, fn) bind(C, name='pgdds_rpc_register') result(st)
      import :: c_int, c_int64_t, c_funptr
      integer(c_int64_t), value :: id
      type(c_funptr), value :: fn
      integer(c_int) :: st
    end function
    function c_rpc_call(ctx, rank, id, args, size, done, arg) bind(C, name='pgdds_rpc_call') result(st)
      import :: c_ptr, c_int, c_int64_t, c_size_t, c_funptr
      type(c_ptr), value :: ctx, args, arg
      integer(c_int), value :: rank
      integer(c_int64_t), value :: id
      integer(c_size_t), value :: size
      type(c_funptr), value :: done
      integer(c_int) :: st
    end function
    function c_rpc_reply(reply, status, result, size, message) bind(C, name='pgdds_rpc_reply') result(st)
      import :: c_ptr, c_int, c_size_t, c_char
      type(c_ptr), value :: reply, result
      integer(c_int), value :: status
      integer(c_size_t), value :: size
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: st
    end function
    function c_progress(ctx) bind(C, name='pgdds_progress') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: st
    end function

    function c_hashmap_create(ctx, params, map) bind(C, name='pgdds_hashmap_create') result(st)
      import :: c_ptr, c_int, c_hashmap_params
      type(c_ptr), value :: ctx
      type(c_hashmap_params), intent(in) :: params
      type(c_ptr), intent(out) :: map
      integer(c_int) :: st
    end function
    function c_hashmap_destroy(map) bind(C, name='pgdds_hashmap_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map
      integer(c_int) :: st
    end function
    function c_hashmap_insert(map, key, value, concurrent) bind(C, name='pgdds_hashmap_insert') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key, value
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function
    function c_hashmap_find(map, key, value, concurrent) bind(C, name='pgdds_hashmap_find') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key, value
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function
    function c_hashmap_erase(map, key, concurrent) bind(C, name='pgdds_hashmap_erase') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function
    function c_hashmap_size(map, count) bind(C, name='pgdds_hashmap_size') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: map
      integer(c_int64_t), intent(out) :: count
      integer(c_int) :: st
    end function
    function c_hashmap_local_next(map, cursor, key, value) bind(C, name='pgdds_hashmap_local_next') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: map, key, value
      integer(c_int64_t), intent(inout) :: cursor
      integer(c_int) :: st
    end function
    function c_hashmap_protocol(map, rank, protocol) bind(C, name='pgdds_hashmap_protocol') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map
      integer(c_int), value :: rank
      integer(c_int), intent(out) :: protocol
      integer(c_int) :: st
    end function
    function c_hashmap_op_protocol(map, rank, op, concurrent, protocol) bind(C, name='pgdds_hashmap_op_protocol') &
        result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map
      integer(c_int), value :: rank, op, concurrent
      integer(c_int), intent(out) :: protocol
      integer(c_int) :: st
    end function

    function c_hashmap_insert_nb(map, key, value, concurrent, req) bind(C, name='pgdds_hashmap_insert_nb') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key, value
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_hashmap_find_nb(map, key, value, concurrent, req) bind(C, name='pgdds_hashmap_find_nb') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key, value
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_hashmap_erase_nb(map, key, concurrent, req) bind(C, name='pgdds_hashmap_erase_nb') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: map, key
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function

    function c_hashmap_insert_many(map, count, keys, values, concurrent) &
        bind(C, name='pgdds_hashmap_insert_many') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: map, keys, values
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function

    function c_hashmap_find_many(map, count, keys, values, found, concurrent) &
        bind(C, name='pgdds_hashmap_find_many') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: map, keys, values, found
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function

    function c_hashmap_insert_many_nb(map, count, keys, values, concurrent, req) &
        bind(C, name='pgdds_hashmap_insert_many_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: map, keys, values
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function

    function c_hashmap_find_many_nb(map, count, keys, values, found, concurrent, req) &
        bind(C, name='pgdds_hashmap_find_many_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: map, keys, values, found
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function

    function c_queue_create(ctx, params, queue) bind(C, name='pgdds_queue_create') result(st)
      import :: c_ptr, c_int, c_queue_params
      type(c_ptr), value :: ctx
      type(c_queue_params), intent(in) :: params
      type(c_ptr), intent(out) :: queue
      integer(c_int) :: st
    end function
    function c_queue_destroy(queue) bind(C, name='pgdds_queue_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: queue
      integer(c_int) :: st
    end function
    function c_queue_push(queue, elems, count, concurrent) bind(C, name='pgdds_queue_push') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: queue, elems
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function
    function c_queue_pop(queue, elems, max, popped, concurrent) bind(C, name='pgdds_queue_pop') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: queue, elems
      integer(c_size_t), value :: max
      integer(c_size_t), intent(out) :: popped
      integer(c_int), value :: concurrent
      integer(c_int) :: st
    end function
    function c_queue_push_nb(queue, elems, count, concurrent, req) bind(C, name='pgdds_queue_push_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: queue, elems
      integer(c_size_t), value :: count
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    ! popped is a pointer: the library writes it when the request completes.
    function c_queue_pop_nb(queue, elems, max, popped, concurrent, req) bind(C, name='pgdds_queue_pop_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: queue, elems, popped
      integer(c_size_t), value :: max
      integer(c_int), value :: concurrent
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_queue_size(queue, count) bind(C, name='pgdds_queue_size') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: queue
      integer(c_int64_t), intent(out) :: count
      integer(c_int) :: st
    end function
    function c_queue_capacity(queue, capacity) bind(C, name='pgdds_queue_capacity') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: queue
      integer(c_int64_t), intent(out) :: capacity
      integer(c_int) :: st
    end function
    function c_queue_host(queue, host_rank) bind(C, name='pgdds_queue_host') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: queue
      integer(c_int), intent(out) :: host_rank
      integer(c_int) :: st
    end function

    function c_bloom_create(ctx, expected_items, false_positive_rate, bloom) bind(C, name='pgdds_bloom_create') &
        result(st)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: expected_items
      real(c_double), value :: false_positive_rate
      type(c_ptr), intent(out) :: bloom
      integer(c_int) :: st
    end function
    function c_bloom_destroy(bloom) bind(C, name='pgdds_bloom_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: bloom
      integer(c_int) :: st
    end function
    ! was_present: c_null_ptr, or the address of a C int.
    function c_bloom_insert(bloom, key, len, was_present) bind(C, name='pgdds_bloom_insert') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, key, was_present
      integer(c_size_t), value :: len
      integer(c_int) :: st
    end function
    function c_bloom_contains(bloom, key, len, maybe_present) bind(C, name='pgdds_bloom_contains') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, key
      integer(c_size_t), value :: len
      integer(c_int), intent(out) :: maybe_present
      integer(c_int) :: st
    end function
    ! The flags (was_present, maybe_present) are the addresses of count unsigned chars, or
    ! c_null_ptr where C allows it.
    function c_bloom_insert_many(bloom, count, keys, key_len, was_present) bind(C, name='pgdds_bloom_insert_many') &
        result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, keys, was_present
      integer(c_size_t), value :: count, key_len
      integer(c_int) :: st
    end function
    function c_bloom_contains_many(bloom, count, keys, key_len, maybe_present) &
        bind(C, name='pgdds_bloom_contains_many') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, keys, maybe_present
      integer(c_size_t), value :: count, key_len
      integer(c_int) :: st
    end function
    function c_bloom_insert_many_nb(bloom, count, keys, key_len, was_present, req) &
        bind(C, name='pgdds_bloom_insert_many_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, keys, was_present
      integer(c_size_t), value :: count, key_len
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_bloom_contains_many_nb(bloom, count, keys, key_len, maybe_present, req) &
        bind(C, name='pgdds_bloom_contains_many_nb') result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: bloom, keys, maybe_present
      integer(c_size_t), value :: count, key_len
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function

    function c_darray_create(ctx, elem_size, count, array) bind(C, name='pgdds_darray_create') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_size_t), value :: elem_size
      integer(c_int64_t), value :: count
      type(c_ptr), intent(out) :: array
      integer(c_int) :: st
    end function
    function c_darray_destroy(array) bind(C, name='pgdds_darray_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: array
      integer(c_int) :: st
    end function
    function c_darray_gptr(array, index, out) bind(C, name='pgdds_darray_gptr') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: array
      integer(c_int64_t), value :: index
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_darray_local(array, elems, first_index, count) bind(C, name='pgdds_darray_local') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: elems
      integer(c_int64_t), intent(out) :: first_index, count
      integer(c_int) :: st
    end function

    function c_dmatrix_create(ctx, params, matrix) bind(C, name='pgdds_dmatrix_create') result(st)
      import :: c_ptr, c_int, c_dmatrix_params
      type(c_ptr), value :: ctx
      type(c_dmatrix_params), intent(in) :: params
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: st
    end function
    function c_dmatrix_destroy(matrix) bind(C, name='pgdds_dmatrix_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: matrix
      integer(c_int) :: st
    end function
    function c_dmatrix_info(matrix, info) bind(C, name='pgdds_dmatrix_info') result(st)
      import :: c_ptr, c_int, c_dmatrix_info_record
      type(c_ptr), value :: matrix
      type(c_dmatrix_info_record), intent(out) :: info
      integer(c_int) :: st
    end function
    function c_dmatrix_tile_shape(matrix, ti, tj, rows, cols, owner) bind(C, name='pgdds_dmatrix_tile_shape') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int64_t), value :: ti, tj
      integer(c_int64_t), intent(out) :: rows, cols
      integer(c_int), intent(out) :: owner
      integer(c_int) :: st
    end function
    function c_dmatrix_get_tile(matrix, ti, tj, buf, ld) bind(C, name='pgdds_dmatrix_get_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj, ld
      integer(c_int) :: st
    end function
    function c_dmatrix_put_tile(matrix, ti, tj, buf, ld) bind(C, name='pgdds_dmatrix_put_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj, ld
      integer(c_int) :: st
    end function
    function c_dmatrix_accumulate_tile(matrix, ti, tj, buf, ld) bind(C, name='pgdds_dmatrix_accumulate_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj, ld
      integer(c_int) :: st
    end function
    function c_dmatrix_get_tile_nb(matrix, ti, tj, buf, req) bind(C, name='pgdds_dmatrix_get_tile_nb') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_dmatrix_put_tile_nb(matrix, ti, tj, buf, req) bind(C, name='pgdds_dmatrix_put_tile_nb') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_dmatrix_accumulate_tile_nb(matrix, ti, tj, buf, req) bind(C, name='pgdds_dmatrix_accumulate_tile_nb') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: ti, tj
      type(c_ptr), intent(out) :: req
      integer(c_int) :: st
    end function
    function c_dmatrix_get_slice(matrix, row0, col0, nrows, ncols, buf, ld) bind(C, name='pgdds_dmatrix_get_slice') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: row0, col0, nrows, ncols, ld
      integer(c_int) :: st
    end function
    function c_dmatrix_put_slice(matrix, row0, col0, nrows, ncols, buf, ld) bind(C, name='pgdds_dmatrix_put_slice') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: row0, col0, nrows, ncols, ld
      integer(c_int) :: st
    end function
    function c_dmatrix_gemm(alpha, a, b, beta, c, algorithm) bind(C, name='pgdds_dmatrix_gemm') result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c
      integer(c_int), value :: algorithm
      integer(c_int) :: st
    end function
    function c_dmatrix_view(matrix, trans, row0, col0, rows, cols, view) bind(C, name='pgdds_dmatrix_view') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int), value :: trans
      integer(c_int64_t), value :: row0, col0, rows, cols
      type(c_ptr), intent(out) :: view
      integer(c_int) :: st
    end function
    function c_dmatrix_order(matrix, order) bind(C, name='pgdds_dmatrix_order') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: matrix
      integer(c_int), intent(out) :: order
      integer(c_int) :: st
    end function
    function c_dmatrix_scale(alpha, matrix) bind(C, name='pgdds_dmatrix_scale') result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha
      type(c_ptr), value :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_scale(alpha, matrix) bind(C, name='pgdds_smatrix_scale') result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha
      type(c_ptr), value :: matrix
      integer(c_int) :: st
    end function
    function c_dmatrix_add(alpha, a, beta, b) bind(C, name='pgdds_dmatrix_add') result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b
      integer(c_int) :: st
    end function
    function c_smatrix_add(alpha, a, beta, b, c) bind(C, name='pgdds_smatrix_add') result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b
      type(c_ptr), intent(out) :: c
      integer(c_int) :: st
    end function
    function c_dmatrix_transpose(a, b) bind(C, name='pgdds_dmatrix_transpose') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: a, b
      integer(c_int) :: st
    end function
    function c_smatrix_transpose(a, c) bind(C, name='pgdds_smatrix_transpose') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: a
      type(c_ptr), intent(out) :: c
      integer(c_int) :: st
    end function
    function c_dmatrix_apply(matrix, fn, arg) bind(C, name='pgdds_dmatrix_apply') result(st)
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: matrix, arg
      type(c_funptr), value :: fn
      integer(c_int) :: st
    end function
    function c_smatrix_apply(matrix, fn, arg) bind(C, name='pgdds_smatrix_apply') result(st)
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: matrix, arg
      type(c_funptr), value :: fn
      integer(c_int) :: st
    end function
    function c_dmatrix_reduce(matrix, op, out) bind(C, name='pgdds_dmatrix_reduce') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: matrix, out
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_smatrix_reduce(matrix, op, out) bind(C, name='pgdds_smatrix_reduce') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: matrix, out
      integer(c_int), value :: op
      integer(c_int) :: st
    end function
    function c_dmatrix_norm(matrix, norm, out) bind(C, name='pgdds_dmatrix_norm') result(st)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: matrix
      integer(c_int), value :: norm
      real(c_double), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_smatrix_norm(matrix, norm, out) bind(C, name='pgdds_smatrix_norm') result(st)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: matrix
      integer(c_int), value :: norm
      real(c_double), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_dmatrix_gemm_trans(trans_a, trans_b, alpha, a, b, beta, c, algorithm) &
        bind(C, name='pgdds_dmatrix_gemm_trans') result(st)
      import :: c_ptr, c_int, c_double
      integer(c_int), value :: trans_a, trans_b
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c
      integer(c_int), value :: algorithm
      integer(c_int) :: st
    end function
    function c_dmatrix_steals(c, out) bind(C, name='pgdds_dmatrix_steals') result(st)
      import :: c_ptr, c_int, c_matrix_steals
      type(c_ptr), value :: c
      type(c_matrix_steals), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_dmatrix_tile_gptr(matrix, ti, tj, out) bind(C, name='pgdds_dmatrix_tile_gptr') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int64_t), value :: ti, tj
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_dmatrix_local_tile(matrix, ti, tj, data) bind(C, name='pgdds_dmatrix_local_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int64_t), value :: ti, tj
      type(c_ptr), intent(out) :: data
      integer(c_int) :: st
    end function
    function c_dmatrix_get(matrix, i, j, value) bind(C, name='pgdds_dmatrix_get') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, value
      integer(c_int64_t), value :: i, j
      integer(c_int) :: st
    end function
    function c_dmatrix_put(matrix, i, j, value) bind(C, name='pgdds_dmatrix_put') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, value
      integer(c_int64_t), value :: i, j
      integer(c_int) :: st
    end function
    function c_dmatrix_fill(matrix, generator, arg) bind(C, name='pgdds_dmatrix_fill') result(st)
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: matrix, arg
      type(c_funptr), value :: generator
      integer(c_int) :: st
    end function
    function c_smatrix_tile_shape(matrix, ti, tj, rows, cols, nnz, owner) bind(C, name='pgdds_smatrix_tile_shape') &
        result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int64_t), value :: ti, tj
      integer(c_int64_t), intent(out) :: rows, cols, nnz
      integer(c_int), intent(out) :: owner
      integer(c_int) :: st
    end function
    function c_smatrix_get_tile(matrix, ti, tj, row_offsets, col_indices, values) &
        bind(C, name='pgdds_smatrix_get_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, row_offsets, col_indices, values
      integer(c_int64_t), value :: ti, tj
      integer(c_int) :: st
    end function
    function c_smatrix_local_tile(matrix, ti, tj, row_offsets, col_indices, values) &
        bind(C, name='pgdds_smatrix_local_tile') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix
      integer(c_int64_t), value :: ti, tj
      type(c_ptr), intent(out) :: row_offsets, col_indices, values
      integer(c_int) :: st
    end function
    function c_smatrix_create_coo(ctx, params, count, rows, cols, values, matrix) &
        bind(C, name='pgdds_smatrix_create_coo') result(st)
      import :: c_ptr, c_int, c_size_t, c_int64_t, c_dmatrix_params
      type(c_ptr), value :: ctx
      type(c_dmatrix_params), intent(in) :: params
      integer(c_size_t), value :: count
      integer(c_int64_t), intent(in) :: rows(*), cols(*)
      type(c_ptr), value :: values
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_destroy(matrix) bind(C, name='pgdds_smatrix_destroy') result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_info(matrix, info, nnz) bind(C, name='pgdds_smatrix_info') result(st)
      import :: c_ptr, c_int, c_int64_t, c_dmatrix_info_record
      type(c_ptr), value :: matrix
      type(c_dmatrix_info_record), intent(out) :: info
      integer(c_int64_t), intent(out) :: nnz
      integer(c_int) :: st
    end function
    function c_smatrix_get_slice(matrix, row0, col0, nrows, ncols, buf, ld) bind(C, name='pgdds_smatrix_get_slice') result(st)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: matrix, buf
      integer(c_int64_t), value :: row0, col0, nrows, ncols, ld
      integer(c_int) :: st
    end function
    function c_smatrix_spmm_algorithm(alpha, a, b, beta, c, algorithm) bind(C, name='pgdds_smatrix_spmm_algorithm') &
        result(st)
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c
      integer(c_int), value :: algorithm
      integer(c_int) :: st
    end function
    function c_smatrix_spgemm(alpha, a, b, params, algorithm, c) bind(C, name='pgdds_smatrix_spgemm') result(st)
      import :: c_ptr, c_int, c_double, c_dmatrix_params
      real(c_double), value :: alpha
      type(c_ptr), value :: a, b
      type(c_dmatrix_params), intent(in) :: params
      integer(c_int), value :: algorithm
      type(c_ptr), intent(out) :: c
      integer(c_int) :: st
    end function
    function c_smatrix_steals(c, out) bind(C, name='pgdds_smatrix_steals') result(st)
      import :: c_ptr, c_int, c_matrix_steals
      type(c_ptr), value :: c
      type(c_matrix_steals), intent(out) :: out
      integer(c_int) :: st
    end function
    function c_smatrix_stencil(ctx, params, nx, ny, nz, points, matrix) bind(C, name='pgdds_smatrix_stencil') result(st)
      import :: c_ptr, c_int, c_int64_t, c_dmatrix_params
      type(c_ptr), value :: ctx
      type(c_dmatrix_params), intent(in) :: params
      integer(c_int64_t), value :: nx, ny, nz
      integer(c_int), value :: points
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_rmat(ctx, params, scale, edge_factor, seed, matrix) bind(C, name='pgdds_smatrix_rmat') result(st)
      import :: c_ptr, c_int, c_int64_t, c_dmatrix_params
      type(c_ptr), value :: ctx
      type(c_dmatrix_params), intent(in) :: params
      integer(c_int), value :: scale, edge_factor
      integer(c_int64_t), value :: seed
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_read_mm(ctx, path, params, matrix) bind(C, name='pgdds_smatrix_read_mm') result(st)
      import :: c_ptr, c_int, c_char, c_dmatrix_params
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      type(c_dmatrix_params), intent(in) :: params
      type(c_ptr), intent(out) :: matrix
      integer(c_int) :: st
    end function
    function c_smatrix_write_mm(matrix, path) bind(C, name='pgdds_smatrix_write_mm') result(st)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: matrix
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: st
    end function
  end interface

  ! --- Helpers shared with the containers submodule: implemented in the submodule pgdds_helpers,
  ! because compilers give a private procedure of a module local linkage, out of a submodule's
  ! reach, when it is defined in the module itself. ---------------------------------------------
  interface
    ! Records a failure found by the wrappers themselves, so that pgdds_last_error() explains it.
    module function fail(st, message) result(r)
      integer(c_int), intent(in) :: st
      character(len=*), intent(in) :: message
      integer(c_int) :: r
    end function
    ! The address, size in bytes and pgdds_dtype_t of a scalar of a supported type; dtype is -1
    ! for any other type.
    module subroutine describe_scalar(x, addr, bytes, dtype)
      class(*), intent(in), target :: x
      type(c_ptr), intent(out) :: addr
      integer(c_size_t), intent(out) :: bytes
      integer(c_int), intent(out) :: dtype
    end subroutine
    ! The same for a contiguous rank-1 array; addr is null for an empty one.
    module subroutine describe_array(x, addr, bytes, dtype)
      class(*), intent(in), target, contiguous :: x(:)
      type(c_ptr), intent(out) :: addr
      integer(c_size_t), intent(out) :: bytes
      integer(c_int), intent(out) :: dtype
    end subroutine
    ! PGDDS_OK for a dtype that describe_scalar or describe_array found; else the failure, recorded
    ! with who and what in its message.
    module function type_status(dtype, who, what) result(st)
      integer(c_int), intent(in) :: dtype
      character(len=*), intent(in) :: who, what
      integer(c_int) :: st
    end function
    ! The address and size in bytes of a rank-1 array of a supported type that the library reads or
    ! writes after the call returns (the non-blocking forms): it must be contiguous, since a copy
    ! made for the call would be gone by then. Else the failure, recorded with who and what.
    module function async_array(who, what, x, addr, bytes) result(st)
      character(len=*), intent(in) :: who, what
      class(*), intent(in), target :: x(:)
      type(c_ptr), intent(out) :: addr
      integer(c_size_t), intent(out) :: bytes
      integer(c_int) :: st
    end function
    ! The same for an array of flags (one byte each, C's unsigned char) that the library sets
    ! when a request completes.
    module function async_flags(who, what, flags, addr) result(st)
      character(len=*), intent(in) :: who, what
      integer(c_signed_char), intent(in), target :: flags(:)
      type(c_ptr), intent(out) :: addr
      integer(c_int) :: st
    end function
  end interface

  ! --- Containers: implemented in the submodule pgdds_containers --------------------------------
  interface
    ! A hash map whose keys and values are scalars of the given types (PGDDS_INT32, PGDDS_INT64,
    ! PGDDS_FLOAT, PGDDS_DOUBLE). Collective.
    module function pgdds_hashmap_create(ctx, map, capacity, key_type, value_type) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_hashmap), intent(out) :: map
      integer(int64), intent(in) :: capacity
      integer(c_int), intent(in) :: key_type, value_type
      integer(c_int) :: st
    end function
    module function pgdds_hashmap_destroy(map) result(st)
      type(pgdds_hashmap), intent(inout) :: map
      integer(c_int) :: st
    end function
    ! Inserts or assigns. concurrent: the PGDDS_CP_* operations that may run at the same time
    ! (default 0: anything).
    module function pgdds_hashmap_insert(map, key, value, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key, value
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! PGDDS_ERR_NOT_FOUND, value untouched, when the key is absent.
    module function pgdds_hashmap_find(map, key, value, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key
      class(*), intent(inout), target :: value
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    module function pgdds_hashmap_erase(map, key, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! The number of keys over all ranks. Collective.
    module function pgdds_hashmap_size(map, count) result(st)
      type(pgdds_hashmap), intent(in) :: map
      integer(int64), intent(out) :: count
      integer(c_int) :: st
    end function
    ! Copies the next entry of this rank's part (pgdds.h says what overlapping operations do):
    ! start with cursor = 0; PGDDS_ERR_NOT_FOUND once every entry has been seen.
    module function pgdds_hashmap_local_next(map, cursor, key, value) result(st)
      type(pgdds_hashmap), intent(in) :: map
      integer(int64), intent(inout) :: cursor
      class(*), intent(inout), target :: key, value
      integer(c_int) :: st
    end function
    ! How this rank's insert, erase and fully atomic find reach rank's part of the map (the map's
    ! protocol): PGDDS_PROTOCOL_DIRECT (load/store), PGDDS_PROTOCOL_RDMA or PGDDS_PROTOCOL_RPC.
    module function pgdds_hashmap_protocol(map, rank, protocol) result(st)
      type(pgdds_hashmap), intent(in) :: map
      integer, intent(in) :: rank
      integer, intent(out) :: protocol
      integer(c_int) :: st
    end function
    ! How this rank's operation op (PGDDS_CONTAINER_OP_INSERT, FIND, ERASE, INSERT_MANY or
    ! FIND_MANY), called with the promise concurrent (PGDDS_CP_* bits; default 0: anything),
    ! reaches rank's part: a CP_FIND find may read one-sidedly (RDMA) in a map served by RPC.
    module function pgdds_hashmap_op_protocol(map, rank, op, protocol, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      integer, intent(in) :: rank
      integer(c_int), intent(in) :: op
      integer, intent(out) :: protocol
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function

    ! The hash map's operations with a request (type(pgdds_request)) that completes with the
    ! status the blocking call would return (pgdds_test, pgdds_wait; their failure is explained by
    ! pgdds_last_error()). The key and value are copied before the call returns. Towards a part
    ! served by RPC the request completes when the owner's reply arrives; elsewhere at once.
    module function pgdds_hashmap_insert_nb(map, key, value, req, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key, value
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! value is written when the request completes with PGDDS_OK (PGDDS_ERR_NOT_FOUND: untouched):
    ! it must be a variable of its own (declare it target, asynchronous; not a temporary, not an
    ! element of an array that moves), left in place and untouched until pgdds_wait or
    ! pgdds_test has completed the request.
    module function pgdds_hashmap_find_nb(map, key, value, req, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key
      class(*), intent(inout), target, asynchronous :: value
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! The request completes with PGDDS_ERR_NOT_FOUND when the key is absent.
    module function pgdds_hashmap_erase_nb(map, key, req, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target :: key
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function

    ! Batches (pgdds_hashmap_insert_many, _find_many): keys, a contiguous rank-1 array of the
    ! map's key type, with values of its value type, at least as many. insert_many stops at the
    ! first key it cannot insert (pgdds.h says which are inserted then).
    module function pgdds_hashmap_insert_many(map, keys, values, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target, contiguous :: keys(:), values(:)
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! found(i) is .true. and values(i) written for each key present, .false. otherwise.
    module function pgdds_hashmap_find_many(map, keys, values, found, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target, contiguous :: keys(:)
      class(*), intent(inout), target, contiguous :: values(:)
      logical, intent(out) :: found(:)
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! The batches with a request. Keys and values to insert are copied before the call returns.
    ! A find's values and found flags (integer(c_signed_char), 1 or 0) are written when the
    ! request completes: both must be the caller's own arrays (target, asynchronous), contiguous
    ! (a section with a stride is refused), left in place and untouched until pgdds_wait or
    ! pgdds_test has completed the request.
    module function pgdds_hashmap_insert_many_nb(map, keys, values, req, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target, contiguous :: keys(:), values(:)
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    module function pgdds_hashmap_find_many_nb(map, keys, values, found, req, concurrent) result(st)
      type(pgdds_hashmap), intent(in) :: map
      class(*), intent(in), target, contiguous :: keys(:)
      class(*), intent(inout), target, asynchronous :: values(:)
      integer(c_signed_char), intent(inout), target, asynchronous :: found(:)
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function

    ! A queue of kind PGDDS_QUEUE_FAST, PGDDS_QUEUE_CIRCULAR or PGDDS_QUEUE_CHECKSUM on host_rank,
    ! holding capacity elements of elem_type (PGDDS_INT32, PGDDS_INT64, PGDDS_FLOAT, PGDDS_DOUBLE).
    ! Collective, with the same arguments everywhere.
    module function pgdds_queue_create(ctx, queue, kind, elem_type, capacity, host_rank) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_queue), intent(out) :: queue
      integer(c_int), intent(in) :: kind, elem_type
      integer(int64), intent(in) :: capacity
      integer, intent(in) :: host_rank
      integer(c_int) :: st
    end function
    module function pgdds_queue_destroy(queue) result(st)
      type(pgdds_queue), intent(inout) :: queue
      integer(c_int) :: st
    end function
    ! Pushes elems, a scalar or rank-1 array of the queue's type, all or nothing (PGDDS_ERR_FULL:
    ! none pushed). concurrent: the PGDDS_CP_* operations that may run at the same time (default
    ! 0: anything); the kinds' rules are pgdds.h's.
    module function queue_push_scalar(queue, elems, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(in), target :: elems
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    module function queue_push_array(queue, elems, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(in), target, contiguous :: elems(:)
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! Pops up to size(elems) elements into elems(1:popped); PGDDS_ERR_EMPTY when there are none.
    module function pgdds_queue_pop(queue, elems, popped, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(inout), target, contiguous :: elems(:)
      integer(int64), intent(out) :: popped
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! The number of queued elements (a snapshot), the number the queue holds when full, its host.
    module function pgdds_queue_size(queue, count) result(st)
      type(pgdds_queue), intent(in) :: queue
      integer(int64), intent(out) :: count
      integer(c_int) :: st
    end function
    module function pgdds_queue_capacity(queue, capacity) result(st)
      type(pgdds_queue), intent(in) :: queue
      integer(int64), intent(out) :: capacity
      integer(c_int) :: st
    end function
    module function pgdds_queue_host(queue, host_rank) result(st)
      type(pgdds_queue), intent(in) :: queue
      integer, intent(out) :: host_rank
      integer(c_int) :: st
    end function
    ! pgdds_queue_push with a request that completes with its status; the elements are copied
    ! before the call returns.
    module function queue_push_nb_scalar(queue, elems, req, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(in), target :: elems
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    module function queue_push_nb_array(queue, elems, req, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(in), target, contiguous :: elems(:)
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function
    ! pgdds_queue_pop with a request that completes with its status (PGDDS_ERR_EMPTY when there
    ! were none). elems(1:popped) and popped are written when it completes: both must stay in
    ! place, untouched, until pgdds_wait or pgdds_test has completed it (declare them target,
    ! asynchronous); elems must be contiguous (a section with a stride is refused).
    module function pgdds_queue_pop_nb(queue, elems, popped, req, concurrent) result(st)
      type(pgdds_queue), intent(in) :: queue
      class(*), intent(inout), target, asynchronous :: elems(:)
      integer(c_size_t), intent(inout), target, asynchronous :: popped
      type(pgdds_request), intent(out) :: req
      integer, intent(in), optional :: concurrent
      integer(c_int) :: st
    end function

    ! A Bloom filter sized for expected_items keys of key_type (PGDDS_INT32, PGDDS_INT64,
    ! PGDDS_FLOAT, PGDDS_DOUBLE: a key is the bytes of such a scalar, and keys of another type are
    ! refused) at false_positive_rate, in (0, 1). Collective, with the same arguments everywhere.
    module function pgdds_bloom_create(ctx, bloom, expected_items, false_positive_rate, key_type) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_bloom), intent(out) :: bloom
      integer(int64), intent(in) :: expected_items
      real(real64), intent(in) :: false_positive_rate
      integer(c_int), intent(in) :: key_type
      integer(c_int) :: st
    end function
    module function pgdds_bloom_destroy(bloom) result(st)
      type(pgdds_bloom), intent(inout) :: bloom
      integer(c_int) :: st
    end function
    ! Inserts key; was_present: whether every bit of the key was already set.
    module function pgdds_bloom_insert(bloom, key, was_present) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target :: key
      logical, intent(out), optional :: was_present
      integer(c_int) :: st
    end function
    ! maybe_present: .true. if key may have been inserted, .false. if it surely was not.
    module function pgdds_bloom_contains(bloom, key, maybe_present) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target :: key
      logical, intent(out) :: maybe_present
      integer(c_int) :: st
    end function
    ! The batches: keys is a rank-1 array of the filter's key type; flag i answers for keys(i),
    ! and the flags array needs room for size(keys) of them (a smaller one is refused).
    module function pgdds_bloom_insert_many(bloom, keys, was_present) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target, contiguous :: keys(:)
      logical, intent(out), optional :: was_present(:)
      integer(c_int) :: st
    end function
    module function pgdds_bloom_contains_many(bloom, keys, maybe_present) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target, contiguous :: keys(:)
      logical, intent(out) :: maybe_present(:)
      integer(c_int) :: st
    end function
    ! The batches with a request. The keys are copied before the call returns; the flags are
    ! integer(c_signed_char) values, 1 or 0, that the library sets when the request completes:
    ! the array must be the caller's own (declare it target, asynchronous), contiguous (a section
    ! with a stride is refused), left in place and untouched until pgdds_wait or pgdds_test has
    ! completed the request.
    module function pgdds_bloom_insert_many_nb(bloom, keys, req, was_present) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target, contiguous :: keys(:)
      type(pgdds_request), intent(out) :: req
      integer(c_signed_char), intent(inout), target, asynchronous, optional :: was_present(:)
      integer(c_int) :: st
    end function
    module function pgdds_bloom_contains_many_nb(bloom, keys, maybe_present, req) result(st)
      type(pgdds_bloom), intent(in) :: bloom
      class(*), intent(in), target, contiguous :: keys(:)
      integer(c_signed_char), intent(inout), target, asynchronous :: maybe_present(:)
      type(pgdds_request), intent(out) :: req
      integer(c_int) :: st
    end function

    ! A block-distributed array of count elements of elem_type. Collective.
    module function pgdds_darray_create(ctx, array, count, elem_type) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_darray), intent(out) :: array
      integer(int64), intent(in) :: count
      integer(c_int), intent(in) :: elem_type
      integer(c_int) :: st
    end function
    module function pgdds_darray_destroy(array) result(st)
      type(pgdds_darray), intent(inout) :: array
      integer(c_int) :: st
    end function
    ! The global pointer of element index (0-based).
    module function pgdds_darray_gptr(array, index, ptr) result(st)
      type(pgdds_darray), intent(in) :: array
      integer(int64), intent(in) :: index
      integer(PGDDS_GPTR_KIND), intent(out) :: ptr
      integer(c_int) :: st
    end function
    ! One element, wherever it lives; blocking, like pgdds_put and pgdds_get.
    module function pgdds_darray_put(array, index, value) result(st)
      type(pgdds_darray), intent(in) :: array
      integer(int64), intent(in) :: index
      class(*), intent(in), target :: value
      integer(c_int) :: st
    end function
    module function pgdds_darray_get(array, index, value) result(st)
      type(pgdds_darray), intent(in) :: array
      integer(int64), intent(in) :: index
      class(*), intent(inout), target :: value
      integer(c_int) :: st
    end function
    ! This rank's block as a Fortran array, and the global index of its first element.
    module function darray_local_int32(array, view, first_index) result(st)
      type(pgdds_darray), intent(in) :: array
      integer(int32), pointer, intent(out) :: view(:)
      integer(int64), intent(out) :: first_index
      integer(c_int) :: st
    end function
    module function darray_local_int64(array, view, first_index) result(st)
      type(pgdds_darray), intent(in) :: array
      integer(int64), pointer, intent(out) :: view(:)
      integer(int64), intent(out) :: first_index
      integer(c_int) :: st
    end function
    module function darray_local_real32(array, view, first_index) result(st)
      type(pgdds_darray), intent(in) :: array
      real(real32), pointer, intent(out) :: view(:)
      integer(int64), intent(out) :: first_index
      integer(c_int) :: st
    end function
    module function darray_local_real64(array, view, first_index) result(st)
      type(pgdds_darray), intent(in) :: array
      real(real64), pointer, intent(out) :: view(:)
      integer(int64), intent(out) :: first_index
      integer(c_int) :: st
    end function
  end interface

  ! --- Dense matrices: implemented in the submodule pgdds_matrices -------------------------------
  ! Tiles, rows and columns are counted from 0, as in C. A buffer is a contiguous rank-1 array of
  ! the matrix's element type holding its rows one after another (C's row-major order, ld elements
  ! apart; ld left out: the tile's or slice's columns), or for a column-major matrix its columns
  ! one after another (Fortran's order; ld left out: the rows); one too small for them is refused.
  interface
    ! A rows x cols matrix of elem_type (PGDDS_INT32, PGDDS_INT64, PGDDS_FLOAT, PGDDS_DOUBLE),
    ! every element zero, cut and dealt by distribution (PGDDS_DIST_*); grid_rows and grid_cols
    ! (both or neither), tile_rows and tile_cols (both or neither), memory (PGDDS_MEMORY_*) and
    ! order (PGDDS_ROW_MAJOR, PGDDS_COL_MAJOR) as pgdds_dmatrix_params_t's optional fields.
    ! Collective, with the same arguments everywhere.
    module function pgdds_dmatrix_create(ctx, matrix, rows, cols, elem_type, distribution, grid_rows, grid_cols, &
                                         tile_rows, tile_cols, memory, order) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_dmatrix), intent(out) :: matrix
      integer(int64), intent(in) :: rows, cols
      integer(c_int), intent(in) :: elem_type, distribution
      integer, intent(in), optional :: grid_rows, grid_cols, memory
      integer(c_int), intent(in), optional :: order
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    ! Collective (it completes every rank's operations first).
    module function pgdds_dmatrix_destroy(matrix) result(st)
      type(pgdds_dmatrix), intent(inout) :: matrix
      integer(c_int) :: st
    end function
    ! The shape and layout; every argument but matrix may be left out.
    module function pgdds_dmatrix_info(matrix, rows, cols, tile_rows, tile_cols, tile_grid_rows, tile_grid_cols, &
                                       grid_rows, grid_cols) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(out), optional :: rows, cols, tile_rows, tile_cols, tile_grid_rows, tile_grid_cols
      integer, intent(out), optional :: grid_rows, grid_cols
      integer(c_int) :: st
    end function
    ! Tile (ti, tj)'s rows, columns and owner; each may be left out.
    module function pgdds_dmatrix_tile_shape(matrix, ti, tj, rows, cols, owner) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), intent(out), optional :: rows, cols
      integer, intent(out), optional :: owner
      integer(c_int) :: st
    end function
    ! Tile (ti, tj) into buf, from buf, or added into the tile under its lock (complete on return).
    module function pgdds_dmatrix_get_tile(matrix, ti, tj, buf, ld) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(inout), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_put_tile(matrix, ti, tj, buf, ld) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(in), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_accumulate_tile(matrix, ti, tj, buf, ld) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(in), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    ! The tile transfers with a request (pgdds_wait, pgdds_test): buf holds the tile packed, its
    ! rows one after another. get and put use buf until the request completes (a put's data is
    ! visible at the owner after pgdds_flush); accumulate copies it before it returns.
    module function pgdds_dmatrix_get_tile_nb(matrix, ti, tj, buf, req) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(inout), target, asynchronous, contiguous :: buf(:)
      type(pgdds_request), intent(out) :: req
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_put_tile_nb(matrix, ti, tj, buf, req) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(in), target, asynchronous, contiguous :: buf(:)
      type(pgdds_request), intent(out) :: req
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_accumulate_tile_nb(matrix, ti, tj, buf, req) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      class(*), intent(in), target, contiguous :: buf(:)
      type(pgdds_request), intent(out) :: req
      integer(c_int) :: st
    end function
    ! Rows [row0, row0 + nrows) x columns [col0, col0 + ncols), across tiles, into or from buf.
    module function pgdds_dmatrix_get_slice(matrix, row0, col0, nrows, ncols, buf, ld) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: row0, col0, nrows, ncols
      class(*), intent(inout), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_put_slice(matrix, row0, col0, nrows, ncols, buf, ld) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: row0, col0, nrows, ncols
      class(*), intent(in), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    ! c = alpha op(a) op(b) + beta c by algorithm (PGDDS_GEMM_*; left out:
    ! PGDDS_GEMM_STATIONARY_C), op(x) being x, or its transpose read in place where trans_a or
    ! trans_b is PGDDS_TRANS (left out: PGDDS_NO_TRANS). Collective.
    module function pgdds_dmatrix_gemm(alpha, a, b, beta, c, algorithm, trans_a, trans_b) result(st)
      real(real64), intent(in) :: alpha, beta
      type(pgdds_dmatrix), intent(in) :: a, b, c
      integer(c_int), intent(in), optional :: algorithm, trans_a, trans_b
      integer(c_int) :: st
    end function
    ! This rank's work-stealing counts of the last gemm into c (zero after other algorithms);
    ! each may be left out. Local.
    module function pgdds_dmatrix_steals(c, own_steps, stolen_steps, claims) result(st)
      type(pgdds_dmatrix), intent(in) :: c
      integer(int64), intent(out), optional :: own_steps, stolen_steps, claims
      integer(c_int) :: st
    end function
    ! The global pointer of tile (ti, tj): its elements follow it row-major, with no gap.
    module function pgdds_dmatrix_tile_gptr(matrix, ti, tj, ptr) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(PGDDS_GPTR_KIND), intent(out) :: ptr
      integer(c_int) :: st
    end function
    ! Element (i, j) into value, or value written to it (visible after pgdds_flush or a barrier);
    ! value is a scalar of the matrix's element type.
    module function pgdds_dmatrix_get(matrix, i, j, value) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: i, j
      class(*), intent(inout), target :: value
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_put(matrix, i, j, value) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: i, j
      class(*), intent(in), target :: value
      integer(c_int) :: st
    end function
    ! Every element from generator (a bind(C) subroutine of interface pgdds_dmatrix_generator),
    ! called on the rank that holds the element with arg (left out: c_null_ptr). Collective.
    module function pgdds_dmatrix_fill(matrix, generator, arg) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      procedure(pgdds_dmatrix_generator) :: generator
      type(c_ptr), intent(in), optional :: arg
      integer(c_int) :: st
    end function
    ! Element-wise operations, reductions, norms and transposition (collective; alpha and beta
    ! whole numbers for integer types). matrix = alpha matrix; b = alpha a + beta b (any
    ! layouts); b = a^T; every element replaced by fn (the interface pgdds_dmatrix_generator,
    ! reading and replacing value) with arg; value = every element reduced by op (a scalar of the
    ! matrix's type); norm = a pgdds_norm_t of the matrix (PGDDS_NORM_FROBENIUS, _ONE, _INF, _MAX).
    ! A view of matrix (pgdds_dmatrix_view): op(matrix)'s [row0, +rows) x [col0, +cols), op the
    ! transpose where trans is PGDDS_TRANS (left out: PGDDS_NO_TRANS), on matrix's own elements;
    ! local. Element, slice and element-wise calls take it (its buffers in its own order: a
    ! transposed view of a row-major matrix is column-major), and tile calls and gemm where its
    ! edges lie on tile edges; pgdds_dmatrix_destroy frees it alone.
    module function pgdds_dmatrix_view(matrix, view, row0, col0, rows, cols, trans) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      type(pgdds_dmatrix), intent(out) :: view
      integer(int64), intent(in) :: row0, col0, rows, cols
      integer(c_int), intent(in), optional :: trans
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_scale(alpha, matrix) result(st)
      real(real64), intent(in) :: alpha
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_add(alpha, a, beta, b) result(st)
      real(real64), intent(in) :: alpha, beta
      type(pgdds_dmatrix), intent(in) :: a, b
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_transpose(a, b) result(st)
      type(pgdds_dmatrix), intent(in) :: a, b
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_apply(matrix, fn, arg) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      procedure(pgdds_dmatrix_generator) :: fn
      type(c_ptr), intent(in), optional :: arg
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_reduce(matrix, op, value) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(c_int), intent(in) :: op
      class(*), intent(inout), target :: value
      integer(c_int) :: st
    end function
    module function pgdds_dmatrix_norm(matrix, norm, value) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(c_int), intent(in) :: norm
      real(real64), intent(out) :: value
      integer(c_int) :: st
    end function
    ! The same on a sparse matrix's stored entries; transpose and add make c, a new matrix (a's
    ! layout transposed, or a's layout; b must have a's tile size).
    module function pgdds_smatrix_scale(alpha, matrix) result(st)
      real(real64), intent(in) :: alpha
      type(pgdds_smatrix), intent(in) :: matrix
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_add(alpha, a, beta, b, c) result(st)
      real(real64), intent(in) :: alpha, beta
      type(pgdds_smatrix), intent(in) :: a, b
      type(pgdds_smatrix), intent(out) :: c
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_transpose(a, c) result(st)
      type(pgdds_smatrix), intent(in) :: a
      type(pgdds_smatrix), intent(out) :: c
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_apply(matrix, fn, arg) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      procedure(pgdds_dmatrix_generator) :: fn
      type(c_ptr), intent(in), optional :: arg
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_reduce(matrix, op, value) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(c_int), intent(in) :: op
      class(*), intent(inout), target :: value
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_norm(matrix, norm, value) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(c_int), intent(in) :: norm
      real(real64), intent(out) :: value
      integer(c_int) :: st
    end function
    ! pgdds_dmatrix_local_tile(matrix, ti, tj, view): a tile this rank holds, in place, as a
    ! rank-2 pointer of the matrix's element type. A row-major tile gives view the tile's columns
    ! as its first dimension: view(j + 1, i + 1) is the tile's element (i, j); a column-major one
    ! (order=PGDDS_COL_MAJOR at creation) is Fortran's own order: view(i + 1, j + 1).
    ! For a matrix in GPU memory view points to device memory.
    module function dmatrix_local_tile_int32(matrix, ti, tj, view) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int32), pointer, intent(out) :: view(:, :)
      integer(c_int) :: st
    end function
    module function dmatrix_local_tile_int64(matrix, ti, tj, view) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), pointer, intent(out) :: view(:, :)
      integer(c_int) :: st
    end function
    module function dmatrix_local_tile_real32(matrix, ti, tj, view) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      real(real32), pointer, intent(out) :: view(:, :)
      integer(c_int) :: st
    end function
    module function dmatrix_local_tile_real64(matrix, ti, tj, view) result(st)
      type(pgdds_dmatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      real(real64), pointer, intent(out) :: view(:, :)
      integer(c_int) :: st
    end function
    ! pgdds_smatrix_local_tile(matrix, ti, tj, row_offsets, col_indices, values): the CSR arrays
    ! of a tile this rank holds, in place; read them only (the pattern is fixed). Offsets and
    ! column indices count from 0, as in C: row i's entries are col_indices(row_offsets(i + 1) +
    ! 1 : row_offsets(i + 2)). Device memory for a matrix in GPU memory.
    module function smatrix_local_tile_int32(matrix, ti, tj, row_offsets, col_indices, values) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), pointer, intent(out) :: row_offsets(:), col_indices(:)
      integer(int32), pointer, intent(out) :: values(:)
      integer(c_int) :: st
    end function
    module function smatrix_local_tile_int64(matrix, ti, tj, row_offsets, col_indices, values) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), pointer, intent(out) :: row_offsets(:), col_indices(:)
      integer(int64), pointer, intent(out) :: values(:)
      integer(c_int) :: st
    end function
    module function smatrix_local_tile_real32(matrix, ti, tj, row_offsets, col_indices, values) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), pointer, intent(out) :: row_offsets(:), col_indices(:)
      real(real32), pointer, intent(out) :: values(:)
      integer(c_int) :: st
    end function
    module function smatrix_local_tile_real64(matrix, ti, tj, row_offsets, col_indices, values) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), pointer, intent(out) :: row_offsets(:), col_indices(:)
      real(real64), pointer, intent(out) :: values(:)
      integer(c_int) :: st
    end function

    ! Sparse matrices (CSR tiles). Their layouts take the arguments of pgdds_dmatrix_create:
    ! elem_type, distribution, and grid_rows with grid_cols, tile_rows with tile_cols, optional.
    ! Collective: a rows x cols matrix from coordinate triples, entry n being (row_idx(n),
    ! col_idx(n)) = values(n), indices from 0; any rank may give any entry, duplicates are summed.
    module function pgdds_smatrix_create_coo(ctx, matrix, rows, cols, elem_type, distribution, row_idx, col_idx, &
                                             values, grid_rows, grid_cols, tile_rows, tile_cols) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_smatrix), intent(out) :: matrix
      integer(int64), intent(in) :: rows, cols
      integer(c_int), intent(in) :: elem_type, distribution
      integer(int64), intent(in), contiguous :: row_idx(:), col_idx(:)
      class(*), intent(in), target, contiguous :: values(:)
      integer, intent(in), optional :: grid_rows, grid_cols
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    ! Collective.
    module function pgdds_smatrix_destroy(matrix) result(st)
      type(pgdds_smatrix), intent(inout) :: matrix
      integer(c_int) :: st
    end function
    ! The shape, entry count and tile grid; each may be left out.
    module function pgdds_smatrix_info(matrix, rows, cols, nnz, tile_grid_rows, tile_grid_cols) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(out), optional :: rows, cols, nnz, tile_grid_rows, tile_grid_cols
      integer(c_int) :: st
    end function
    ! Tile (ti, tj)'s rows, columns, entries and owner; each may be left out.
    module function pgdds_smatrix_tile_shape(matrix, ti, tj, rows, cols, nnz, owner) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), intent(out), optional :: rows, cols, nnz
      integer, intent(out), optional :: owner
      integer(c_int) :: st
    end function
    ! Copies CSR tile (ti, tj): rows + 1 offsets and nnz column indices (from 0, as in C), and
    ! nnz values of the matrix's element type, at least that long each.
    module function pgdds_smatrix_get_tile(matrix, ti, tj, row_offsets, col_indices, values) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: ti, tj
      integer(int64), intent(inout), target, contiguous :: row_offsets(:), col_indices(:)
      class(*), intent(inout), target, contiguous :: values(:)
      integer(c_int) :: st
    end function
    ! Rows [row0, row0 + nrows) x columns [col0, col0 + ncols), dense (zeros where no entry), into buf.
    module function pgdds_smatrix_get_slice(matrix, row0, col0, nrows, ncols, buf, ld) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      integer(int64), intent(in) :: row0, col0, nrows, ncols
      class(*), intent(inout), target, contiguous :: buf(:)
      integer(int64), intent(in), optional :: ld
      integer(c_int) :: st
    end function
    ! c = alpha a b + beta c, a sparse, b and c dense, by algorithm (left out: stationary C).
    ! Collective.
    module function pgdds_smatrix_spmm(alpha, a, b, beta, c, algorithm) result(st)
      real(real64), intent(in) :: alpha, beta
      type(pgdds_smatrix), intent(in) :: a
      type(pgdds_dmatrix), intent(in) :: b, c
      integer(c_int), intent(in), optional :: algorithm
      integer(c_int) :: st
    end function
    ! c = alpha a b, all sparse, c new, of a's element type and the layout given; collective.
    module function pgdds_smatrix_spgemm(alpha, a, b, c, distribution, algorithm, grid_rows, grid_cols, tile_rows, &
                                         tile_cols) result(st)
      real(real64), intent(in) :: alpha
      type(pgdds_smatrix), intent(in) :: a, b
      type(pgdds_smatrix), intent(out) :: c
      integer(c_int), intent(in) :: distribution
      integer(c_int), intent(in), optional :: algorithm
      integer, intent(in), optional :: grid_rows, grid_cols
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    ! This rank's work-stealing counts of the spgemm that made c; each may be left out. Local.
    module function pgdds_smatrix_steals(c, own_steps, stolen_steps, claims) result(st)
      type(pgdds_smatrix), intent(in) :: c
      integer(int64), intent(out), optional :: own_steps, stolen_steps, claims
      integer(c_int) :: st
    end function
    ! The 7- or 27-point stencil of an nx x ny x nz grid; collective.
    module function pgdds_smatrix_stencil(ctx, matrix, nx, ny, nz, points, elem_type, distribution, grid_rows, &
                                          grid_cols, tile_rows, tile_cols) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_smatrix), intent(out) :: matrix
      integer(int64), intent(in) :: nx, ny, nz
      integer, intent(in) :: points
      integer(c_int), intent(in) :: elem_type, distribution
      integer, intent(in), optional :: grid_rows, grid_cols
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    ! An R-MAT graph of 2**scale vertices and edge_factor 2**scale edges (Graph500); collective.
    module function pgdds_smatrix_rmat(ctx, matrix, scale, edge_factor, seed, elem_type, distribution, grid_rows, &
                                       grid_cols, tile_rows, tile_cols) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_smatrix), intent(out) :: matrix
      integer, intent(in) :: scale, edge_factor
      integer(int64), intent(in) :: seed
      integer(c_int), intent(in) :: elem_type, distribution
      integer, intent(in), optional :: grid_rows, grid_cols
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    ! A Matrix Market file read into a new matrix, and a matrix written as one; collective.
    module function pgdds_smatrix_read_mm(ctx, matrix, path, elem_type, distribution, grid_rows, grid_cols, &
                                          tile_rows, tile_cols) result(st)
      type(pgdds_context), intent(in) :: ctx
      type(pgdds_smatrix), intent(out) :: matrix
      character(len=*), intent(in) :: path
      integer(c_int), intent(in) :: elem_type, distribution
      integer, intent(in), optional :: grid_rows, grid_cols
      integer(int64), intent(in), optional :: tile_rows, tile_cols
      integer(c_int) :: st
    end function
    module function pgdds_smatrix_write_mm(matrix, path) result(st)
      type(pgdds_smatrix), intent(in) :: matrix
      character(len=*), intent(in) :: path
      integer(c_int) :: st
    end function
  end interface

contains

  ! --- Strings and errors ---------------------------------------------------------------------
  ! A Fortran copy of a NUL-terminated C string ("" for a null pointer).
  function from_c(s) result(text)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(s)) then
      text = ''
      return
    end if
    n = int(c_strlen(s))
    call c_f_pointer(s, chars, [n])
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function


  ! The calling thread's explanation of its last failure.
  function pgdds_last_error() result(text)
    character(len=:), allocatable :: text
    text = from_c(c_last_error())
  end function

  function pgdds_strerror(st) result(text)
    integer(c_int), intent(in) :: st
    character(len=:), allocatable :: text
    text = from_c(c_strerror(st))
  end function

  function pgdds_version_string() result(text)
    character(len=:), allocatable :: text
    text = from_c(c_version_string())
  end function

  ! --- Data arguments -----------------------------------------------------------------------

  ! The address of an optional output argument of a supported type (c_null_ptr when absent), for
  ! a C function to write.
  function address_of(x) result(addr)
    class(*), intent(in), target, optional :: x
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    integer(c_int) :: dtype
    addr = c_null_ptr
    if (present(x)) call describe_scalar(x, addr, bytes, dtype)
  end function

  ! arg, or c_null_ptr when it is absent.
  type(c_ptr) function optional_ptr(arg)
    type(c_ptr), intent(in), optional :: arg
    optional_ptr = c_null_ptr
    if (present(arg)) optional_ptr = arg
  end function

  ! --- Start-up and identity ------------------------------------------------------------------
  ! Collective. Arguments left out come from the environment (PGDDS_THREAD_LEVEL,
  ! PGDDS_SEGMENT_SIZE, PGDDS_TRANSPORT, PGDDS_NUM_VCIS), then from the defaults.
  function pgdds_init(ctx, thread_level, segment_size, transport, num_vcis) result(st)
    type(pgdds_context), intent(out) :: ctx
    integer, intent(in), optional :: thread_level
    integer(int64), intent(in), optional :: segment_size
    character(len=*), intent(in), optional :: transport
    integer, intent(in), optional :: num_vcis
    integer(c_int) :: st
    type(c_init_params) :: params
    character(kind=c_char), allocatable, target :: transport_c(:)
    integer :: i, n
    if (present(thread_level)) then
      params%field_mask = ior(params%field_mask, int(PGDDS_INIT_FIELD_THREAD_LEVEL, c_int64_t))
      params%thread_level = int(thread_level, c_int)
    end if
    if (present(segment_size)) then
      if (segment_size <= 0) then
        st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_init: segment_size must be positive')
        return
      end if
      params%field_mask = ior(params%field_mask, int(PGDDS_INIT_FIELD_SEGMENT_SIZE, c_int64_t))
      params%segment_size = int(segment_size, c_size_t)
    end if
    if (present(transport)) then
      n = len_trim(transport)
      allocate(transport_c(n + 1))
      do i = 1, n
        transport_c(i) = transport(i:i)
      end do
      transport_c(n + 1) = c_null_char
      params%field_mask = ior(params%field_mask, int(PGDDS_INIT_FIELD_TRANSPORT, c_int64_t))
      params%transport = c_loc(transport_c)
    end if
    if (present(num_vcis)) then
      if (num_vcis <= 0) then
        st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_init: num_vcis must be positive')
        return
      end if
      params%field_mask = ior(params%field_mask, int(PGDDS_INIT_FIELD_NUM_VCIS, c_int64_t))
      params%num_vcis = int(num_vcis, c_int)
    end if
    st = c_init(params, ctx%handle)
  end function

  ! Collective. The context is unusable afterwards.
  function pgdds_finalize(ctx) result(st)
    type(pgdds_context), intent(inout) :: ctx
    integer(c_int) :: st
    st = c_finalize(ctx%handle)
    if (st == PGDDS_OK) ctx%handle = c_null_ptr
  end function

  ! Identity: -1 for a context that is not initialized.
  integer(c_int) function pgdds_rank(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_rank = c_rank(ctx%handle)
  end function

  integer(c_int) function pgdds_nranks(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_nranks = c_nranks(ctx%handle)
  end function

  integer(c_int) function pgdds_local_rank(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_local_rank = c_local_rank(ctx%handle)
  end function

  integer(c_int) function pgdds_local_nranks(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_local_nranks = c_local_nranks(ctx%handle)
  end function

  ! "shm", "ofi/tcp;ofi_rxm", ...; "" for a context that is not initialized.
  function pgdds_transport_name(ctx) result(text)
    type(pgdds_context), intent(in) :: ctx
    character(len=:), allocatable :: text
    text = from_c(c_transport_name(ctx%handle))
  end function

  ! --- Collectives ----------------------------------------------------------------------------
  function pgdds_barrier(ctx) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(c_int) :: st
    st = c_barrier(ctx%handle)
  end function

  ! buf on root is copied to buf on every rank.
  function broadcast_scalar(ctx, buf, root) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target :: buf
    integer, intent(in) :: root
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(buf, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_broadcast', 'buf')
    if (st == PGDDS_OK) st = c_broadcast(ctx%handle, addr, bytes, int(root, c_int))
  end function

  function broadcast_array(ctx, buf, root) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, contiguous :: buf(:)
    integer, intent(in) :: root
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(buf, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_broadcast', 'buf')
    if (st == PGDDS_OK) st = c_broadcast(ctx%handle, addr, bytes, int(root, c_int))
  end function

  ! out = op over every rank's in (element-wise for arrays); in and out of one type and size.
  ! Bitwise ops (PGDDS_OP_BAND, BOR, BXOR) take integers only.
  function allreduce_scalar(ctx, in, out, op) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(in), target :: in
    class(*), intent(inout), target :: out
    integer(c_int), intent(in) :: op
    integer(c_int) :: st, in_type, out_type
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes
    call describe_scalar(in, in_addr, in_bytes, in_type)
    call describe_scalar(out, out_addr, out_bytes, out_type)
    if (in_type < 0 .or. in_type /= out_type) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_allreduce: in and out must be of one type: integer(int32), ' // &
                'integer(int64), real(real32) or real(real64)')
      return
    end if
    st = c_allreduce(ctx%handle, in_addr, out_addr, 1_c_size_t, in_type, op)
  end function

  function allreduce_array(ctx, in, out, op) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int), intent(in) :: op
    integer(c_int) :: st, in_type, out_type
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes
    call describe_array(in, in_addr, in_bytes, in_type)
    call describe_array(out, out_addr, out_bytes, out_type)
    if (in_type < 0 .or. in_type /= out_type .or. size(in) /= size(out)) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_allreduce: in and out must be of one type (integer(int32), ' // &
                'integer(int64), real(real32) or real(real64)) and one size')
      return
    end if
    if (size(in) == 0) then
      st = PGDDS_OK
      return
    end if
    st = c_allreduce(ctx%handle, in_addr, out_addr, int(size(in), c_size_t), in_type, op)
  end function

  ! out(r+1) = in of rank r; out has at least pgdds_nranks elements of in's type.
  function pgdds_allgather(ctx, in, out) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(in), target :: in
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int) :: st, in_type, out_type
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes
    call describe_scalar(in, in_addr, in_bytes, in_type)
    call describe_array(out, out_addr, out_bytes, out_type)
    if (in_type < 0 .or. in_type /= out_type) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_allgather: in and out must be of one type: integer(int32), ' // &
                'integer(int64), real(real32) or real(real64)')
      return
    end if
    if (size(out) < pgdds_nranks(ctx)) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_allgather: out has fewer elements than the job has ranks')
      return
    end if
    st = c_allgather(ctx%handle, in_addr, out_addr, in_bytes)
  end function

  ! --- Teams ----------------------------------------------------------------------------------
  ! Team ranks are 0-based, as in C. Splits are collective over the parent; a rank outside the new
  ! team gets the null team (pgdds_team_is_null).
  function pgdds_team_world(ctx, team) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(pgdds_team), intent(out) :: team
    integer(c_int) :: st
    st = c_team_world(ctx%handle, team%handle)
  end function

  function pgdds_team_node(ctx, team) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(pgdds_team), intent(out) :: team
    integer(c_int) :: st
    st = c_team_node(ctx%handle, team%handle)
  end function

  logical function pgdds_team_is_null(team)
    type(pgdds_team), intent(in) :: team
    pgdds_team_is_null = .not. c_associated(team%handle)
  end function

  function pgdds_team_rank(team, rank) result(st)
    type(pgdds_team), intent(in) :: team
    integer, intent(out) :: rank
    integer(c_int) :: st, r
    r = -1
    st = c_team_rank(team%handle, r)
    rank = int(r)
  end function

  function pgdds_team_size(team, size) result(st)
    type(pgdds_team), intent(in) :: team
    integer, intent(out) :: size
    integer(c_int) :: st, s
    s = -1
    st = c_team_size(team%handle, s)
    size = int(s)
  end function

  function pgdds_team_translate_rank(src_team, src_rank, dst_team, dst_rank) result(st)
    type(pgdds_team), intent(in) :: src_team, dst_team
    integer, intent(in) :: src_rank
    integer, intent(out) :: dst_rank
    integer(c_int) :: st, r
    r = -1
    st = c_team_translate_rank(src_team%handle, int(src_rank, c_int), dst_team%handle, r)
    dst_rank = int(r)
  end function

  function pgdds_team_split_strided(parent, start, stride, size, new_team) result(st)
    type(pgdds_team), intent(in) :: parent
    integer, intent(in) :: start, stride, size
    type(pgdds_team), intent(out) :: new_team
    integer(c_int) :: st
    st = c_team_split_strided(parent%handle, int(start, c_int), int(stride, c_int), int(size, c_int), &
                              new_team%handle)
  end function

  function pgdds_team_split_2d(parent, xrange, xaxis_team, yaxis_team) result(st)
    type(pgdds_team), intent(in) :: parent
    integer, intent(in) :: xrange
    type(pgdds_team), intent(out) :: xaxis_team, yaxis_team
    integer(c_int) :: st
    st = c_team_split_2d(parent%handle, int(xrange, c_int), xaxis_team%handle, yaxis_team%handle)
  end function

  function pgdds_team_destroy(team) result(st)
    type(pgdds_team), intent(inout) :: team
    integer(c_int) :: st
    st = c_team_destroy(team%handle)
  end function

  function pgdds_team_barrier(team) result(st)
    type(pgdds_team), intent(in) :: team
    integer(c_int) :: st
    st = c_team_barrier(team%handle)
  end function

  ! buf of team rank root is copied to buf of every member.
  function pgdds_team_broadcast(team, buf, root) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(inout), target, contiguous :: buf(:)
    integer, intent(in) :: root
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(buf, addr, bytes, dtype)
    if (dtype < 0) then
      st = type_status(dtype, 'pgdds_team_broadcast', 'buf')
      return
    end if
    st = c_team_broadcast(team%handle, addr, bytes, int(root, c_int))
  end function

  ! in and out of one type and size; describes them for the reductions below.
  function reduction_args(who, in, out, in_addr, out_addr, dtype) result(st)
    character(*), intent(in) :: who
    class(*), intent(in), target, contiguous :: in(:), out(:)
    type(c_ptr), intent(out) :: in_addr, out_addr
    integer(c_int), intent(out) :: dtype
    integer(c_int) :: st, out_type
    integer(c_size_t) :: in_bytes, out_bytes
    call describe_array(in, in_addr, in_bytes, dtype)
    call describe_array(out, out_addr, out_bytes, out_type)
    st = PGDDS_OK
    if (dtype < 0 .or. dtype /= out_type .or. size(in) /= size(out)) &
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': in and out must be of one type (integer(int32), ' // &
                'integer(int64), real(real32) or real(real64)) and one size')
  end function

  ! out = op over every member's in, element-wise.
  function pgdds_team_allreduce(team, in, out, op) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int), intent(in) :: op
    integer(c_int) :: st, dtype
    type(c_ptr) :: in_addr, out_addr
    st = reduction_args('pgdds_team_allreduce', in, out, in_addr, out_addr, dtype)
    if (st == PGDDS_OK) st = c_team_allreduce(team%handle, in_addr, out_addr, int(size(in), c_size_t), dtype, op)
  end function

  ! out of team rank root = op over every member's in, element-wise.
  function pgdds_team_reduce(team, in, out, op, root) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int), intent(in) :: op
    integer, intent(in) :: root
    integer(c_int) :: st, dtype
    type(c_ptr) :: in_addr, out_addr
    st = reduction_args('pgdds_team_reduce', in, out, in_addr, out_addr, dtype)
    if (st == PGDDS_OK) &
      st = c_team_reduce(team%handle, in_addr, out_addr, int(size(in), c_size_t), dtype, op, int(root, c_int))
  end function

  ! out holds every member's in, in team rank order (size(in) * team size elements).
  function pgdds_team_allgather(team, in, out) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int) :: st
    st = gather_or_swap('pgdds_team_allgather', team, in, out, .false.)
  end function

  ! Block r+1 of in (size(in) / team size elements) goes to team rank r, which puts it at block
  ! <this rank>+1 of out.
  function pgdds_team_alltoall(team, in, out) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer(c_int) :: st
    st = gather_or_swap('pgdds_team_alltoall', team, in, out, .true.)
  end function

  function gather_or_swap(who, team, in, out, swap) result(st)
    character(*), intent(in) :: who
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:), out(:)
    logical, intent(in) :: swap
    integer(c_int) :: st, in_type, out_type, n
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes
    call describe_array(in, in_addr, in_bytes, in_type)
    call describe_array(out, out_addr, out_bytes, out_type)
    st = c_team_size(team%handle, n)
    if (st /= PGDDS_OK) return
    if (in_type < 0 .or. in_type /= out_type) then
      st = type_status(-1_c_int, who, 'in and out')
    else if ((swap .and. (size(in) /= size(out) .or. mod(size(in), n) /= 0)) .or. &
             (.not. swap .and. size(out) < size(in) * n)) then
      st = fail(PGDDS_ERR_INVALID_ARG, who // ': in and out do not match the team''s size')
    else if (swap) then
      st = c_team_alltoall(team%handle, in_addr, out_addr, in_bytes / int(n, c_size_t))
    else
      st = c_team_allgather(team%handle, in_addr, out_addr, in_bytes)
    end if
  end function

  ! Team rank r contributes counts(r+1) elements, which land in out packed in rank order.
  function pgdds_team_allgatherv(team, in, out, counts) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer, intent(in) :: counts(:)
    integer(c_int) :: st, in_type, out_type, n
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes
    integer(c_size_t), allocatable, target :: bytes(:)
    call describe_array(in, in_addr, in_bytes, in_type)
    call describe_array(out, out_addr, out_bytes, out_type)
    st = c_team_size(team%handle, n)
    if (st /= PGDDS_OK) return
    if (in_type < 0 .or. in_type /= out_type) then
      st = type_status(-1_c_int, 'pgdds_team_allgatherv', 'in and out')
      return
    end if
    if (size(counts) /= n .or. sum(counts) > size(out) .or. minval(counts) < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_team_allgatherv: counts needs one count (>= 0) per team rank, ' // &
                'and out room for them all')
      return
    end if
    bytes = int(counts, c_size_t) * int(storage_size(out) / 8, c_size_t)
    st = c_team_allgatherv(team%handle, in_addr, out_addr, c_loc(bytes), c_null_ptr)
  end function

  ! send_counts(r+1) elements of in (packed in rank order) go to team rank r; recv_counts(r+1)
  ! elements from rank r land in out, packed in rank order.
  function pgdds_team_alltoallv(team, in, send_counts, out, recv_counts) result(st)
    type(pgdds_team), intent(in) :: team
    class(*), intent(in), target, contiguous :: in(:)
    class(*), intent(inout), target, contiguous :: out(:)
    integer, intent(in) :: send_counts(:), recv_counts(:)
    integer(c_int) :: st, in_type, out_type, n
    type(c_ptr) :: in_addr, out_addr
    integer(c_size_t) :: in_bytes, out_bytes, elem
    integer(c_size_t), allocatable, target :: sbytes(:), rbytes(:)
    call describe_array(in, in_addr, in_bytes, in_type)
    call describe_array(out, out_addr, out_bytes, out_type)
    st = c_team_size(team%handle, n)
    if (st /= PGDDS_OK) return
    if (in_type < 0 .or. in_type /= out_type) then
      st = type_status(-1_c_int, 'pgdds_team_alltoallv', 'in and out')
      return
    end if
    if (size(send_counts) /= n .or. size(recv_counts) /= n .or. sum(send_counts) > size(in) .or. &
        sum(recv_counts) > size(out) .or. minval(send_counts) < 0 .or. minval(recv_counts) < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_team_alltoallv: the counts need one count (>= 0) per team rank, ' // &
                'within in and out')
      return
    end if
    elem = int(storage_size(in) / 8, c_size_t)
    sbytes = int(send_counts, c_size_t) * elem
    rbytes = int(recv_counts, c_size_t) * elem
    st = c_team_alltoallv(team%handle, in_addr, c_loc(sbytes), c_null_ptr, out_addr, c_loc(rbytes), c_null_ptr)
  end function

  ! --- The segment and global pointers ------------------------------------------------------
  ! nbytes in the caller's own segment; alignment (bytes, a power of two) defaults to 16.
  function pgdds_alloc(ctx, nbytes, ptr, alignment) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(int64), intent(in) :: nbytes
    integer(PGDDS_GPTR_KIND), intent(out) :: ptr
    integer(int64), intent(in), optional :: alignment
    integer(c_int) :: st
    integer(c_size_t) :: align
    integer(c_int64_t) :: out
    align = 0
    if (present(alignment)) align = int(alignment, c_size_t)
    if (nbytes < 0 .or. align < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_alloc: nbytes and alignment must not be negative')
      return
    end if
    st = c_alloc(ctx%handle, int(nbytes, c_size_t), align, out)
    if (st == PGDDS_OK) ptr = out
  end function

  function pgdds_free(ctx, ptr) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    integer(c_int) :: st
    st = c_free(ctx%handle, ptr)
  end function

  ! --- Symmetric allocation -------------------------------------------------------------------
  ! Collective: every rank passes the same nbytes, alignment and zero, and gets a block at the same
  ! offset of its segment (ptr names its own copy; pgdds_gptr_at any rank's). zero=.true. zeroes
  ! every copy. A disagreement or a failure on any rank fails the call on every rank.
  function pgdds_alloc_all(ctx, nbytes, ptr, alignment, zero) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(int64), intent(in) :: nbytes
    integer(PGDDS_GPTR_KIND), intent(out) :: ptr
    integer(int64), intent(in), optional :: alignment
    logical, intent(in), optional :: zero
    integer(c_int) :: st, flags
    integer(c_size_t) :: align
    integer(c_int64_t) :: out
    align = 0
    if (present(alignment)) align = int(alignment, c_size_t)
    flags = 0
    if (present(zero)) then
      if (zero) flags = PGDDS_ALLOC_ZERO
    end if
    ! A negative size still takes part in the collective call (as a size no rank can hold), so
    ! that every rank fails together.
    if (nbytes < 0 .or. align < 0) then
      st = c_alloc_all(ctx%handle, huge(1_c_size_t), 3_c_size_t, flags, out)
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_alloc_all: nbytes and alignment must not be negative')
      return
    end if
    st = c_alloc_all(ctx%handle, int(nbytes, c_size_t), align, flags, out)
    if (st == PGDDS_OK) ptr = out
  end function

  ! Collective: every rank passes the same symmetric block (any rank's copy of it).
  function pgdds_free_all(ctx, ptr) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    integer(c_int) :: st
    st = c_free_all(ctx%handle, ptr)
  end function

  ! out = rank's copy of the symmetric memory ptr points into.
  function pgdds_gptr_at(ctx, ptr, rank, out) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    integer, intent(in) :: rank
    integer(PGDDS_GPTR_KIND), intent(out) :: out
    integer(c_int) :: st
    integer(c_int64_t) :: moved
    st = c_gptr_at(ctx%handle, ptr, int(rank, c_int), moved)
    if (st == PGDDS_OK) out = moved
  end function

  ! pgdds_alloc in the segment of a memory kind: PGDDS_MEMORY_HOST or PGDDS_MEMORY_CUDA.
  function pgdds_alloc_kind(ctx, kind, nbytes, ptr, alignment) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(c_int), intent(in) :: kind
    integer(int64), intent(in) :: nbytes
    integer(PGDDS_GPTR_KIND), intent(out) :: ptr
    integer(int64), intent(in), optional :: alignment
    integer(c_int) :: st
    integer(c_size_t) :: align
    integer(c_int64_t) :: out
    align = 0
    if (present(alignment)) align = int(alignment, c_size_t)
    if (nbytes < 0 .or. align < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_alloc_kind: nbytes and alignment must not be negative')
      return
    end if
    st = c_alloc_kind(ctx%handle, kind, int(nbytes, c_size_t), align, out)
    if (st == PGDDS_OK) ptr = out
  end function

  ! C's pgdds_gptr_kind (the memory kind a global pointer names; -1 for a reserved segment),
  ! named apart from PGDDS_GPTR_KIND, the integer kind of global pointers, since Fortran names
  ! ignore case.
  integer(c_int) function pgdds_gptr_memory(ptr)
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    pgdds_gptr_memory = c_gptr_kind(ptr)
  end function

  integer(c_int) function pgdds_gptr_rank(ptr)
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    pgdds_gptr_rank = c_gptr_rank(ptr)
  end function

  integer(int64) function pgdds_gptr_offset(ptr)
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    pgdds_gptr_offset = c_gptr_offset(ptr)
  end function

  ! ptr moved by bytes (may be negative) within its segment.
  integer(PGDDS_GPTR_KIND) function pgdds_gptr_add(ptr, bytes)
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    integer(int64), intent(in) :: bytes
    pgdds_gptr_add = c_gptr_add(ptr, bytes)
  end function

  ! A local address of ptr (c_null_ptr unless load/store-reachable); use c_f_pointer on it.
  type(c_ptr) function pgdds_gptr_to_local(ctx, ptr)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ptr
    pgdds_gptr_to_local = c_gptr_to_local(ctx%handle, ptr)
  end function

  ! --- One-sided communication ----------------------------------------------------------------
  ! Writes src to the global memory at dst. Returns once src may be reused; the data is visible
  ! at the target after pgdds_flush or pgdds_barrier.
  function put_scalar(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target :: src
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put', 'src')
    if (st == PGDDS_OK) st = c_put(ctx%handle, dst, addr, bytes)
  end function

  function put_array(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target, contiguous :: src(:)
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put', 'src')
    if (st == PGDDS_OK) st = c_put(ctx%handle, dst, addr, bytes)
  end function

  ! Reads the global memory at src into dst; returns with the data in dst.
  function get_scalar(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target :: dst
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(dst, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_get', 'dst')
    if (st == PGDDS_OK) st = c_get(ctx%handle, addr, src, bytes)
  end function

  function get_array(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, contiguous :: dst(:)
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(dst, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_get', 'dst')
    if (st == PGDDS_OK) st = c_get(ctx%handle, addr, src, bytes)
  end function

  ! pgdds_put and pgdds_get returning a request (type(pgdds_request)), complete when src may be
  ! reused, or when dst holds the data (pgdds_test, pgdds_wait). The library reads src and writes
  ! dst after the call returns: declare them asynchronous (and target), leave them in place,
  ! untouched, until then; an array must be contiguous (a section with a stride is refused).
  function put_nb_scalar(ctx, dst, src, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target, asynchronous :: src
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_nb', 'src')
    if (st == PGDDS_OK) st = c_put_nb(ctx%handle, dst, addr, bytes, req%handle)
  end function

  function put_nb_array(ctx, dst, src, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target, asynchronous :: src(:)
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    st = async_array('pgdds_put_nb', 'src', src, addr, bytes)
    if (st == PGDDS_OK) st = c_put_nb(ctx%handle, dst, addr, bytes, req%handle)
  end function

  function get_nb_scalar(ctx, dst, src, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, asynchronous :: dst
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(dst, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_get_nb', 'dst')
    if (st == PGDDS_OK) st = c_get_nb(ctx%handle, addr, src, bytes, req%handle)
  end function

  function get_nb_array(ctx, dst, src, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, asynchronous :: dst(:)
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    st = async_array('pgdds_get_nb', 'dst', dst, addr, bytes)
    if (st == PGDDS_OK) st = c_get_nb(ctx%handle, addr, src, bytes, req%handle)
  end function

  ! pgdds_put and pgdds_get without waiting: complete (src reusable, dst holding the data) at the
  ! calling thread's next pgdds_flush, which reports a failure after issue. src and dst as for
  ! pgdds_put_nb.
  function put_nbi_scalar(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target, asynchronous :: src
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_nbi', 'src')
    if (st == PGDDS_OK) st = c_put_nbi(ctx%handle, dst, addr, bytes)
  end function

  function put_nbi_array(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst
    class(*), intent(in), target, asynchronous :: src(:)
    integer(c_int) :: st
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    st = async_array('pgdds_put_nbi', 'src', src, addr, bytes)
    if (st == PGDDS_OK) st = c_put_nbi(ctx%handle, dst, addr, bytes)
  end function

  function get_nbi_scalar(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, asynchronous :: dst
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(dst, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_get_nbi', 'dst')
    if (st == PGDDS_OK) st = c_get_nbi(ctx%handle, addr, src, bytes)
  end function

  function get_nbi_array(ctx, dst, src) result(st)
    type(pgdds_context), intent(in) :: ctx
    class(*), intent(inout), target, asynchronous :: dst(:)
    integer(PGDDS_GPTR_KIND), intent(in) :: src
    integer(c_int) :: st
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    st = async_array('pgdds_get_nbi', 'dst', dst, addr, bytes)
    if (st == PGDDS_OK) st = c_get_nbi(ctx%handle, addr, src, bytes)
  end function

  ! Completes, locally and at the targets, every operation the calling thread issued.
  function pgdds_flush(ctx) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(c_int) :: st
    st = c_flush(ctx%handle)
  end function

  ! Orders the calling thread's earlier puts and atomics before its later ones at each target,
  ! without completing them (OpenSHMEM's shmem_fence).
  function pgdds_fence(ctx) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(c_int) :: st
    st = c_fence(ctx%handle)
  end function

  ! --- Atomics on naturally aligned words of the operand's type ---------------------------------
  ! integer(int64) and integer(int32): op is PGDDS_AOP_ADD, AND, OR, XOR, SWAP, MIN or MAX (MIN and
  ! MAX compare signed); real(real32) and real(real64): ADD, MIN, MAX or SWAP. fetched, when
  ! present, receives the old value. The wrappers hand fetched and old to the C functions to write
  ! (same kinds); like any intent(out) argument they are undefined when the call fails.
  function atomic_int64(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int64), intent(in) :: operand
    integer(int64), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_i64(ctx%handle, target, op, operand, address_of(fetched))
  end function

  function atomic_int32(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int32), intent(in) :: operand
    integer(int32), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_i32(ctx%handle, target, op, operand, address_of(fetched))
  end function

  function atomic_real32(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    real(real32), intent(in) :: operand
    real(real32), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_float(ctx%handle, target, op, operand, address_of(fetched))
  end function

  function atomic_real64(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    real(real64), intent(in) :: operand
    real(real64), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_double(ctx%handle, target, op, operand, address_of(fetched))
  end function

  ! pgdds_atomic without waiting, on a 64-bit word for integer(int64) (pgdds_atomic_u64_nb), a
  ! 32-bit one for integer(int32) (pgdds_atomic_u32_nb): op is ADD, AND, OR, XOR or SWAP (MIN and
  ! MAX: PGDDS_ERR_UNSUPPORTED). fetched, when present, gets the old value once req completes
  ! (pgdds_test, pgdds_wait); it must stay in place, untouched, until then.
  function atomic_nb_int64(ctx, target, op, operand, req, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int64), intent(in) :: operand
    type(pgdds_request), intent(out) :: req
    integer(int64), intent(inout), optional, target, asynchronous :: fetched
    integer(c_int) :: st
    type(c_ptr) :: addr
    addr = c_null_ptr
    if (present(fetched)) addr = c_loc(fetched)
    st = c_atomic_u64_nb(ctx%handle, target, op, operand, addr, req%handle)
  end function

  function atomic_nb_int32(ctx, target, op, operand, req, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int32), intent(in) :: operand
    type(pgdds_request), intent(out) :: req
    integer(int32), intent(inout), optional, target, asynchronous :: fetched
    integer(c_int) :: st
    type(c_ptr) :: addr
    addr = c_null_ptr
    if (present(fetched)) addr = c_loc(fetched)
    st = c_atomic_u32_nb(ctx%handle, target, op, operand, addr, req%handle)
  end function

  ! A non-fetching atomic that returns once issued (pgdds_atomic_u64_nbi, pgdds_atomic_u32_nbi):
  ! applied at the target by the calling thread's next pgdds_flush (or pgdds_barrier), which
  ! reports its failure. op is ADD, AND, OR, XOR or SWAP.
  function atomic_nbi_int64(ctx, target, op, operand) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int64), intent(in) :: operand
    integer(c_int) :: st
    st = c_atomic_u64_nbi(ctx%handle, target, op, operand)
  end function

  function atomic_nbi_int32(ctx, target, op, operand) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int32), intent(in) :: operand
    integer(c_int) :: st
    st = c_atomic_u32_nbi(ctx%handle, target, op, operand)
  end function

  ! pgdds_atomic on the bits of the word taken as unsigned (pgdds_atomic_u64, pgdds_atomic_u32):
  ! the same as pgdds_atomic but for MIN and MAX, which compare unsigned (-1 is the largest).
  function atomic_unsigned_int64(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int64), intent(in) :: operand
    integer(int64), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_u64(ctx%handle, target, op, operand, address_of(fetched))
  end function

  function atomic_unsigned_int32(ctx, target, op, operand, fetched) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(c_int), intent(in) :: op
    integer(int32), intent(in) :: operand
    integer(int32), intent(out), optional, target :: fetched
    integer(c_int) :: st
    st = c_atomic_u32(ctx%handle, target, op, operand, address_of(fetched))
  end function

  ! pgdds_atomic_cswap without waiting, on a 64-bit word for integer(int64), a 32-bit one for
  ! integer(int32): old gets the old value once req completes; it must stay in place, untouched,
  ! until then.
  function cswap_nb_int64(ctx, target, expected, desired, old, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int64), intent(in) :: expected, desired
    integer(int64), intent(inout), target, asynchronous :: old
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st
    st = c_atomic_cswap_u64_nb(ctx%handle, target, expected, desired, c_loc(old), req%handle)
  end function

  function cswap_nb_int32(ctx, target, expected, desired, old, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int32), intent(in) :: expected, desired
    integer(int32), intent(inout), target, asynchronous :: old
    type(pgdds_request), intent(out) :: req
    integer(c_int) :: st
    st = c_atomic_cswap_u32_nb(ctx%handle, target, expected, desired, c_loc(old), req%handle)
  end function

  ! done becomes .true. once req has completed, which frees it; st is then the operation's
  ! status (a container operation's PGDDS_ERR_NOT_FOUND, for one), with done .true. all the same.
  function pgdds_test(ctx, req, done) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(pgdds_request), intent(inout) :: req
    logical, intent(out) :: done
    integer(c_int) :: st, d
    d = 0
    st = c_test(ctx%handle, req%handle, d)
    done = d /= 0
    if (done) req%handle = c_null_ptr
  end function

  ! Waits until req has completed, and frees it: st is the operation's status (a container
  ! operation's PGDDS_ERR_NOT_FOUND, for one) or the wait's failure. req is spent either way.
  function pgdds_wait(ctx, req) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(pgdds_request), intent(inout) :: req
    integer(c_int) :: st
    st = c_wait(ctx%handle, req%handle)
    req%handle = c_null_ptr
  end function

  ! old = *target; *target = old + value.
  function pgdds_atomic_fetch_add(ctx, target, value, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int64), intent(in) :: value
    integer(int64), intent(out) :: old
    integer(c_int) :: st
    st = pgdds_atomic(ctx, target, PGDDS_AOP_ADD, value, old)
  end function

  ! old = *target; if (old == expected) *target = desired. Reals compare bits (0.0 and -0.0 differ).
  ! Integers: the signed forms (pgdds_atomic_cswap_i64, _i32), which compare the same bits as the
  ! unsigned ones (pgdds_atomic_cswap_unsigned).
  function cswap_int64(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int64), intent(in) :: expected, desired
    integer(int64), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_i64(ctx%handle, target, expected, desired, old)
  end function

  function cswap_int32(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int32), intent(in) :: expected, desired
    integer(int32), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_i32(ctx%handle, target, expected, desired, old)
  end function

  function cswap_real32(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    real(real32), intent(in) :: expected, desired
    real(real32), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_float(ctx%handle, target, expected, desired, old)
  end function

  function cswap_real64(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    real(real64), intent(in) :: expected, desired
    real(real64), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_double(ctx%handle, target, expected, desired, old)
  end function

  ! C's unsigned compare-and-swap (pgdds_atomic_cswap_u64, _u32): the same bits compared as by
  ! pgdds_atomic_cswap.
  function cswap_unsigned_int64(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int64), intent(in) :: expected, desired
    integer(int64), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_u64(ctx%handle, target, expected, desired, old)
  end function

  function cswap_unsigned_int32(ctx, target, expected, desired, old) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int32), intent(in) :: expected, desired
    integer(int32), intent(out) :: old
    integer(c_int) :: st
    st = c_atomic_cswap_u32(ctx%handle, target, expected, desired, old)
  end function

  ! An atomic read of a 64-bit word (integer(int64) value) or a 32-bit one (integer(int32)).
  function atomic_load_int64(ctx, target, value) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int64), intent(out) :: value
    integer(c_int) :: st
    st = c_atomic_load_u64(ctx%handle, target, value)
  end function

  function atomic_load_int32(ctx, target, value) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: target
    integer(int32), intent(out) :: value
    integer(c_int) :: st
    st = c_atomic_load_u32(ctx%handle, target, value)
  end function

  ! --- Segments, VCIs and counts -----------------------------------------------------------------
  ! The global pointer of a local address in this rank's segment, a mapped peer's, or static data.
  function pgdds_gptr_from_local(ctx, addr, ptr) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(c_ptr), intent(in) :: addr
    integer(PGDDS_GPTR_KIND), intent(out) :: ptr
    integer(c_int) :: st
    integer(c_int64_t) :: out
    out = 0
    st = c_gptr_from_local(ctx%handle, addr, out)
    ptr = out
  end function

  ! Bytes of rank's segment.
  function pgdds_segment_size(ctx, rank, bytes) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: rank
    integer(int64), intent(out) :: bytes
    integer(c_int) :: st
    integer(c_size_t) :: size
    size = 0
    st = c_segment_size(ctx%handle, int(rank, c_int), size)
    bytes = int(size, int64)
  end function

  ! The context's user VCIs (0 for a bad context).
  integer function pgdds_num_vcis(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_num_vcis = int(c_num_vcis(ctx%handle))
  end function

  ! Binds the calling thread to VCI vci (0 .. pgdds_num_vcis - 1).
  function pgdds_vci_bind(ctx, vci) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: vci
    integer(c_int) :: st
    if (vci < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_vci_bind: the VCI must not be negative')
      return
    end if
    st = c_vci_bind(ctx%handle, int(vci, c_int))
  end function

  ! The calling thread's VCI (-1 for a bad context).
  integer function pgdds_vci_current(ctx)
    type(pgdds_context), intent(in) :: ctx
    pgdds_vci_current = int(c_vci_current(ctx%handle))
  end function

  ! The context's counts of network operations since pgdds_init.
  function pgdds_net_counts(ctx, counts) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(pgdds_net_counts_t), intent(out) :: counts
    integer(c_int) :: st
    st = c_net_counts(ctx%handle, counts)
  end function

  ! --- GPUs -------------------------------------------------------------------------------------
  ! The CUDA device of this rank's device segment (-1 without one).
  function pgdds_gpu_device(ctx, device) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(out) :: device
    integer(c_int) :: st, d
    d = -1
    st = c_gpu_device(ctx%handle, d)
    device = int(d)
  end function

  ! How many CUDA devices this process sees (0, with pgdds_last_error() saying why, when none);
  ! PGDDS_ERR_UNSUPPORTED (devices = 0) for a library built without CUDA.
  function pgdds_gpu_probe(devices) result(st)
    integer, intent(out) :: devices
    integer(c_int) :: st, d
    d = 0
    st = c_gpu_probe(d)
    devices = int(d)
  end function

  ! --- Static data and introspection ------------------------------------------------------------
  ! Makes the executable's static data (module and SAVE variables, COMMON blocks) remotely
  ! accessible; collective (pgdds.h says when to call it). flags: 0, the default.
  function pgdds_map_static_data(ctx, flags) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in), optional :: flags
    integer(c_int) :: st, f
    f = 0
    if (present(flags)) f = int(flags, c_int)
    if (f < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_map_static_data: flags must not be negative')
      return
    end if
    st = c_map_static_data(ctx%handle, f)
  end function

  ! The build's options (name and value, e.g. 'version' and '0.1.0'), index 0 .. count - 1; no
  ! context needed, as for the two below.
  integer function pgdds_build_option_count()
    pgdds_build_option_count = int(c_build_option_count())
  end function

  function pgdds_build_option(index, name, value) result(st)
    integer, intent(in) :: index
    character(len=:), allocatable, intent(out) :: name, value
    integer(c_int) :: st
    type(c_ptr) :: n, v
    n = c_null_ptr
    v = c_null_ptr
    st = c_build_option(int(index, c_int), n, v)
    name = from_c(n)
    value = from_c(v)
  end function

  ! The PGDDS_* environment variables, index 0 .. count - 1.
  integer function pgdds_config_count()
    pgdds_config_count = int(c_config_count())
  end function

  function pgdds_config_describe(index, var) result(st)
    integer, intent(in) :: index
    type(pgdds_config_var), intent(out) :: var
    integer(c_int) :: st
    type(c_config_var) :: c
    c%field_mask = 63  ! every field: name, type, default, choices, description, value
    st = c_config_describe(int(index, c_int), c)
    var%name = from_c(c%name)
    var%type = from_c(c%type)
    var%default_value = from_c(c%default_value)
    var%choices = from_c(c%choices)
    var%description = from_c(c%description)
    var%value = from_c(c%value)
    var%value_set = c_associated(c%value)
    var%value_ok = c%value_ok /= 0
  end function

  ! What each transport finds on this machine (probed once per process): count entries.
  function pgdds_transport_probe(count) result(st)
    integer, intent(out) :: count
    integer(c_int) :: st, n
    n = 0
    st = c_transport_probe(n)
    count = int(n)
  end function

  function pgdds_transport_describe(index, attr) result(st)
    integer, intent(in) :: index
    type(pgdds_transport_attr), intent(out) :: attr
    integer(c_int) :: st
    type(c_transport_attr) :: c
    c%field_mask = 127  ! every field
    st = c_transport_describe(int(index, c_int), c)
    attr%transport = from_c(c%transport)
    attr%component = from_c(c%component)
    attr%atomics = from_c(c%atomics)
    attr%progress = from_c(c%progress)
    attr%detail = from_c(c%detail)
    attr%built = c%built /= 0
    attr%usable = int(c%usable)
  end function

  ! --- Active messages ----------------------------------------------------------------------
  ! Registers handler h (a bind(C) subroutine of interface pgdds_am_handler, or its c_funloc)
  ! with arg (default c_null_ptr); id gets its number, the same on every rank; collective.
  function am_register_procedure(ctx, h, id, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    procedure(pgdds_am_handler) :: h
    integer, intent(out) :: id
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st
    st = am_register_funptr(ctx, c_funloc(h), id, arg)
  end function

  function am_register_funptr(ctx, h, id, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    type(c_funptr), value :: h
    integer, intent(out) :: id
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st
    integer(c_int32_t) :: n
    n = -1
    st = c_am_register(ctx%handle, h, optional_ptr(arg), n)
    id = int(n)
  end function

  ! Sends the bytes of payload (a scalar or rank-1 array of a supported type, copied; left out:
  ! none) to handler id on dst_rank.
  function am_send_scalar(ctx, dst_rank, id, payload) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: dst_rank, id
    class(*), intent(in), target :: payload
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(payload, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_am_send', 'payload')
    if (st == PGDDS_OK) st = am_send_bytes(ctx, dst_rank, id, addr, bytes)
  end function

  function am_send_array(ctx, dst_rank, id, payload) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: dst_rank, id
    class(*), intent(in), target, contiguous, optional :: payload(:)
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    addr = c_null_ptr
    bytes = 0
    st = PGDDS_OK
    if (present(payload)) then
      call describe_array(payload, addr, bytes, dtype)
      st = type_status(dtype, 'pgdds_am_send', 'payload')
    end if
    if (st == PGDDS_OK) st = am_send_bytes(ctx, dst_rank, id, addr, bytes)
  end function

  function am_send_bytes(ctx, dst_rank, id, addr, bytes) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: dst_rank, id
    type(c_ptr), intent(in) :: addr
    integer(c_size_t), intent(in) :: bytes
    integer(c_int) :: st
    if (id < 0) then
      st = fail(PGDDS_ERR_INVALID_ARG, 'pgdds_am_send: the handler id must not be negative')
      return
    end if
    st = c_am_send(ctx%handle, int(dst_rank, c_int), int(id, c_int32_t), addr, bytes)
  end function

  ! --- Remote procedure calls -------------------------------------------------------------------
  ! Registers fn, a bind(C) subroutine of interface pgdds_rpc_fn (checked when passed as a
  ! procedure; or its c_funloc), under id (not 0) in this process; PGDDS_ERR_EXISTS when id names
  ! another function. Every rank that is to run it registers it before calls arrive.
  function rpc_register_procedure(id, fn) result(st)
    integer(int64), intent(in) :: id
    procedure(pgdds_rpc_fn) :: fn
    integer(c_int) :: st
    st = c_rpc_register(id, c_funloc(fn))
  end function

  function rpc_register_funptr(id, fn) result(st)
    integer(int64), intent(in) :: id
    type(c_funptr), value :: fn
    integer(c_int) :: st
    st = c_rpc_register(id, fn)
  end function

  ! Calls function id on rank with the bytes of args (a scalar or rank-1 array of a supported
  ! type, copied; left out: none); done (a bind(C) subroutine of interface pgdds_rpc_done, or its
  ! c_funloc; c_null_funptr: no reply) runs once with the reply, in a progress call of this rank
  ! (pgdds_progress, any wait), with arg (default c_null_ptr). On failure done never runs.
  function rpc_call_scalar(ctx, rank, id, args, done, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: rank
    integer(int64), intent(in) :: id
    class(*), intent(in), target :: args
    procedure(pgdds_rpc_done) :: done
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st
    st = rpc_call_scalar_funptr(ctx, rank, id, args, c_funloc(done), arg)
  end function

  function rpc_call_array(ctx, rank, id, args, done, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: rank
    integer(int64), intent(in) :: id
    class(*), intent(in), target, contiguous, optional :: args(:)
    procedure(pgdds_rpc_done) :: done
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st
    st = rpc_call_array_funptr(ctx, rank, id, args, c_funloc(done), arg)
  end function

  function rpc_call_scalar_funptr(ctx, rank, id, args, done, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: rank
    integer(int64), intent(in) :: id
    class(*), intent(in), target :: args
    type(c_funptr), value :: done
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(args, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_rpc_call', 'args')
    if (st == PGDDS_OK) st = c_rpc_call(ctx%handle, int(rank, c_int), id, addr, bytes, done, optional_ptr(arg))
  end function

  function rpc_call_array_funptr(ctx, rank, id, args, done, arg) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer, intent(in) :: rank
    integer(int64), intent(in) :: id
    class(*), intent(in), target, contiguous, optional :: args(:)
    type(c_funptr), value :: done
    type(c_ptr), intent(in), optional :: arg
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    addr = c_null_ptr
    bytes = 0
    st = PGDDS_OK
    if (present(args)) then
      call describe_array(args, addr, bytes, dtype)
      st = type_status(dtype, 'pgdds_rpc_call', 'args')
    end if
    if (st == PGDDS_OK) st = c_rpc_call(ctx%handle, int(rank, c_int), id, addr, bytes, done, optional_ptr(arg))
  end function

  ! In a function (pgdds_rpc_fn), sets its answer: status and, for PGDDS_OK, the bytes of result (a
  ! scalar or rank-1 array of a supported type, copied; left out: none); for a failure, message
  ! (default: the status's pgdds_strerror) becomes the caller's pgdds_last_error().
  function rpc_reply_scalar(reply, status, result, message) result(st)
    type(c_ptr), intent(in) :: reply
    integer(c_int), intent(in) :: status
    class(*), intent(in), target :: result
    character(len=*), intent(in), optional :: message
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(result, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_rpc_reply', 'result')
    if (st /= PGDDS_OK) return
    if (present(message)) then
      st = c_rpc_reply(reply, status, addr, bytes, message // c_null_char)
    else
      st = c_rpc_reply(reply, status, addr, bytes, c_null_char)
    end if
  end function

  function rpc_reply_array(reply, status, result, message) result(st)
    type(c_ptr), intent(in) :: reply
    integer(c_int), intent(in) :: status
    class(*), intent(in), target, contiguous, optional :: result(:)
    character(len=*), intent(in), optional :: message
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    addr = c_null_ptr
    bytes = 0
    if (present(result)) then
      call describe_array(result, addr, bytes, dtype)
      st = type_status(dtype, 'pgdds_rpc_reply', 'result')
      if (st /= PGDDS_OK) return
    end if
    if (present(message)) then
      st = c_rpc_reply(reply, status, addr, bytes, message // c_null_char)
    else
      st = c_rpc_reply(reply, status, addr, bytes, c_null_char)
    end if
  end function

  ! Progresses this rank's communication: runs the functions called on it and the replies'
  ! callbacks that have arrived.
  function pgdds_progress(ctx) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(c_int) :: st
    st = c_progress(ctx%handle)
  end function

  ! --- Point-to-point synchronization ---------------------------------------------------------
  ! Writes src to dst, then sets (PGDDS_SIGNAL_SET) or adds to (PGDDS_SIGNAL_ADD) the 64-bit
  ! signal word sig on the same rank, ordered after the data. pgdds_put_signal returns once both
  ! are visible at the target; pgdds_put_signal_nbi once issued (complete at pgdds_flush).
  function put_signal_scalar(ctx, dst, src, sig, signal, sig_op) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst, sig
    class(*), intent(in), target :: src
    integer(int64), intent(in) :: signal
    integer(c_int), intent(in) :: sig_op
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_signal', 'src')
    if (st == PGDDS_OK) st = c_put_signal(ctx%handle, dst, addr, bytes, sig, signal, sig_op)
  end function

  function put_signal_array(ctx, dst, src, sig, signal, sig_op) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst, sig
    class(*), intent(in), target, contiguous :: src(:)
    integer(int64), intent(in) :: signal
    integer(c_int), intent(in) :: sig_op
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_signal', 'src')
    if (st == PGDDS_OK) st = c_put_signal(ctx%handle, dst, addr, bytes, sig, signal, sig_op)
  end function

  function put_signal_nbi_scalar(ctx, dst, src, sig, signal, sig_op) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst, sig
    class(*), intent(in), target :: src
    integer(int64), intent(in) :: signal
    integer(c_int), intent(in) :: sig_op
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_scalar(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_signal_nbi', 'src')
    if (st == PGDDS_OK) st = c_put_signal_nbi(ctx%handle, dst, addr, bytes, sig, signal, sig_op)
  end function

  function put_signal_nbi_array(ctx, dst, src, sig, signal, sig_op) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: dst, sig
    class(*), intent(in), target, contiguous :: src(:)
    integer(int64), intent(in) :: signal
    integer(c_int), intent(in) :: sig_op
    integer(c_int) :: st, dtype
    type(c_ptr) :: addr
    integer(c_size_t) :: bytes
    call describe_array(src, addr, bytes, dtype)
    st = type_status(dtype, 'pgdds_put_signal_nbi', 'src')
    if (st == PGDDS_OK) st = c_put_signal_nbi(ctx%handle, dst, addr, bytes, sig, signal, sig_op)
  end function

  ! Reads the 64-bit signal word sig atomically.
  function pgdds_signal_fetch(ctx, sig, value) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: sig
    integer(int64), intent(out) :: value
    integer(c_int) :: st
    st = c_signal_fetch(ctx%handle, sig, value)
  end function

  ! Waits until the word at ivar, in the caller's own segment, compares with value as cmp
  ! (PGDDS_CMP_EQ, NE, GT, GE, LT, LE; unsigned) says: a 64-bit word for an integer(int64)
  ! value, a 32-bit one for integer(int32). Progresses while it waits; PGDDS_TIMEOUT applies.
  function wait_until_int64(ctx, ivar, cmp, value) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ivar
    integer(c_int), intent(in) :: cmp
    integer(int64), intent(in) :: value
    integer(c_int) :: st
    st = c_wait_until_u64(ctx%handle, ivar, cmp, value)
  end function

  function wait_until_int32(ctx, ivar, cmp, value) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ivar
    integer(c_int), intent(in) :: cmp
    integer(int32), intent(in) :: value
    integer(c_int) :: st
    st = c_wait_until_u32(ctx%handle, ivar, cmp, value)
  end function

  ! One round of progress, then satisfied = whether the comparison holds.
  function test_until_int64(ctx, ivar, cmp, value, satisfied) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ivar
    integer(c_int), intent(in) :: cmp
    integer(int64), intent(in) :: value
    logical, intent(out) :: satisfied
    integer(c_int) :: st, ok
    st = c_test_until_u64(ctx%handle, ivar, cmp, value, ok)
    if (st == PGDDS_OK) satisfied = ok /= 0
  end function

  function test_until_int32(ctx, ivar, cmp, value, satisfied) result(st)
    type(pgdds_context), intent(in) :: ctx
    integer(PGDDS_GPTR_KIND), intent(in) :: ivar
    integer(c_int), intent(in) :: cmp
    integer(int32), intent(in) :: value
    logical, intent(out) :: satisfied
    integer(c_int) :: st, ok
    st = c_test_until_u32(ctx%handle, ivar, cmp, value, ok)
    if (st == PGDDS_OK) satisfied = ok /= 0
  end function

end module pgdds
