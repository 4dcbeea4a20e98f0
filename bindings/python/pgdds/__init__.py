"""libpgdds from Python: a job's ranks, its collectives, and the distributed hash map, queues and
Bloom filter, with NumPy arrays for batches.

    import numpy as np, pgdds
    with pgdds.init() as ctx:
        counts = ctx.hashmap(np.uint64, np.uint64, capacity=1 << 20)
        counts.insert_many(keys, values)
        values, found = counts.find_many(keys)

Run it as any libpgdds program: ``pgdds-run -n 4 python3 script.py``, ``mpirun -n 4 python3
script.py`` or ``srun -n 4 python3 script.py``. Every call checks its status: a failure raises
``pgdds.Error`` with the status and the library's message (``pgdds_last_error()``); a key that is
absent raises ``KeyError``. The bindings call the C ABI through cffi (ABI mode): no compiler is
needed, and the library is found from ``PGDDS_LIBRARY``, the path recorded at installation, or
the system's library path, in that order.
"""

import ctypes.util
import os

import numpy as np
from cffi import FFI

__all__ = ["Error", "init", "Context", "HashMap", "Queue", "BloomFilter", "CP_INSERT", "CP_FIND",
           "CP_PUSH", "CP_POP", "CP_LOCAL", "QUEUE_FAST", "QUEUE_CIRCULAR", "QUEUE_CHECKSUM"]

_ffi = FFI()
# The declarations used here, as in pgdds.h (tests/python checks the constants against it).
_ffi.cdef("""
typedef int pgdds_status_t;
typedef uint64_t pgdds_gptr_t;
typedef struct pgdds_context *pgdds_context_t;
typedef struct pgdds_hashmap *pgdds_hashmap_t;
typedef struct pgdds_queue *pgdds_queue_t;
typedef struct pgdds_bloom *pgdds_bloom_t;
typedef struct pgdds_init_params {
    uint64_t field_mask; int thread_level; size_t segment_size; const char *transport; unsigned num_vcis;
} pgdds_init_params_t;
typedef struct pgdds_hashmap_params { uint64_t field_mask; size_t key_size; size_t value_size; uint64_t capacity; } pgdds_hashmap_params_t;
typedef struct pgdds_queue_params { uint64_t field_mask; int kind; size_t elem_size; uint64_t capacity; int host_rank; } pgdds_queue_params_t;
typedef enum { PGDDS_INT32, PGDDS_INT64, PGDDS_UINT32, PGDDS_UINT64, PGDDS_FLOAT, PGDDS_DOUBLE } pgdds_dtype_t;
typedef enum { PGDDS_OP_SUM, PGDDS_OP_MIN, PGDDS_OP_MAX, PGDDS_OP_BAND, PGDDS_OP_BOR, PGDDS_OP_BXOR } pgdds_op_t;

const char *pgdds_strerror(pgdds_status_t status);
const char *pgdds_last_error(void);
const char *pgdds_version_string(void);
pgdds_status_t pgdds_init(const pgdds_init_params_t *params, pgdds_context_t *ctx);
pgdds_status_t pgdds_finalize(pgdds_context_t ctx);
int pgdds_rank(pgdds_context_t ctx);
int pgdds_nranks(pgdds_context_t ctx);
int pgdds_local_rank(pgdds_context_t ctx);
int pgdds_local_nranks(pgdds_context_t ctx);
const char *pgdds_transport_name(pgdds_context_t ctx);
pgdds_status_t pgdds_barrier(pgdds_context_t ctx);
pgdds_status_t pgdds_broadcast(pgdds_context_t ctx, void *buf, size_t n, int root);
pgdds_status_t pgdds_allreduce(pgdds_context_t ctx, const void *in, void *out, size_t count, pgdds_dtype_t dtype, pgdds_op_t op);
pgdds_status_t pgdds_allgather(pgdds_context_t ctx, const void *in, void *out, size_t bytes_per_rank);

pgdds_status_t pgdds_hashmap_create(pgdds_context_t ctx, const pgdds_hashmap_params_t *params, pgdds_hashmap_t *map);
pgdds_status_t pgdds_hashmap_destroy(pgdds_hashmap_t map);
pgdds_status_t pgdds_hashmap_insert(pgdds_hashmap_t map, const void *key, const void *value, unsigned concurrent);
pgdds_status_t pgdds_hashmap_find(pgdds_hashmap_t map, const void *key, void *value, unsigned concurrent);
pgdds_status_t pgdds_hashmap_erase(pgdds_hashmap_t map, const void *key, unsigned concurrent);
pgdds_status_t pgdds_hashmap_size(pgdds_hashmap_t map, uint64_t *global_count);
pgdds_status_t pgdds_hashmap_find_many(pgdds_hashmap_t map, size_t count, const void *keys, void *values, unsigned char *found, unsigned concurrent);
pgdds_status_t pgdds_hashmap_insert_many(pgdds_hashmap_t map, size_t count, const void *keys, const void *values, unsigned concurrent);
pgdds_status_t pgdds_hashmap_capacity(pgdds_hashmap_t map, uint64_t *capacity);
pgdds_status_t pgdds_hashmap_owner(pgdds_hashmap_t map, const void *key, int *rank);

pgdds_status_t pgdds_queue_create(pgdds_context_t ctx, const pgdds_queue_params_t *params, pgdds_queue_t *queue);
pgdds_status_t pgdds_queue_destroy(pgdds_queue_t queue);
pgdds_status_t pgdds_queue_push(pgdds_queue_t queue, const void *elems, size_t count, unsigned concurrent);
pgdds_status_t pgdds_queue_pop(pgdds_queue_t queue, void *elems, size_t max, size_t *popped, unsigned concurrent);
pgdds_status_t pgdds_queue_size(pgdds_queue_t queue, uint64_t *count);
pgdds_status_t pgdds_queue_capacity(pgdds_queue_t queue, uint64_t *capacity);

pgdds_status_t pgdds_bloom_create(pgdds_context_t ctx, uint64_t expected_items, double false_positive_rate, pgdds_bloom_t *bloom);
pgdds_status_t pgdds_bloom_destroy(pgdds_bloom_t bloom);
pgdds_status_t pgdds_bloom_insert_many(pgdds_bloom_t bloom, size_t count, const void *keys, size_t key_len, unsigned char *was_present);
pgdds_status_t pgdds_bloom_contains_many(pgdds_bloom_t bloom, size_t count, const void *keys, size_t key_len, unsigned char *maybe_present);
""")

