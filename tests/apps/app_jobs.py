"""What the application checks share: running a job, and telling the one reason to skip (a
transport this machine lacks) from a failure."""
import os
import subprocess
import time

SKIP = 77


class Unavailable(Exception):
    pass


def no_rdma_device():
    """PGDDS_TRANSPORT=verbs on a machine without an RDMA device: the one reason to skip."""
    try:
        devices = os.listdir("/sys/class/infiniband")
    except OSError:
        devices = []
    return os.environ.get("PGDDS_TRANSPORT") == "verbs" and not devices


def run_job(argv, timeout):
    """Runs argv, its output captured and its duration in .seconds; Unavailable where the job
    could not start for want of its transport."""
    start = time.time()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    p.seconds = time.time() - start
    if "unsupported: pgdds_init" in p.stderr and no_rdma_device():  # the only transport this machine may lack
        raise Unavailable("no RDMA device (/sys/class/infiniband is empty): " + p.stderr.strip().splitlines()[0])
    return p
