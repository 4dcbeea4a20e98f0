"""The Python bindings on N ranks: identity, collectives, hash map, queue and Bloom filter with
NumPy batches, exact counts under concurrency, and bad input raising clear errors. Every rank
checks; exit status 1 on any failed check. Run under a launcher: pgdds-run -n 4 python3 this.py"""

import os
import sys

import numpy as np
import pgdds

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL rank %d: %s" % (RANK, what), file=sys.stderr, flush=True)


def raises(exc, fn, what, status=None):
    try:
        fn()
    except exc as e:
        if status is not None:
            check(getattr(e, "status", None) == status, "%s: status %s, expected %d" % (what, getattr(e, "status", None), status))
        check(str(e) != "", "%s: empty message" % what)
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure being reported
        check(False, "%s: raised %r instead of %s" % (what, e, exc.__name__))
        return
    check(False, "%s: did not raise %s" % (what, exc.__name__))


def expected_transport(ctx):
    """The transport the configuration asks for (as tests/harness.h's t_check_transport)."""
    want = os.environ.get("PGDDS_TRANSPORT", "")
    if want in ("", "auto"):
        return None
    if want == "shm":
        return "shm"
    name = {"ofi": "ofi/" + os.environ.get("PGDDS_OFI_PROVIDER", ""),
            "ucx": "ucx/" + os.environ.get("UCX_TLS", "")}.get(want, want)
    shm_on = os.environ.get("PGDDS_SHM", "auto") != "off" and ctx.local_nranks > 1
    return name + ("+shm" if shm_on else "")


RANK = -1
ctx = pgdds.init()
RANK, n = ctx.rank, ctx.nranks
want = expected_transport(ctx)
check(want is None or ctx.transport == want, "transport %s, the configuration asks for %s" % (ctx.transport, want))

# Identity and collectives.
check(list(ctx.allgather(np.array([RANK], dtype=np.int32)).ravel()) == list(range(n)), "allgather of the ranks")
check(ctx.allreduce(np.array([RANK + 1, -RANK], dtype=np.int64))[0] == n * (n + 1) // 2, "allreduce sum int64")
check(ctx.allreduce(np.array([float(RANK)]), "max")[0] == n - 1, "allreduce max float64")
check(ctx.allreduce(np.array([RANK], dtype=np.uint32), "min")[0] == 0, "allreduce min uint32")
b = np.arange(8, dtype=np.float64) * (RANK + 1)
ctx.broadcast(b, root=n - 1)
check(np.array_equal(b, np.arange(8) * n), "broadcast from the last rank")

# Hash map: own keys in batches, shared keys from every rank at once (fully atomic), exact size.
per_rank, shared = 500, 64
m = ctx.hashmap(np.uint64, np.uint64, capacity=4 * (per_rank * n + shared))
own = np.arange(per_rank, dtype=np.uint64) + np.uint64(1000000 + RANK * per_rank)
for i in range(0, per_rank, 128):
    m.insert_many(own[i:i + 128], own[i:i + 128] * np.uint64(3))
common = np.arange(shared, dtype=np.uint64) + np.uint64(5000000)
m.insert_many(common, np.full(shared, RANK, dtype=np.uint64))
ctx.barrier()
check(m.size() == per_rank * n + shared, "hash map size %d, expected %d" % (m.size(), per_rank * n + shared))
everyone = np.arange(per_rank * n, dtype=np.uint64) + np.uint64(1000000)
values, found = m.find_many(everyone)
check(found.all(), "find_many: %d of %d keys missing" % ((~found).sum(), found.size))
check(np.array_equal(values[found], everyone[found] * np.uint64(3)), "find_many: wrong values")
values, found = m.find_many(common)
check(found.all() and (values < n).all(), "shared keys: present, each with some rank's value")
values, found = m.find_many(np.arange(10, dtype=np.uint64))
check(not found.any(), "find_many of absent keys")
ctx.barrier()
key = 9000000 + RANK
m.insert(key, 42)
check(m.find(key) == 42 and key in m and m[key] == 42, "single insert/find")
m[key] = 43
check(m.find(key) == 43, "assign in place")
check(0 <= m.owner(key) < n, "owner in range")
m.erase(key)
raises(KeyError, lambda: m.find(key), "find of an erased key")
raises(KeyError, lambda: m.erase(key), "erase of an absent key")
raises(ValueError, lambda: m.insert_many(own[:3], own[:2]), "insert_many of 3 keys and 2 values")
raises(TypeError, lambda: m.insert_many(np.array([1.5]), np.array([1], dtype=np.uint64)), "float keys in a uint64 map")
raises(TypeError, lambda: m.insert_many(np.array([-1]), np.array([1], dtype=np.uint64)), "negative keys in a uint64 map")
raises(pgdds.Error, lambda: m.insert(1, 2, concurrent=pgdds.CP_PUSH), "a queue promise on a hash map",
       status=-1)
ctx.barrier()

# Queue on the last rank: every rank pushes at once, the host pops every element exactly once.
host, k = n - 1, 40
q = ctx.queue(np.int64, capacity=k * n, host=host)
mine = np.arange(k, dtype=np.int64) + RANK * 1000
for i in range(0, k, 8):
    q.push(mine[i:i + 8])
ctx.barrier()
check(q.size() == k * n, "queue size %d, expected %d" % (q.size(), k * n))
raises(pgdds.Error, lambda: q.push(np.arange(1, dtype=np.int64)), "push into a full queue", status=-5)
ctx.barrier()
if RANK == host:
    popped = np.concatenate([q.pop(16) for _ in range((k * n + 15) // 16)])
    want_all = np.concatenate([np.arange(k) + r * 1000 for r in range(n)])
    check(np.array_equal(np.sort(popped), np.sort(want_all)), "popped elements: %d, not every push once" % popped.size)
    check(q.pop(4).size == 0, "pop of an empty queue")
ctx.barrier()

# Bloom filter: no false negatives; was_present answers per key.
bf = ctx.bloom(expected_items=20000, false_positive_rate=0.01)
keys = np.arange(1000, dtype=np.uint64) + np.uint64(RANK * 1000)
first = bf.insert_many(keys)
again = bf.insert_many(keys)
check(again.all(), "a second insert of the same keys: every key present already")
ctx.barrier()
check(bf.contains_many(np.arange(1000 * n, dtype=np.uint64)).all(), "Bloom filter: a false negative")
check(first.sum() < 100, "Bloom filter: %d of 1000 new keys reported present" % first.sum())

# Destroyed containers and the finalized context refuse calls with a clear error.
bf.destroy()
raises(pgdds.Error, lambda: bf.contains_many(keys), "a destroyed Bloom filter")
ctx.finalize()
raises(pgdds.Error, lambda: ctx.barrier(), "a finalized context")

print("python/containers: %s on rank %d of %d over %s" % ("passed" if failures == 0 else "FAILED", RANK, n, want),
      flush=True)
sys.exit(1 if failures else 0)
