// Kernels and nothing else on the GPU: no cudaMemcpy, no cudaMemset, no NVTX. The export nsys
// makes of it has kernels and CUDA API calls but no memory operations (issue 26).
#include <cstdio>
__global__ void fill(int n, float v, float* x) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v * i; }
__global__ void axpy(int n, float a, const float* x, float* y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
int main() {
  int n = 1 << 20; float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  fill<<<(n + 255) / 256, 256>>>(n, 1.f, x); fill<<<(n + 255) / 256, 256>>>(n, 2.f, y);
  for (int i = 0; i < 4; i++) axpy<<<(n + 255) / 256, 256>>>(n, 0.5f, x, y);
  cudaDeviceSynchronize(); printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
}