# pgdds.h's constants.
OK, ERR_NOT_FOUND, ERR_EMPTY = 0, -4, -6
CP_INSERT, CP_FIND, CP_PUSH, CP_POP, CP_LOCAL = 1, 2, 4, 8, 16
QUEUE_FAST, QUEUE_CIRCULAR, QUEUE_CHECKSUM = 0, 1, 2
THREAD_SINGLE, THREAD_FUNNELED, THREAD_MULTIPLE, THREAD_SERIALIZED = 0, 1, 2, 3
_INIT_FIELD_THREAD_LEVEL, _INIT_FIELD_SEGMENT_SIZE, _INIT_FIELD_TRANSPORT = 1, 2, 4

_DTYPES = {np.dtype(np.int32): 0, np.dtype(np.int64): 1, np.dtype(np.uint32): 2, np.dtype(np.uint64): 3,
           np.dtype(np.float32): 4, np.dtype(np.float64): 5}
_OPS = {"sum": 0, "min": 1, "max": 2, "band": 3, "bor": 4, "bxor": 5}


def _library_path():
    path = os.environ.get("PGDDS_LIBRARY")
    if path:
        return path
    try:
        from ._installed import LIBRARY  # written at installation
        if os.path.exists(LIBRARY):
            return LIBRARY
    except ImportError:
        pass
    return ctypes.util.find_library("pgdds") or "libpgdds.so.0"


_lib = _ffi.dlopen(_library_path())


class Error(Exception):
    """A libpgdds call failed: ``status`` is its status code (a negative ``PGDDS_ERR_*``),
    ``name`` the code's description, and the message is the library's explanation."""

    def __init__(self, status, message):
        self.status = status
        self.name = _ffi.string(_lib.pgdds_strerror(status)).decode()
        super().__init__("%s (%s, status %d)" % (message, self.name, status))


def _check(status, what):
    if status != OK:
        message = _ffi.string(_lib.pgdds_last_error()).decode(errors="replace")
        raise Error(status, message or what)
    return status


def version():
    """The library's version string."""
    return _ffi.string(_lib.pgdds_version_string()).decode()


