#!/usr/bin/env python3
"""pgdds-info as a user runs it: text, JSON, the Markdown reference, typos in the environment,
and a bad option. usage: check_pgdds_info.py PGDDS_INFO"""
import json
import os
import subprocess
import sys


def run(info, *args, env_extra=None, expect=0):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PGDDS_")}
    env.update(env_extra or {})
    r = subprocess.run([info, *args], capture_output=True, text=True, env=env)
    if r.returncode != expect:
        raise SystemExit(f"pgdds-info {' '.join(args)} exited {r.returncode}, expected {expect}:\n{r.stderr}")
    return r.stdout


def expect(ok, what):
    if not ok:
        raise SystemExit(f"pgdds-info: {what}")


def main():
    info = sys.argv[1]
    doc = json.loads(run(info, "--json", env_extra={"PGDDS_SEGMENT_SIZE": "2G", "PGDDS_SEGMNT_SIZE": "1"}))
    names = [v["name"] for v in doc["variables"]]
    expect(len(names) == len(set(names)) and names, "variables are listed once each")
    seg = next(v for v in doc["variables"] if v["name"] == "PGDDS_SEGMENT_SIZE")
    expect(seg["value"] == "2G" and seg["value_ok"] and seg["type"] == "size", f"PGDDS_SEGMENT_SIZE is {seg}")
    expect(doc["unknown_variables"] == ["PGDDS_SEGMNT_SIZE"], f"unknown variables {doc['unknown_variables']}")
    transports = {t["transport"] for t in doc["transports"]}
    expect({"shm", "ofi", "ucx", "verbs"} <= transports, f"transports {transports}")
    expect(doc["build"]["version"] == doc["version"], "one version")
    # Every built backend describes what it finds: UCX its transports, verbs its RDMA devices
    # (or that there is none).
    rows = doc["transports"]
    expect(not any("does not describe" in t["detail"] for t in rows), "a built backend describes nothing")
    for kind in ("ucx", "verbs"):
        built = [t for t in rows if t["transport"] == kind and t["built"]]
        if not built:
            continue
        head = next((t for t in built if t["component"] == ""), None)
        expect(head is not None and head["detail"], f"{kind} has no summary entry: {built}")
        if kind == "ucx" and head["usable"]:
            tls = {t["component"] for t in built if t["component"]}
            expect(tls and all(t["atomics"] and t["progress"] for t in built if t["component"]), f"ucx transports {built}")
            expect(head["detail"].startswith("UCX "), f"ucx summary {head}")
        if kind == "verbs":
            ports = [t for t in built if t["component"]]
            expect(ports or (head["usable"] is False and "no RDMA device" in head["detail"]),
                   f"verbs neither lists ports nor says there is no device: {built}")
    # CUDA is claimed exactly when the GPU layer is built with it, and the devices are those the
    # CUDA runtime sees now, with the reason when it sees none.
    cuda, gpu = doc["build"].get("cuda"), doc.get("gpu", {})
    expect(cuda in ("no",) or (cuda or "").startswith("yes (CUDA runtime "), f"build option cuda: {cuda}")
    expect(gpu.get("built") == (cuda != "no"), f"gpu {gpu} against build option cuda {cuda}")
    expect(gpu.get("devices", -1) > 0 or (gpu.get("devices") == 0 and (gpu.get("detail") or not gpu.get("built"))),
           f"gpu devices without a reason: {gpu}")

    text = run(info)
    for name in names:
        expect(name in text, f"{name} missing from the text output")
    expect("Transports on this machine" in text and "Build" in text, "the text output has every section")
    only_env = run(info, "-e")
    expect("Build\n" not in only_env and "PGDDS_PMI" in only_env, "-e prints the variables only")

    markdown = run(info, "--env-markdown")
    expect(all(f"### `{n}`" in markdown for n in names), "the Markdown reference has every variable")
    run(info, "--no-such-option", expect=2)
    print(f"pgdds-info: {len(names)} variables, {len(doc['transports'])} transport entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
