/* fuzz_ini.c - libFuzzer harness: the INI reader (doc/pipeline.md), and what
 * the passes and targets make of the options it gives them.
 *
 * The input is a configuration file.  When it reads without errors, its
 * plugins are loaded (only those built for fuzzing), its names checked, and
 * a small kernel is compiled with the pipeline and options of each target it
 * has a pipeline for. */
#include "fuzz_common.h"

#include <tlc/plugin.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* elementwise_add of examples/, with a reduction and a gemm: every pass has
 * something to do, and reads its options. */
static const char kernel[] =
	"import tilelang.language as T\n"
	"\n"
	"@T.prim_func\n"
	"def k(A: T.Tensor((128, 64), \"float16\"), B: T.Tensor((64, 64), \"float16\"),\n"
	"      C: T.Tensor((128, 64), \"float32\"), S: T.Tensor((128,), \"float32\")):\n"
	"    with T.Kernel(1, threads=128) as bx:\n"
	"        A_s = T.alloc_shared((128, 64), \"float16\")\n"
	"        B_s = T.alloc_shared((64, 64), \"float16\")\n"
	"        C_f = T.alloc_fragment((128, 64), \"float32\")\n"
	"        S_f = T.alloc_fragment((128,), \"float32\")\n"
	"        T.copy(A[0, 0], A_s)\n"
	"        T.copy(B[0, 0], B_s)\n"
	"        T.clear(C_f)\n"
	"        T.gemm(A_s, B_s, C_f)\n"
	"        for i, j in T.Parallel(128, 64):\n"
	"            C_f[i, j] = C_f[i, j] * 2.0\n"
	"        T.reduce_sum(C_f, S_f, dim=1)\n"
	"        T.copy(C_f, C[0, 0])\n"
	"        T.copy(S_f, S[0])\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *text = fuzz_text(data, size);
	fuzz_session s;
	if (fuzz_session_open(&s, "fuzz.ini", text) == 0) {
		/* the options through the accessors the passes use */
		const tlc_pass_options *o = tlc_config_options(s.cfg, "simplify");
		(void)tlc_opt_bool(o, "fold-branches", true);
		(void)tlc_opt_int(o, "fold-branches", 0);
		(void)tlc_opt_str(o, "", NULL);
		const tlc_target_desc *t;
		for (int i = 0; (t = tlc_target_at(s.ctx, i)); i++) {
			tlc_frontend_opts fe = {0};
			int errors = tlc_error_count(s.ctx);
			tlc_module *m = tlc_parse(s.ctx, "kernel.tl", kernel, sizeof(kernel) - 1, &fe);
			if (!m || tlc_error_count(s.ctx) > errors)
				fuzz_bug(&s, "the fixed kernel does not parse", text, size);
			fuzz_pipeline_and_emit(&s, m, t->name, false, text, size);
			tlc_module_free(m);
		}
	}
	fuzz_session_close(&s);
	free(text);
	return 0;
}
