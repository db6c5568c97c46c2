# Shared by the zoo's workloads: argument parsing, NVTX stages, and the model's description.
# Every workload builds its model from a config with random weights (no download), runs a few
# steps with NVTX ranges around its stages, and prints one line "ok ...".
import argparse
import contextlib
import json
import os
import sys

import torch


def parse(description, **defaults):
    p = argparse.ArgumentParser(description=description)
    for name, value in defaults.items():
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    p.add_argument("--write-config", metavar="DIR", help="write the model's config.json there and exit")
    return p.parse_args()


@contextlib.contextmanager
def stage(name):
    """An NVTX push/pop range in the default domain, as torch.cuda.nvtx writes them."""
    torch.cuda.nvtx.range_push(name)
    try:
        yield
    finally:
        torch.cuda.nvtx.range_pop()


def setup():
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True


def write_config(args, config):
    """--write-config DIR: the Hugging Face config.json of the model (kscope's model.hf_config)."""
    if not args.write_config:
        return False
    os.makedirs(args.write_config, exist_ok=True)
    path = os.path.join(args.write_config, "config.json")
    with open(path, "w") as f:
        json.dump(config.to_dict() if hasattr(config, "to_dict") else config, f, indent=2, sort_keys=True,
                  default=str)
    print("wrote", path)
    return True


def done(*what):
    torch.cuda.synchronize()
    print("ok", os.path.basename(sys.argv[0]), *what, flush=True)


def torch_rank_env():
    """Gives torch.distributed the rank variables it reads (RANK, WORLD_SIZE, LOCAL_RANK) under
    a launcher that sets its own instead (mpirun: OMPI_COMM_WORLD_*; srun: SLURM_*), with a
    rendezvous on this host unless one is set. torchrun sets torch's own, which are kept."""
    for mine, theirs in (("RANK", ("OMPI_COMM_WORLD_RANK", "SLURM_PROCID")),
                         ("WORLD_SIZE", ("OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS")),
                         ("LOCAL_RANK", ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"))):
        for var in theirs:
            if mine not in os.environ and var in os.environ:
                os.environ[mine] = os.environ[var]
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
