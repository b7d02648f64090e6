/* wave64_target.c - a test-only target, "test-wave64", whose machine has
 * 64 lanes per wavefront and one matrix instruction: a 16x16x16 float16
 * MFMA-style atom issued by a whole wavefront (lane l holds column l % 16
 * of the accumulator and rows 4 * (l / 16) + r in its 4 registers r).  No
 * GPU works like cuda-sm90 here, so a pass that still assumed 32-lane warps
 * or the 16x8 mma.sync atom would give layouts the lit tests
 * (tests/lit/target/) reject.  It emits nothing: it is for --emit=ir. */
#include <tlc/diag.h>
#include <tlc/plugin.h>
#include <tlc/target.h>

/* digits: {radix, dimension, stride, thread digit?, weight} (tlc/layout.h) */
static const tlc_frag_digit acc_16x16[] = {
	{16, 1, 1, true, 1}, /* lane % 16: column */
	{4, 0, 1, false, 1}, /* register: row bits 0-1 */
	{4, 0, 4, true, 16}, /* lane / 16: row bits 2-3 */
};
static const tlc_frag_digit a_16x16[] = {
	{16, 0, 1, true, 1}, /* lane % 16: row (m) */
	{4, 1, 1, false, 1}, /* register: k bits 0-1 */
	{4, 1, 4, true, 16}, /* lane / 16: k bits 2-3 */
};
static const tlc_frag_digit b_16x16[] = {
	{16, 1, 1, true, 1}, /* lane % 16: column (n) */
	{4, 0, 1, false, 1}, /* register: k bits 0-1 */
	{4, 0, 4, true, 16}, /* lane / 16: k bits 2-3 */
};

static const tlc_matrix_inst wave64_matrix[] = {
	{"test.mfma.16x16x16", 16, 16, 16, 16, TLC_DT_FLOAT16, TLC_DT_FLOAT16, TLC_DT_FLOAT32, 64, TLC_MMA_FROM_REGS,
	 TLC_MMA_FROM_REGS, {16, 16, 3, a_16x16}, {16, 16, 3, b_16x16}, {16, 16, 3, acc_16x16}, 0},
};

static const tlc_target_info wave64_info = {
	.struct_size = sizeof(tlc_target_info),
	.lanes = 64,
	.warpgroup = 0,
	.max_threads = 1024,
	.smem_default = 64 * 1024,
	.smem_max = 64 * 1024,
	.max_regs = 512,
	.local_bytes_max = 64 * 1024,
	.regs_per_block = 512 * 256,
	.global_vector_bytes = 16,
	.shared_vector_bytes = 8,
	.atomic_add_f32_vector = 1,
	.async_copy = 0,
	.barriers = 0,
	.setmaxnreg = false,
	.max_cluster = 1,
	.nmatrix = 1,
	.matrix = wave64_matrix,
};

static int emit_nothing(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out)
{
	(void)opts, (void)out;
	tlc_error(tlc_module_context(m), (tlc_loc){0}, "target test-wave64 is a test target: use --emit=ir");
	return 1;
}

static const tlc_target_desc wave64_target = {
	.name = "test-wave64",
	.summary = "a test machine with 64-lane wavefronts (tests only; emits nothing)",
	.pipeline = "pipeline.test-wave64",
	.source_ext = "txt",
	.emit = emit_nothing,
	.info = &wave64_info,
};

static int wave64_init(tlc_registry *reg)
{
	return tlc_register_target(reg, &wave64_target);
}

static const tlc_plugin_desc wave64_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "wave64_target",
	.version = "0",
	.description = "test target with 64-lane wavefronts",
	.init = wave64_init,
};

TLC_DEFINE_PLUGIN(wave64_plugin)
