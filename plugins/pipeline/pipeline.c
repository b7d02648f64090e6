/* pipeline.c - the software-pipelining plugin: pipeline-planning (a stage
 * and an order for each statement of a T.Pipelined loop) and inject-pipeline
 * (prologue, steady state, epilogue, versioned buffers, asynchronous
 * copies), and warp-specialize (a TMA producer warpgroup and the user's
 * threads as consumers, for sm_90a) between them; stage-outputs (the
 * epilogue: accumulators leave through shared memory by TMA stores); and
 * thread-split (the branches of an `if` on the thread index as T.ws scopes,
 * thread_split.c), which goes first.  All run before layout inference; see
 * doc/pipeline.md. */
#include "config.h"

#include <tlc/plugin.h>

#include "pipeline.h"

static const tlc_pass_option no_options[] = {{NULL, TLC_OPT_BOOL, NULL}};
static const tlc_pass_option ws_options[] = {
	{"enable", TLC_OPT_BOOL, "warp-specialize TMA-fed pipelined loops"},
	{"multicast", TLC_OPT_BOOL, "run in clusters of blocks along x that load the tiles they all need once (TMA multicast)"},
	{"cluster-size", TLC_OPT_INT, "blocks per cluster for multicast (default 2; at most the target's max_cluster)"},
	{"remarks", TLC_OPT_BOOL, "say on stderr why a loop was not specialized, and when it runs in clusters"},
	{NULL, TLC_OPT_BOOL, NULL},
};
static const tlc_pass_option stage_options[] = {
	{"enable", TLC_OPT_BOOL, "stage gemm accumulators through shared memory on their way to global tensors"},
	{"remarks", TLC_OPT_BOOL, "say on stderr why an accumulator copied into a global tensor is not staged"},
	{NULL, TLC_OPT_BOOL, NULL},
};
static const tlc_pass_option inject_options[] = {
	{"async-copy", TLC_OPT_BOOL, "fill the stages with cp.async where the target has it"},
	{NULL, TLC_OPT_BOOL, NULL},
};

static const tlc_pass_desc thread_split_pass = {
	.name = "thread-split",
	.summary = "run each branch of an 'if' on the thread index that splits the block at warpgroups as a T.ws scope",
	.run = pl_run_thread_split,
	.options = no_options,
};

static const tlc_pass_desc planning_pass = {
	.name = "pipeline-planning",
	.summary = "give each statement of a T.Pipelined loop a stage and an order (copies prefetched num_stages-1 ahead)",
	.run = pl_run_planning,
	.options = no_options,
};

static const tlc_pass_desc ws_pass = {
	.name = "warp-specialize",
	.summary = "run a TMA-fed pipelined loop as a producer warpgroup and the user's threads as consumers, on mbarriers",
	.run = pl_run_warp_specialize,
	.options = ws_options,
};

static const tlc_pass_desc inject_pass = {
	.name = "inject-pipeline",
	.summary = "software-pipeline T.Pipelined loops: prologue, steady state, epilogue, versioned shared buffers, cp.async",
	.run = pl_run_inject,
	.options = inject_options,
};

static const tlc_pass_desc stage_pass = {
	.name = "stage-outputs",
	.summary = "copy gemm accumulators into global tensors through shared memory (TMA stores)",
	.run = pl_run_stage_outputs,
	.options = stage_options,
};

static int pipeline_init(tlc_registry *reg)
{
	int rc = tlc_register_pass(reg, &planning_pass);
	if (!rc)
		rc = tlc_register_pass(reg, &thread_split_pass);
	if (!rc)
		rc = tlc_register_pass(reg, &ws_pass);
	if (!rc)
		rc = tlc_register_pass(reg, &stage_pass);
	return rc ? rc : tlc_register_pass(reg, &inject_pass);
}

static const tlc_plugin_desc pipeline_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "pipeline",
	.version = PACKAGE_VERSION,
	.description = "software pipelining of T.Pipelined loops",
	.init = pipeline_init,
};

TLC_DEFINE_PLUGIN(pipeline_plugin)