def _contiguous(array, dtype, what):
    """array as a C-contiguous NumPy array of dtype, copied only where it is not one already.
    Python values convert as NumPy converts them; an array converts only where no value
    changes (integers in range, or a cast NumPy calls safe): anything else is a TypeError, never
    a silent truncation."""
    if not isinstance(array, np.ndarray):
        return np.ascontiguousarray(np.asarray(array, dtype=dtype))
    a = array
    if a.dtype != dtype:
        if a.dtype.kind in "iu" and dtype.kind in "iu":
            info = np.iinfo(dtype)
            if a.size and (a.min() < info.min or a.max() > info.max):
                raise TypeError("%s: values of %s outside the range of %s" % (what, a.dtype, dtype))
        elif not np.can_cast(a.dtype, dtype, casting="safe"):
            raise TypeError("%s: expected %s elements, got %s" % (what, dtype, a.dtype))
        a = a.astype(dtype)
    return np.ascontiguousarray(a)


def _buffer(a):
    return _ffi.from_buffer(a, require_writable=False) if a.size else _ffi.NULL


def _writable(a):
    return _ffi.from_buffer(a, require_writable=True) if a.size else _ffi.NULL


def init(thread_level=None, segment_size=None, transport=None):
    """Starts this rank (collective over the job); returns its Context. Arguments left out come
    from the PGDDS_* environment, as in C."""
    params = _ffi.new("pgdds_init_params_t *")
    keep = []
    if thread_level is not None:
        params.field_mask |= _INIT_FIELD_THREAD_LEVEL
        params.thread_level = thread_level
    if segment_size is not None:
        params.field_mask |= _INIT_FIELD_SEGMENT_SIZE
        params.segment_size = segment_size
    if transport is not None:
        params.field_mask |= _INIT_FIELD_TRANSPORT
        keep.append(_ffi.new("char[]", transport.encode()))
        params.transport = keep[-1]
    ctx = _ffi.new("pgdds_context_t *")
    _check(_lib.pgdds_init(params, ctx), "pgdds_init")
    return Context(ctx[0])


class Context:
    """One rank of a job: identity, collectives and the containers' factories. Collective
    methods must be called by every rank in the same order. Use it as a context manager, or call
    finalize()."""

    def __init__(self, handle):
        self._ctx = handle
        self._open = []

    def _live(self):
        if self._ctx is None:
            raise Error(-13, "the context is finalized")
        return self._ctx

    @property
    def rank(self):
        return _lib.pgdds_rank(self._live())

    @property
    def nranks(self):
        return _lib.pgdds_nranks(self._live())

    @property
    def local_rank(self):
        return _lib.pgdds_local_rank(self._live())

    @property
    def local_nranks(self):
        return _lib.pgdds_local_nranks(self._live())

    @property
    def transport(self):
        """The transport in use, e.g. "shm", "ofi/tcp;ofi_rxm", "ucx/tcp"."""
        return _ffi.string(_lib.pgdds_transport_name(self._live())).decode()

    def barrier(self):
        _check(_lib.pgdds_barrier(self._live()), "pgdds_barrier")

    def broadcast(self, array, root=0):
        """Broadcasts the root's array into every rank's array (in place; a writable,
        C-contiguous NumPy array of the same size everywhere). Returns it."""
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or not array.flags.writeable:
            raise TypeError("broadcast: a writable, C-contiguous NumPy array is required")
        _check(_lib.pgdds_broadcast(self._live(), _writable(array), array.nbytes, root), "pgdds_broadcast")
        return array

    def allreduce(self, array, op="sum"):
        """The element-wise reduction of every rank's array (int32/64, uint32/64, float32/64)
        with op "sum", "min", "max", "band", "bor" or "bxor"; a new array."""
        a = np.ascontiguousarray(array)
        if a.dtype not in _DTYPES:
            raise TypeError("allreduce: unsupported element type %s" % a.dtype)
        if op not in _OPS:
            raise ValueError("allreduce: unknown operation %r (one of %s)" % (op, ", ".join(_OPS)))
        out = np.empty_like(a)
        _check(_lib.pgdds_allreduce(self._live(), _buffer(a), _writable(out), a.size, _DTYPES[a.dtype], _OPS[op]),
               "pgdds_allreduce")
        return out

    def allgather(self, array):
        """Every rank's array (same shape and type everywhere), stacked: shape (nranks, ...)."""
        a = np.ascontiguousarray(array)
        out = np.empty((self.nranks,) + a.shape, dtype=a.dtype)
        _check(_lib.pgdds_allgather(self._live(), _buffer(a), _writable(out), a.nbytes), "pgdds_allgather")
        return out

    def hashmap(self, key_dtype, value_dtype, capacity):
        """A distributed hash map (collective): fixed-size keys and values of NumPy types
        (e.g. np.uint64, "S16", a structured dtype), compared byte for byte."""
        return self._track(HashMap(self, np.dtype(key_dtype), np.dtype(value_dtype), capacity))

    def queue(self, dtype, capacity, host=0, kind=QUEUE_CIRCULAR):
        """A queue of `capacity` elements of a NumPy type on rank `host` (collective)."""
        return self._track(Queue(self, np.dtype(dtype), capacity, host, kind))

    def bloom(self, expected_items, false_positive_rate=0.01):
        """A distributed Bloom filter sized for the rate at expected_items keys (collective)."""
        return self._track(BloomFilter(self, expected_items, false_positive_rate))

    def _track(self, container):
        self._open.append(container)
        return container

    def finalize(self):
        """Destroys what is still open (collective), then finalizes the rank."""
        if self._ctx is None:
            return
        for c in reversed(self._open):
            c.destroy()
        self._open = []
        status = _lib.pgdds_finalize(self._ctx)
        self._ctx = None
        _check(status, "pgdds_finalize")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.finalize()
        return False


