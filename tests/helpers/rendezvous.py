#!/usr/bin/env python3
"""A CPU-only multi-rank workload: every run is one rendezvous of all ranks over TCP.

Rank 0 listens on MASTER_PORT; each other rank connects and sends its rank and KSCOPE_PASS;
rank 0 answers once all have come, and only if they are all in the same pass. A rank whose
peers do not come fails after 30 s instead of waiting forever. Each rank appends one line to
the log (argv[1]): its rank, pass, port and whether a profiler ran it (KSCOPE_STANDIN_UNDER).
"""
import os
import socket
import sys
import time


def rank_and_size():
    for r, s in (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE"),
                 ("SLURM_PROCID", "SLURM_NTASKS"), ("RANK", "WORLD_SIZE")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ[s])
    raise SystemExit("rendezvous.py: no rank in the environment")


def main():
    rank, size = rank_and_size()
    port = int(os.environ["MASTER_PORT"])
    this_pass = os.environ.get("KSCOPE_PASS", "-")
    deadline = time.time() + 30
    if rank == 0:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(size)
        server.settimeout(30)
        peers = []
        while len(peers) < size - 1:
            conn, _ = server.accept()
            conn.settimeout(max(deadline - time.time(), 1))
            peers.append((conn, conn.recv(64).decode().split()))
        agreed = all(p[1][1] == this_pass for p in peers)
        for conn, _ in peers:
            conn.sendall(b"go" if agreed else b"no")
            conn.close()
        if not agreed:
            raise SystemExit(f"rendezvous.py: ranks in different passes: {[p[1] for p in peers]}")
    else:
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=2)
                if conn.getsockname() == conn.getpeername():  # TCP's self-connect to a port nobody holds
                    conn.close()
                    raise OSError("connected to itself")
                break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit(f"rendezvous.py: rank {rank} found no rank 0 on port {port}")
                time.sleep(0.05)
        conn.settimeout(max(deadline - time.time(), 1))
        conn.sendall(f"{rank} {this_pass}".encode())
        if conn.recv(8) != b"go":
            raise SystemExit("rendezvous.py: rank 0 refused the rendezvous")
    line = f"rank={rank} pass={this_pass} port={port} under={os.environ.get('KSCOPE_STANDIN_UNDER', 'none')}\n"
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(line)


if __name__ == "__main__":
    main()
