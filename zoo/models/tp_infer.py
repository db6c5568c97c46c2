# Tensor-parallel decoder-LLM inference (Megatron-style) over NCCL, one process per GPU, started
# by torchrun (torchrun --nproc_per_node=2 tp_infer.py): in every layer the attention heads and
# the MLP's hidden units are split across the ranks (column-parallel QKV and gate/up
# projections, row-parallel output and down projections), so each layer ends its attention and
# its MLP with an all-reduce of the partial sums. Llama-style blocks (RMSNorm, SwiGLU), bf16,
# random weights, greedy decoding with a KV cache. NVTX 'generate' ranges hold 'prefill' and
# 'decode'.
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

import zoo_common as z

args = z.parse(__doc__, layers=8, hidden=2048, heads=16, ffn=5632, vocab=32000, batch=4, prompt=256,
               new_tokens=32, rounds=3)
cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "num_hidden_layers": args.layers,
       "hidden_size": args.hidden, "num_attention_heads": args.heads, "num_key_value_heads": args.heads,
       "intermediate_size": args.ffn, "vocab_size": args.vocab, "torch_dtype": "bfloat16",
       "tensor_parallel": 2}
if z.write_config(args, cfg):
    raise SystemExit
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank, world = dist.get_rank(), dist.get_world_size()
heads = args.heads // world  # this rank's attention heads
head_dim = args.hidden // args.heads
ffn = args.ffn // world  # this rank's MLP hidden units
max_len = args.prompt + args.new_tokens


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.RMSNorm(args.hidden)
        self.qkv = nn.Linear(args.hidden, 3 * heads * head_dim, bias=False)  # column-parallel
        self.out = nn.Linear(heads * head_dim, args.hidden, bias=False)  # row-parallel
        self.norm2 = nn.RMSNorm(args.hidden)
        self.gate_up = nn.Linear(args.hidden, 2 * ffn, bias=False)  # column-parallel
        self.down = nn.Linear(ffn, args.hidden, bias=False)  # row-parallel

    def forward(self, x, cache, pos):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, heads, head_dim).transpose(1, 3).unbind(2)
        cache[0][:, :, pos:pos + t] = k
        cache[1][:, :, pos:pos + t] = v
        a = F.scaled_dot_product_attention(q, cache[0][:, :, :pos + t], cache[1][:, :, :pos + t], is_causal=t > 1)
        a = self.out(a.transpose(1, 2).reshape(b, t, heads * head_dim))
        dist.all_reduce(a)  # the attention's partial sums of every rank
        x = x + a
        g, u = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        m = self.down(F.silu(g) * u)
        dist.all_reduce(m)  # the MLP's
        return x + m


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(args.vocab, args.hidden)
        self.layers = nn.ModuleList(Layer() for _ in range(args.layers))
        self.norm = nn.RMSNorm(args.hidden)
        self.head = nn.Linear(args.hidden, args.vocab, bias=False)

    def forward(self, ids, caches, pos):
        x = self.embed(ids)
        for layer, cache in zip(self.layers, caches):
            x = layer(x, cache, pos)
        return self.head(self.norm(x[:, -1]))


z.setup()
model = Decoder().cuda().to(torch.bfloat16).eval()
prompt = torch.randint(0, args.vocab, (args.batch, args.prompt), device="cuda")
dist.broadcast(prompt, 0)  # one prompt for the whole job
with torch.inference_mode():
    for _ in range(args.rounds):
        caches = [torch.zeros(2, args.batch, heads, max_len, head_dim, device="cuda", dtype=torch.bfloat16)
                  for _ in range(args.layers)]
        with z.stage("generate"):
            with z.stage("prefill"):
                token = model(prompt, caches, 0).argmax(-1, keepdim=True)
            with z.stage("decode"):
                for i in range(args.new_tokens - 1):
                    token = model(token, caches, args.prompt + i).argmax(-1, keepdim=True)
            torch.cuda.synchronize()
z.done(args.rounds, "rounds", f"rank {rank} of {world}", f"last token {token[0, 0].item()}")
dist.destroy_process_group()