class _Container:
    _destroy = None

    def _live(self):
        if self._handle is None:
            raise Error(-1, "%s: destroyed" % type(self).__name__)
        return self._handle

    def destroy(self):
        """Collective; the container's handle is invalid afterwards."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _check(type(self)._destroy(handle), type(self).__name__ + ".destroy")


class HashMap(_Container):
    """pgdds_hashmap: insert (or assign), find, erase, and their NumPy batches. ``concurrent``
    takes the C API's promises (CP_INSERT, CP_FIND, CP_LOCAL; 0 = fully atomic)."""
    _destroy = _lib.pgdds_hashmap_destroy

    def __init__(self, ctx, key_dtype, value_dtype, capacity):
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        params = _ffi.new("pgdds_hashmap_params_t *", [0, key_dtype.itemsize, value_dtype.itemsize, capacity])
        handle = _ffi.new("pgdds_hashmap_t *")
        _check(_lib.pgdds_hashmap_create(ctx._live(), params, handle), "pgdds_hashmap_create")
        self._handle = handle[0]

    def _keys(self, keys):
        return _contiguous(keys, self.key_dtype, "HashMap keys")

    def insert(self, key, value, concurrent=0):
        k = _contiguous([key], self.key_dtype, "HashMap key")
        v = _contiguous([value], self.value_dtype, "HashMap value")
        _check(_lib.pgdds_hashmap_insert(self._live(), _buffer(k), _buffer(v), concurrent), "pgdds_hashmap_insert")

    def find(self, key, concurrent=0):
        """The key's value; KeyError when absent."""
        k = _contiguous([key], self.key_dtype, "HashMap key")
        v = np.empty(1, dtype=self.value_dtype)
        status = _lib.pgdds_hashmap_find(self._live(), _buffer(k), _writable(v), concurrent)
        if status == ERR_NOT_FOUND:
            raise KeyError(key)
        _check(status, "pgdds_hashmap_find")
        return v[0]

    def __getitem__(self, key):
        return self.find(key)

    def __setitem__(self, key, value):
        self.insert(key, value)

    def __contains__(self, key):
        try:
            self.find(key)
            return True
        except KeyError:
            return False

    def erase(self, key, concurrent=0):
        """Removes the key; KeyError when absent."""
        k = _contiguous([key], self.key_dtype, "HashMap key")
        status = _lib.pgdds_hashmap_erase(self._live(), _buffer(k), concurrent)
        if status == ERR_NOT_FOUND:
            raise KeyError(key)
        _check(status, "pgdds_hashmap_erase")

    def insert_many(self, keys, values, concurrent=0):
        """Inserts (or assigns) keys[i] -> values[i]: two arrays of one length."""
        k, v = self._keys(keys), _contiguous(values, self.value_dtype, "HashMap values")
        if k.shape[0] != v.shape[0] or k.ndim != 1 or v.ndim != 1:
            raise ValueError("insert_many: %d keys and %d values (one-dimensional arrays of one length)"
                             % (k.shape[0] if k.ndim else 1, v.shape[0] if v.ndim else 1))
        _check(_lib.pgdds_hashmap_insert_many(self._live(), k.shape[0], _buffer(k), _buffer(v), concurrent),
               "pgdds_hashmap_insert_many")

    def find_many(self, keys, concurrent=0):
        """(values, found): found[i] is True where keys[i] is present, and values[i] its value."""
        k = self._keys(keys)
        if k.ndim != 1:
            raise ValueError("find_many: keys must be a one-dimensional array")
        values = np.zeros(k.shape[0], dtype=self.value_dtype)
        found = np.zeros(k.shape[0], dtype=np.uint8)
        _check(_lib.pgdds_hashmap_find_many(self._live(), k.shape[0], _buffer(k), _writable(values),
                                            _ffi.cast("unsigned char *", _writable(found)), concurrent),
               "pgdds_hashmap_find_many")
        return values, found.astype(bool)

    def size(self):
        """The number of entries in the whole map (collective)."""
        n = _ffi.new("uint64_t *")
        _check(_lib.pgdds_hashmap_size(self._live(), n), "pgdds_hashmap_size")
        return n[0]

    def capacity(self):
        n = _ffi.new("uint64_t *")
        _check(_lib.pgdds_hashmap_capacity(self._live(), n), "pgdds_hashmap_capacity")
        return n[0]

    def owner(self, key):
        """The rank that holds the key."""
        k = _contiguous([key], self.key_dtype, "HashMap key")
        r = _ffi.new("int *")
        _check(_lib.pgdds_hashmap_owner(self._live(), _buffer(k), r), "pgdds_hashmap_owner")
        return r[0]


