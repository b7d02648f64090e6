/* test_embed.c - the device helper headers embedded in the cuda plugin
 * (scripts/embed.sh -> device_sources.h -> cuda_device_text) are byte for
 * byte the files in backends/cuda/device/, so escaping lost nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tap.h"
#include "cuda_emit.h" /* -I backends/cuda */

/* The whole file at TLC_SRCDIR/rel, or NULL. */
static char *slurp(const char *rel)
{
	const char *srcdir = getenv("TLC_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", srcdir ? srcdir : ".", rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

int main(void)
{
	/* each helper and an instruction its text must hold */
	static const char *const names[] = {"tlc_mma_sync", "tlc_gemm",     "tlc_wgmma",        "tlc_tma",
	                                    "tlc_tma_host", "tlc_cp_async", "tlc_stmatrix",     "tlc_gemm_i8_tf32",
	                                    "tlc_wgmma_i8_tf32"};
	/* the gemm helpers issue their mma.sync atoms through tlc_mma_sync's
	 * mma_sync_regs, which holds the instructions */
	static const char *const holds[] = {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
	                                    "ldmatrix.sync.aligned", "wgmma.mma_async", "cp.async.bulk.tensor",
	                                    "cuTensorMapEncodeTiled", "cp.async.wait_group",
	                                    "stmatrix.sync.aligned.m8n8.x4.shared.b16", "mma_sync_regs",
	                                    "k32.s32.s8.s8"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "backends/cuda/device/%s.cuh", names[i]);
		char *want = slurp(rel);
		const char *got = cuda_device_text(names[i]);
		ok(want != NULL, "read %s", rel);
		ok(got != NULL, "cuda_device_text(\"%s\") is embedded", names[i]);
		ok(want && got && strcmp(got, want) == 0, "%s: embedded text equals the file (%zu bytes)", names[i],
		   want ? strlen(want) : (size_t)0);
		ok(got && strstr(got, holds[i]) != NULL, "%s: the text holds %s", names[i], holds[i]);
		free(want);
	}
	ok(cuda_device_text("no_such_helper") == NULL, "an unknown name gives NULL");
	ok(cuda_device_text("tlc_gemm.cuh") == NULL, "the name is given without .cuh");
	ok(cuda_device_text(NULL) == NULL, "NULL gives NULL");
	return done_testing();
}
