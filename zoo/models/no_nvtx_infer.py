# A small transformer encoder's forward pass, a few times, with no NVTX at all (no ranges, no
# zoo_common stages): the export it gives under nsys has no NVTX data, which is what nsys's
# NVTX reports skip. Random weights, fp32, no download.
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=2).cuda().eval()
x = torch.randn(4, 64, 256, device="cuda")
with torch.inference_mode():
    for _ in range(5):
        y = model(x)
torch.cuda.synchronize()
print("ok no_nvtx_infer", tuple(y.shape))