class Queue(_Container):
    """pgdds_queue: push arrays of elements (all or nothing), pop up to a number of them."""
    _destroy = _lib.pgdds_queue_destroy

    def __init__(self, ctx, dtype, capacity, host, kind):
        self.dtype = dtype
        params = _ffi.new("pgdds_queue_params_t *", [0, kind, dtype.itemsize, capacity, host])
        handle = _ffi.new("pgdds_queue_t *")
        _check(_lib.pgdds_queue_create(ctx._live(), params, handle), "pgdds_queue_create")
        self._handle = handle[0]

    def push(self, elems, concurrent=0):
        """Pushes every element of a one-dimensional array, or none (Error with ERR_FULL)."""
        e = _contiguous(elems, self.dtype, "Queue elements")
        if e.ndim != 1:
            raise ValueError("push: a one-dimensional array of elements is required")
        _check(_lib.pgdds_queue_push(self._live(), _buffer(e), e.shape[0], concurrent), "pgdds_queue_push")

    def pop(self, max_count=1, concurrent=0):
        """Up to max_count elements; an empty array when the queue is empty."""
        out = np.empty(max_count, dtype=self.dtype)
        popped = _ffi.new("size_t *")
        status = _lib.pgdds_queue_pop(self._live(), _writable(out), max_count, popped, concurrent)
        if status == ERR_EMPTY:
            return out[:0]
        _check(status, "pgdds_queue_pop")
        return out[:popped[0]]

    def size(self):
        n = _ffi.new("uint64_t *")
        _check(_lib.pgdds_queue_size(self._live(), n), "pgdds_queue_size")
        return n[0]

    def capacity(self):
        n = _ffi.new("uint64_t *")
        _check(_lib.pgdds_queue_capacity(self._live(), n), "pgdds_queue_capacity")
        return n[0]


class BloomFilter(_Container):
    """pgdds_bloom: batched insert and membership tests of fixed-size keys (the rows of an
    array, or the elements of a one-dimensional one)."""
    _destroy = _lib.pgdds_bloom_destroy

    def __init__(self, ctx, expected_items, false_positive_rate):
        handle = _ffi.new("pgdds_bloom_t *")
        _check(_lib.pgdds_bloom_create(ctx._live(), expected_items, false_positive_rate, handle), "pgdds_bloom_create")
        self._handle = handle[0]

    @staticmethod
    def _keys(keys):
        k = np.ascontiguousarray(keys)
        if k.ndim == 0:
            k = k.reshape(1)
        count = k.shape[0]
        return k, count, (k.nbytes // count if count else 0)

    def insert_many(self, keys):
        """Inserts the keys; returns, per key, whether it was (maybe) present already."""
        k, count, key_len = self._keys(keys)
        was = np.zeros(count, dtype=np.uint8)
        _check(_lib.pgdds_bloom_insert_many(self._live(), count, _buffer(k), key_len,
                                            _ffi.cast("unsigned char *", _writable(was))), "pgdds_bloom_insert_many")
        return was.astype(bool)

    def contains_many(self, keys):
        """Per key: False if it was never inserted, True if it maybe was."""
        k, count, key_len = self._keys(keys)
        maybe = np.zeros(count, dtype=np.uint8)
        _check(_lib.pgdds_bloom_contains_many(self._live(), count, _buffer(k), key_len,
                                              _ffi.cast("unsigned char *", _writable(maybe))),
               "pgdds_bloom_contains_many")
        return maybe.astype(bool)
