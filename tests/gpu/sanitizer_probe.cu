// sanitizer_probe.cu - one deliberate fault per compute-sanitizer tool, so
// that run_all.sh can tell that a tool, with the kernel filter it passes,
// really instruments kernels named as tlc names its own (extern "C",
// NAME_kernel): a tool that reports nothing on its probe would also report
// nothing on tlc's kernels, and the run fails instead of passing unseen.
//
//   sanitizer_probe memcheck    a write far outside its allocation
//   sanitizer_probe racecheck   two warps write and read shared memory with no barrier
//   sanitizer_probe initcheck   a read of device memory never written
// Each exits 0 on its own; under its tool it must yield errors.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

extern "C" __global__ void probe_out_of_bounds_kernel(int *p)
{
	if (threadIdx.x == 0)
		p[1 << 26] = 1;
}

extern "C" __global__ void probe_race_kernel(int *out)
{
	__shared__ int s[32];
	s[threadIdx.x % 32] = threadIdx.x;
	out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

extern "C" __global__ void probe_uninitialized_kernel(const int *in, int *out)
{
	out[threadIdx.x] = in[threadIdx.x];
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s memcheck|racecheck|initcheck\n", argv[0]);
		return 2;
	}
	int *a = nullptr, *b = nullptr;
	cudaMalloc(&a, 64 * sizeof(int));
	cudaMalloc(&b, 64 * sizeof(int));
	cudaMemset(b, 0, 64 * sizeof(int));
	if (!strcmp(argv[1], "memcheck"))
		probe_out_of_bounds_kernel<<<1, 32>>>(a);
	else if (!strcmp(argv[1], "racecheck"))
		probe_race_kernel<<<1, 64>>>(b);
	else if (!strcmp(argv[1], "initcheck"))
		probe_uninitialized_kernel<<<1, 64>>>(a, b);
	else
		return 2;
	cudaError_t e = cudaDeviceSynchronize();
	printf("probe %s: %s\n", argv[1], cudaGetErrorString(e));
	cudaFree(a);
	cudaFree(b);
	return 0;
}
