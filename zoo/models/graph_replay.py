# A CUDA-graph replay loop with no NVTX: a small transformer encoder's forward pass, run three
# times eagerly on a side stream (the warm-up graph capture needs), captured once into a CUDA
# graph with torch.cuda.graph, then replayed 16 times (16 cudaGraphLaunch calls), each replay
# after a copy of a fresh input into the graph's static input. Random weights, fp32, no
# download. The export nsys gives of it is the zoo's example of a workload that already
# replays CUDA graphs.
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).cuda().eval()
static_x = torch.randn(8, 128, 256, device="cuda")
inputs = [torch.randn(8, 128, 256, device="cuda") for _ in range(16)]
with torch.inference_mode():
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            static_y = model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = model(static_x)
    total = torch.zeros((), device="cuda")
    for x in inputs:
        static_x.copy_(x)
        graph.replay()
        total += static_y.sum()
torch.cuda.synchronize()
print("ok graph_replay", tuple(static_y.shape), 16, "replays")
