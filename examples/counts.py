import numpy as np, pgdds
with pgdds.init() as ctx:                      # pgdds-run -n 4 python3 counts.py
    counts = ctx.hashmap(np.uint64, np.uint64, capacity=1 << 16)
    keys = np.arange(1000, dtype=np.uint64) + np.uint64(1000 * ctx.rank)
    counts.insert_many(keys, keys * np.uint64(2))
    ctx.barrier()
    values, found = counts.find_many(keys)
    total = counts.size()
    print(ctx.rank, total, found.all())
    ok = total == 1000 * ctx.nranks and found.all() and (values == keys * np.uint64(2)).all()
raise SystemExit(0 if ok else 1)
