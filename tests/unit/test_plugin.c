/* test_plugin.c - the registry, the INI configuration, pass options and the
 * pass manager, mostly without dlopen (passes registered from this file). */
#include "internal.h"
#include "tap.h"

#include <tlc/config.h>
#include <tlc/target.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static tlc_context *ctx;
static tlc_buf diags;

/* The diagnostics captured since the last call (returned as a static copy). */
static const char *take_diags(void)
{
	static char last[4096];
	snprintf(last, sizeof(last), "%s", tlc_buf_str(&diags));
	tlc_buf_free(&diags);
	return last;
}

static tlc_context *fresh_context(void)
{
	if (ctx)
		tlc_context_free(ctx);
	tlc_buf_free(&diags);
	ctx = tlc_context_new();
	tlc_diag_capture(ctx, &diags);
	tlc_diag_set_caret(ctx, false);
	return ctx;
}

/* ---- passes defined here ---- */

static int nruns;
static int run_count(tlc_module *m, tlc_func *f, const tlc_pass_options *o)
{
	(void)m, (void)f;
	nruns += (int)tlc_opt_int(o, "step", 1);
	return 0;
}
static int run_fail_silently(tlc_module *m, tlc_func *f, const tlc_pass_options *o)
{
	(void)m, (void)f, (void)o;
	return 1;
}
static int run_user_error(tlc_module *m, tlc_func *f, const tlc_pass_options *o)
{
	(void)o;
	tlc_error(tlc_module_context(m), f->loc, "kernel '%s' is not supported", f->name);
	return 1;
}
static int run_crash(tlc_module *m, tlc_func *f, const tlc_pass_options *o)
{
	(void)m, (void)f, (void)o;
	raise(SIGSEGV);
	return 0;
}
/* Leave a use of a variable that nothing binds: IR that must not verify. */
static int run_break_ir(tlc_module *m, tlc_func *f, const tlc_pass_options *o)
{
	(void)o;
	tlc_var *unbound = tlc_var_new(m, "ghost", TLC_DT_INT32);
	tlc_var *v = tlc_var_new(m, "x", TLC_DT_INT32);
	tlc_seq_append(m, f->body, tlc_let_new(m, f->loc, v, tlc_var_ref(m, unbound)));
	return 0;
}
static const tlc_pass_desc crash_pass = {.name = "crash", .run = run_crash};
static const tlc_pass_desc break_pass = {.name = "break-ir", .run = run_break_ir};
static const tlc_pass_desc count_pass = {.name = "count", .summary = "counts", .run = run_count};
static const tlc_pass_desc count2_pass = {.name = "count", .summary = "again", .run = run_count};
static const tlc_pass_desc silent_pass = {.name = "silent", .run = run_fail_silently};
static const tlc_pass_desc user_pass = {.name = "user", .run = run_user_error};
static const tlc_pass_desc noname_pass = {.name = "", .run = run_count};

static int emit_nothing(tlc_module *m, const tlc_pass_options *o, tlc_codegen_result *r)
{
	(void)m, (void)o, (void)r;
	return 0;
}
static const tlc_target_info fake_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 64, .max_threads = 1024, .smem_default = 65536,
	.smem_max = 65536, .max_regs = 512, .local_bytes_max = 65536, .regs_per_block = 131072, .global_vector_bytes = 16,
	.shared_vector_bytes = 16, .atomic_add_f32_vector = 1, .max_cluster = 1};
static const tlc_target_desc fake_target = {.name = "fake", .emit = emit_nothing, .info = &fake_info};
static const tlc_target_desc no_info_target = {.name = "no-info", .emit = emit_nothing};
static const tlc_target_info bad_lanes_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 48, .max_threads = 1024, .smem_max = 1, .max_regs = 1, .local_bytes_max = 1,
	.regs_per_block = 1, .global_vector_bytes = 4, .shared_vector_bytes = 4, .atomic_add_f32_vector = 1,
	.max_cluster = 1};
static const tlc_target_desc bad_lanes_target = {.name = "bad-lanes", .emit = emit_nothing, .info = &bad_lanes_info};
/* an accumulator atom whose digits cover its 16x8 tile twice */
static const tlc_frag_digit twice[] = {{8, 1, 1, true, 1}, {16, 0, 1, true, 8}, {2, 0, 1, false, 1}};
static const tlc_matrix_inst bad_mma[] = {{"bad.mma", 16, 8, 16, 8, TLC_DT_FLOAT16, TLC_DT_FLOAT16, TLC_DT_FLOAT32, 64,
                                           0, 0, {0}, {0}, {16, 8, 3, twice}, 0}};
static const tlc_target_info bad_mma_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 64, .max_threads = 1024, .smem_max = 1, .max_regs = 1, .local_bytes_max = 1,
	.regs_per_block = 1, .global_vector_bytes = 4, .shared_vector_bytes = 4, .atomic_add_f32_vector = 1,
	.max_cluster = 1, .nmatrix = 1, .matrix = bad_mma};
static const tlc_target_desc bad_mma_target = {.name = "bad-mma", .emit = emit_nothing, .info = &bad_mma_info};
/* an accumulator atom of 8x16 for a 16x8 instruction */
static const tlc_matrix_inst bad_shape_mma[] = {{"bad.shape", 16, 8, 16, 8, TLC_DT_FLOAT16, TLC_DT_FLOAT16,
                                                 TLC_DT_FLOAT32, 64, 0, 0, {0}, {0}, {8, 16, 3, twice}, 0}};
static const tlc_target_info bad_shape_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 64, .max_threads = 1024, .smem_max = 1, .max_regs = 1,
	.local_bytes_max = 1, .regs_per_block = 1, .global_vector_bytes = 4, .shared_vector_bytes = 4,
	.atomic_add_f32_vector = 1, .max_cluster = 1, .nmatrix = 1, .matrix = bad_shape_mma};
static const tlc_target_desc bad_shape_target = {.name = "bad-shape", .emit = emit_nothing, .info = &bad_shape_info};
/* TMA multicast fills a tile in every block of a cluster: without clusters it means nothing */
static const tlc_target_info lone_multicast_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 32, .max_threads = 1024, .smem_max = 1, .max_regs = 1,
	.local_bytes_max = 1, .regs_per_block = 1, .global_vector_bytes = 4, .shared_vector_bytes = 4,
	.atomic_add_f32_vector = 1, .max_cluster = 1, .async_copy = TLC_ASYNC_TMA | TLC_ASYNC_TMA_MULTICAST,
	.tma_box_max = 256};
static const tlc_target_desc lone_multicast_target = {.name = "lone-multicast", .emit = emit_nothing,
                                                      .info = &lone_multicast_info};

/* stmatrix's 8x8 tiles are stored by a warp of 32 lanes */
static const tlc_target_info wide_stmatrix_info = {
	.struct_size = sizeof(tlc_target_info), .lanes = 64, .max_threads = 1024, .smem_max = 1, .max_regs = 1,
	.local_bytes_max = 1, .regs_per_block = 1, .global_vector_bytes = 4, .shared_vector_bytes = 4,
	.atomic_add_f32_vector = 1, .max_cluster = 1, .stmatrix = true};
static const tlc_target_desc wide_stmatrix_target = {.name = "wide-stmatrix", .emit = emit_nothing,
                                                     .info = &wide_stmatrix_info};

static void test_registry(void)
{
	fresh_context();
	tlc_registry a = {ctx, "/p/a.so"}, b = {ctx, "/p/b.so"};
	is_int(tlc_register_pass(&a, &count_pass), 0, "register a pass");
	ok(tlc_find_pass(ctx, "count") == &count_pass, "find it by name");
	ok(tlc_pass_at(ctx, 0) == &count_pass && !tlc_pass_at(ctx, 1), "enumerate passes");
	ok(!tlc_find_pass(ctx, "nope"), "unknown pass is NULL");
	is_int(tlc_register_pass(&b, &count2_pass), -1, "a second pass with the same name fails");
	is_str(take_diags(),
	       "tlc: error: plugin '/p/b.so': pass 'count' is already registered by plugin 'tlc'\n",
	       "duplicate pass message names the file and the owner");
	ok(tlc_find_pass(ctx, "count") == &count_pass, "the first registration stays");
	is_int(tlc_register_pass(&a, &noname_pass), -1, "a pass without a name is refused");
	take_diags();
	is_int(tlc_register_target(&a, &fake_target), 0, "register a target");
	is_int(tlc_register_target(&b, &fake_target), -1, "duplicate target fails");
	ok(strstr(take_diags(), "target 'fake' is already registered") != NULL,
	   "duplicate target message");
	ok(tlc_find_target(ctx, "fake") == &fake_target && !tlc_target_at(ctx, 1), "find target");
	/* a target must describe its machine, and the description must make sense */
	is_int(tlc_register_target(&a, &no_info_target), -1, "a target without a description is refused");
	is_str(take_diags(), "tlc: error: plugin '/p/a.so': target 'no-info' has no machine description "
	       "(tlc_target_info)\n", "and the message names the plugin and the target");
	is_int(tlc_register_target(&a, &bad_lanes_target), -1, "48 lanes are refused");
	ok(strstr(take_diags(), "target 'bad-lanes' has a machine description with bad thread counts") != NULL,
	   "bad lanes message");
	/* building every fragment at every load costs more than a small compile
	 * (about 2.3M instructions for the cuda and hip tables): registration
	 * checks shapes only, tlc_target_info_verify (unit tests, --verify-each)
	 * the fragments, and a gemm planned on a bad one says why it cannot */
	is_int(tlc_register_target(&a, &bad_mma_target), 0, "a fragment's digits are not checked at registration");
	const char *bad = tlc_target_info_verify(ctx, &bad_mma_info);
	ok(bad && strstr(bad, "matrix instruction 'bad.mma' whose accumulator fragment is wrong"),
	   "tlc_target_info_verify finds it and names the fragment");
	ok(!tlc_target_info_verify(ctx, &fake_info), "a description without matrix instructions verifies");
	is_int(tlc_register_target(&a, &bad_shape_target), -1, "a fragment of the wrong shape is refused");
	ok(strstr(take_diags(), "target 'bad-shape' has a matrix instruction whose fragment's shape is not the "
	                        "instruction's") != NULL,
	   "bad shape message");
	is_int(tlc_register_target(&a, &lone_multicast_target), -1, "TMA multicast without clusters is refused");
	ok(strstr(take_diags(), "target 'lone-multicast' has a machine description with TMA multicast but without TMA or "
	                        "clusters (max_cluster >= 2)") != NULL,
	   "lone multicast message");
	is_int(tlc_register_target(&a, &wide_stmatrix_target), -1, "stmatrix on 64 lanes is refused");
	ok(strstr(take_diags(), "target 'wide-stmatrix' has a machine description with stmatrix but not 32 lanes") != NULL,
	   "stmatrix lanes message");
	ok(!tlc_find_target(ctx, "no-info") && !tlc_find_target(ctx, "bad-shape") && !tlc_find_target(ctx, "lone-multicast") &&
	       !tlc_find_target(ctx, "wide-stmatrix"),
	   "refused targets are not registered");
	tlc_op_id id = tlc_register_op(&a, "my_op", 1, 2, TLC_OPF_PURE);
	ok(id >= TLC_OP_BUILTIN_COUNT && tlc_op_lookup(ctx, "my_op") == id, "register a new op");
	is_int(tlc_register_op(&b, "my_op", 1, 2, 0), -1, "an op name is taken once");
	is_str(take_diags(), "tlc: error: plugin '/p/b.so': op 'T.my_op' is already defined\n",
	       "duplicate op message");
	ok(!tlc_plugin_at(ctx, 0, NULL), "no plugin loaded");
}

static void test_plugin_files(void)
{
	fresh_context();
	const char *dirs[] = {"/nonexistent/x"};
	is_int(tlc_plugin_load(ctx, "no-such-plugin", 1, dirs), -1, "unknown plugin name fails");
	const char *d = take_diags();
	ok(strncmp(d, "tlc: error: plugin 'no-such-plugin' not found (looked for no-such-plugin.so "
	              "in: /nonexistent/x, ", 84) == 0 && !strchr(d, '\n')[1],
	   "not found: one line listing the dirs, --plugin-path first");
	is_int(tlc_plugin_load(ctx, "/nonexistent/y.so", 0, NULL), -1, "a missing path fails");
	d = take_diags();
	ok(strncmp(d, "tlc: error: plugin '/nonexistent/y.so': cannot load: ", 53) == 0,
	   "cannot load message");
	/* the real simplify plugin, found through TLC_PLUGIN_PATH (make check sets it) */
	if (getenv("TLC_PLUGIN_PATH")) {
		is_int(tlc_plugin_load(ctx, "simplify", 0, NULL), 0, "load simplify by name");
		const char *path = NULL;
		const tlc_plugin_desc *p = tlc_plugin_at(ctx, 0, &path);
		ok(p && strcmp(p->name, "simplify") == 0 && strstr(path, "/simplify.so"),
		   "simplify is the loaded plugin");
		ok(tlc_find_pass(ctx, "simplify") != NULL, "it registered the simplify pass");
		is_str(tlc_pass_plugin_at(ctx, 0), "simplify", "the pass's owner is recorded");
		is_int(tlc_plugin_load(ctx, path, 0, NULL), 0, "the same file again is a no-op");
		ok(!tlc_plugin_at(ctx, 1, NULL), "still one plugin");
	}
}

static void test_search_path(void)
{
	setenv("TLC_PLUGIN_PATH", "/env/a::/env/b/", 1);
	const char *dirs[] = {"/cli/1", "/cli/2/", "/env/a"};
	tlc_buf out;
	tlc_buf_init(&out);
	tlc_plugin_search_path(&out, 3, dirs);
	const char *s = tlc_buf_str(&out);
	ok(strncmp(s, "/cli/1\n/cli/2\n/env/a\n/env/b\n", 28) == 0,
	   "--plugin-path dirs, then TLC_PLUGIN_PATH, duplicates and empty elements dropped");
	size_t len = strlen(s), pl = strlen(TLC_PLUGINDIR);
	ok(len > pl + 1 && strcmp(s + len - pl - 1, TLC_PLUGINDIR "\n") == 0,
	   "the compiled-in plugin dir comes last");
	ok(strstr(s, "/tlc/plugins\n") != NULL, "a dir beside libtlc is listed");
	tlc_buf_free(&out);
}

static const char good_ini[] =
	"; a comment\n"
	"[tlc]\n"
	"default_target = fake\n"
	"[plugins]\n"
	"load = a\n"
	"load = b\n"
	"[pipeline.fake]\n"
	"pass = count\n"
	"pass = count\n"
	"[pass.count]\n"
	"step = 10\n"
	"flag = yes\n";

static void test_config(void)
{
	fresh_context();
	tlc_registry r = {ctx, NULL};
	tlc_register_pass(&r, &count_pass);
	tlc_register_target(&r, &fake_target);
	tlc_config *cfg = tlc_config_new();
	is_int(tlc_config_load_string(ctx, cfg, "good.ini", good_ini), 0, "a good INI loads");
	is_str(take_diags(), "", "without messages");
	is_str(tlc_config_plugin_at(cfg, 0), "a", "first plugin");
	is_str(tlc_config_plugin_at(cfg, 1), "b", "second plugin");
	ok(!tlc_config_plugin_at(cfg, 2), "two plugins");
	is_str(tlc_config_default_target(cfg), "fake", "default target");
	const char *const *names;
	is_int(tlc_config_pipeline(cfg, "fake", &names), 2, "pipeline has two passes");
	is_str(names[1], "count", "in order");
	is_int(tlc_config_pipeline(cfg, "other", &names), -1, "no pipeline for another target");
	const tlc_pass_options *o = tlc_config_options(cfg, "count");
	is_int(tlc_opt_int(o, "step", 1), 10, "int option");
	ok(tlc_opt_bool(o, "flag", false), "bool option 'yes'");
	is_str(tlc_opt_str(o, "missing", "dflt"), "dflt", "default for a missing option");
	is_int(tlc_opt_int(tlc_config_options(cfg, "nobody"), "step", 7), 7, "empty options");
	is_int(tlc_config_set_pass_arg(ctx, cfg, "count.step=3"), 0, "--pass-arg");
	is_int(tlc_opt_int(o, "step", 1), 3, "--pass-arg overrides the INI");
	is_int(tlc_config_set_pass_arg(ctx, cfg, "count.flag=off"), 0, "--pass-arg bool");
	ok(!tlc_opt_bool(o, "flag", true), "bool option 'off'");
	is_int(tlc_config_set_pass_arg(ctx, cfg, "countstep=3"), -1, "--pass-arg without a dot");
	is_str(take_diags(), "tlc: error: --pass-arg expects PASS.KEY=VALUE, not 'countstep=3'\n",
	       "malformed --pass-arg message");
	is_int(tlc_config_set_pass_arg(ctx, cfg, "count.step"), -1, "--pass-arg without '='");
	take_diags();
	is_int(tlc_config_check(ctx, cfg), 0, "every name is registered");
	is_int(tlc_config_set_pass_arg(ctx, cfg, "ghost.k=1"), 0, "--pass-arg for an unknown pass");
	is_int(tlc_config_check(ctx, cfg), -1, "is caught by the check");
	is_str(take_diags(), "tlc: error: --pass-arg: no pass or target named 'ghost'\n",
	       "unknown --pass-arg name message");
	tlc_config_free(cfg);
}

/* Load `text` and return the first line of the diagnostics. */
static const char *config_error(const char *text, bool check)
{
	fresh_context();
	tlc_registry r = {ctx, NULL};
	tlc_register_pass(&r, &count_pass);
	tlc_config *cfg = tlc_config_new();
	int rc = tlc_config_load_string(ctx, cfg, "t.ini", text);
	if (check && rc == 0)
		rc = tlc_config_check(ctx, cfg);
	tlc_config_free(cfg);
	static char line[512];
	snprintf(line, sizeof(line), "%s", take_diags());
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	return rc ? line : "(no error)";
}

static void test_config_errors(void)
{
	is_str(config_error("[plugins]\nload = a\n[bogus]\n", false),
	       "t.ini:3:2: error: unknown section [bogus] (expected [tlc], [plugins], "
	       "[pipeline.TARGET], [pass.NAME] or [target.NAME])",
	       "unknown section, even an empty one");
	is_str(config_error("[plugins]\n\nlod = a\n", false),
	       "t.ini:3:1: error: unknown key 'lod' in [plugins] (expected 'load')", "unknown key");
	is_str(config_error("[pipeline.x]\npass = count\npasses = count\n", false),
	       "t.ini:3:1: error: unknown key 'passes' in [pipeline.x] (expected 'pass')",
	       "unknown key in a pipeline");
	is_str(config_error("load = a\n", false), "t.ini:1:1: error: key 'load' outside of any section",
	       "key before any section");
	is_str(config_error("[plugins]\nload a\n", false), "t.ini:2:1: error: expected 'key = value'",
	       "line without '='");
	is_str(config_error("[plugins\n", false),
	       "t.ini:1:1: error: expected ']' to close the section name", "unclosed section");
	is_str(config_error("[pipeline.x]\npass = count\n  pass = count\n", false),
	       "t.ini:3:3: error: indented 'key = value' line (do not indent keys)",
	       "indented key (inih would take it as a continuation)");
	char long_line[400];
	snprintf(long_line, sizeof(long_line), "[pass.count]\nk = %0300d\n", 0);
	is_str(config_error(long_line, false), "t.ini:2:1: error: line longer than 198 characters",
	       "overlong line");
	is_str(config_error("[pipeline.x]\npass = count\npass   = nope\n", true),
	       "t.ini:3:10: error: unknown pass 'nope' in [pipeline.x]",
	       "unknown pass: file:line:col of the name");
	is_str(config_error("\n[pass.nope]\nk = 1\n", true), "t.ini:2:7: error: unknown pass 'nope'",
	       "options section of an unknown pass");
	is_str(config_error("[tlc]\ndefault_target = nowhere\n", true),
	       "t.ini:2:18: error: unknown target 'nowhere'", "unknown default target");
	is_str(config_error("[tlc]\ndefault_target = \n[pipeline.x]\npass =\n", false),
	       "t.ini:4:1: error: 'pass' needs a value", "empty pass name");
}

static void test_config_files(void)
{
	fresh_context();
	tlc_config *cfg = tlc_config_new();
	is_int(tlc_config_load(ctx, cfg, "/nonexistent/tlc.ini"), -1, "missing file fails");
	is_str(take_diags(),
	       "tlc: error: cannot read config file '/nonexistent/tlc.ini': No such file or directory\n",
	       "missing config file message");
	tlc_config_free(cfg);
	setenv("TLC_CONFIG", "/some/where.ini", 1);
	char *p = tlc_config_default_path();
	is_str(p, "/some/where.ini", "TLC_CONFIG wins");
	free(p);
}

/* Issue 12: damaged plugin files, INI files of any size. */
static void test_hardening(void)
{
	fresh_context();
	char dir[] = "/tmp/tlc-test-plugin.XXXXXX", path[64];
	ok(mkdtemp(dir) != NULL, "a temporary folder");
	snprintf(path, sizeof(path), "%s/bad.so", dir);
	FILE *f = fopen(path, "w");
	fputs("not an ELF file\n", f);
	fclose(f);
	is_int(tlc_plugin_load_file(ctx, path), -1, "a text file is refused");
	char want[256];
	snprintf(want, sizeof(want), "tlc: error: plugin '%s': not a loadable shared object: "
	                             "no ELF magic number at the start (not an ELF file)\n", path);
	is_str(take_diags(), want, "before dlopen, in one line naming the file");
	/* the real simplify plugin, found through TLC_PLUGIN_PATH (make check
	 * sets it; test_search_path changes it, so this test runs before) */
	const char *plugins = getenv("TLC_PLUGIN_PATH");
	char real[512];
	snprintf(real, sizeof(real), "%s/simplify.so", plugins ? plugins : ".");
	FILE *in = fopen(real, "rb");
	if (!in)
		diag("no %s: the truncated-plugin tests are skipped", real);
	if (in) {
		/* the first 4 KiB: the headers without the segments they describe */
		char head[4096];
		size_t n = fread(head, 1, sizeof(head), in);
		fclose(in);
		f = fopen(path, "wb");
		fwrite(head, 1, n, f);
		fclose(f);
		is_int(tlc_plugin_load_file(ctx, path), -1, "a truncated plugin is refused");
		const char *d = take_diags();
		snprintf(want, sizeof(want), "tlc: error: plugin '%s': not a loadable shared object: "
		                             "segment ", path);
		ok(strncmp(d, want, strlen(want)) == 0 && strstr(d, "past the end of the file (4096 "
		                                                    "bytes)\n") &&
		       strchr(d, '\n')[1] == '\0',
		   "naming the segment cut off");
		ok(!tlc_plugin_at(ctx, 0, NULL), "nothing was loaded");
	}
	remove(path);
	rmdir(dir);

	/* 3000 keys and a repeated one: each found, the last value wins */
	tlc_buf ini;
	tlc_buf_init(&ini);
	tlc_buf_puts(&ini, "[pass.count]\n");
	for (int i = 0; i < 3000; i++)
		tlc_buf_printf(&ini, "k%d = %d\n", i, i);
	tlc_buf_puts(&ini, "k7 = last\n");
	tlc_config *cfg = tlc_config_new();
	is_int(tlc_config_load_string(ctx, cfg, "many.ini", tlc_buf_str(&ini)), 0, "3000 keys load");
	const tlc_pass_options *o = tlc_config_options(cfg, "count");
	is_str(tlc_opt_str(o, "k7", NULL), "last", "a repeated key takes its last value");
	is_int(tlc_opt_int(o, "k2999", -1), 2999, "the last key is found");
	is_int(tlc_opt_int(o, "k0", -1), 0, "the first key is found");
	ok(!tlc_opt_str(o, "k3000", NULL), "a missing key is missing");
	tlc_config_free(cfg);

	/* 150 errors: the first 100 are shown, the others counted */
	ini.len = 0;
	tlc_buf_puts(&ini, "[tlc]\n");
	for (int i = 0; i < 150; i++)
		tlc_buf_puts(&ini, "no separator\n");
	fresh_context();
	cfg = tlc_config_new();
	is_int(tlc_config_load_string(ctx, cfg, "bad.ini", tlc_buf_str(&ini)), -1, "150 bad lines");
	int errors = 0;
	for (const char *d = tlc_buf_str(&diags); (d = strstr(d, ": error: ")); d++)
		errors++;
	is_int(errors, 100, "100 errors shown");
	ok(strstr(tlc_buf_str(&diags), "\nbad.ini: note: 50 more errors not shown\n") != NULL,
	   "and a note counting the others");
	take_diags();
	tlc_config_free(cfg);
	tlc_buf_free(&ini);
}

/* A module with `n` empty kernels. */
static tlc_module *make_module(int n)
{
	tlc_module *m = tlc_module_new(ctx);
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "k%d", i);
		tlc_func *f = tlc_func_new(m, name, (tlc_loc){0, 0, 0});
		f->grid_ndim = 1;
		f->grid[0] = tlc_i32(m, 1);
		f->thread_ndim = 1;
		f->threads[0] = tlc_i32(m, 128);
		f->body = tlc_seq_new(m, (tlc_loc){0, 0, 0});
		tlc_module_add_func(m, f);
	}
	return m;
}

static void test_pass_manager(void)
{
	fresh_context();
	tlc_registry r = {ctx, NULL};
	tlc_register_pass(&r, &count_pass);
	tlc_register_pass(&r, &silent_pass);
	tlc_register_pass(&r, &user_pass);
	tlc_module *m = make_module(3);
	const char *two[] = {"count", "count"};
	tlc_pipeline_opts po = {.npasses = 2, .passes = two};
	nruns = 0;
	is_int(tlc_run_passes(m, &po), 0, "a pipeline of two passes runs");
	is_int(nruns, 6, "each pass ran once per function");
	tlc_config *cfg = tlc_config_new();
	tlc_config_set_pass_arg(ctx, cfg, "count.step=5");
	po.config = cfg;
	nruns = 0;
	tlc_run_passes(m, &po);
	is_int(nruns, 30, "passes see their options");
	tlc_config_free(cfg);

	const char *bad[] = {"count", "silent", "count"};
	po = (tlc_pipeline_opts){.npasses = 3, .passes = bad};
	nruns = 0;
	is_int(tlc_run_passes(m, &po), -1, "a failing pass fails the pipeline");
	is_int(nruns, 3, "and stops it");
	ok(tlc_had_internal_error(ctx), "failing without a message is an internal error");
	ok(strstr(take_diags(), "internal error in pass 'silent': the pass failed on function 'k0'"),
	   "the internal error names the pass and the function");

	fresh_context();
	tlc_register_pass(&(tlc_registry){ctx, NULL}, &user_pass);
	tlc_module_free(m);
	m = make_module(2);
	const char *user[] = {"user"};
	po = (tlc_pipeline_opts){.npasses = 1, .passes = user};
	is_int(tlc_run_passes(m, &po), -1, "a user error fails the pipeline");
	ok(!tlc_had_internal_error(ctx), "a reported error is not an internal error");
	is_int(tlc_error_count(ctx), 1, "the pass stopped at the first function");
	take_diags();

	const char *unknown[] = {"user", "nope"};
	po = (tlc_pipeline_opts){.npasses = 2, .passes = unknown};
	is_int(tlc_run_passes(m, &po), -1, "an unknown pass fails before anything runs");
	is_str(take_diags(), "tlc: error: unknown pass 'nope' in the pipeline (see tlc --list-passes)\n",
	       "unknown pass message");
	const char *after[] = {"nope2"};
	po = (tlc_pipeline_opts){.nprint_after = 1, .print_after = after};
	is_int(tlc_pipeline_check(ctx, &po), -1, "--print-after names are checked too");
	take_diags();
	tlc_module_free(m);
}

/* Run a pipeline with stderr redirected to a file; returns what was written. */
static char *run_capturing_stderr(tlc_module *m, const tlc_pipeline_opts *po, int *rc)
{
	char path[] = "/tmp/test_plugin_XXXXXX";
	int fd = mkstemp(path);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	*rc = tlc_run_passes(m, po);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(path, "rb");
	char *text = calloc(1, 1 << 16);
	size_t n = fread(text, 1, (1 << 16) - 1, f);
	text[n] = '\0';
	fclose(f);
	close(fd);
	unlink(path);
	return text;
}

static void test_dumps(void)
{
	fresh_context();
	tlc_registry r = {ctx, NULL};
	tlc_register_pass(&r, &count_pass);
	tlc_module *m = make_module(1);
	const char *one[] = {"count"};
	tlc_pipeline_opts po = {.npasses = 1, .passes = one, .print_before_all = true,
	                        .print_after = one, .nprint_after = 1, .time_passes = true};
	int rc;
	char *err = run_capturing_stderr(m, &po, &rc);
	is_int(rc, 0, "pipeline with dumps runs");
	const char *before = strstr(err, "# *** IR Dump Before count ***\n");
	const char *after = strstr(err, "# *** IR Dump After count ***\n");
	ok(before && after && before < after, "banners before and after, in order");
	ok(after && strstr(after, "def k0"), "the dump after holds the kernel");
	ok(strstr(err, "tlc: pass timing") && strstr(err, "%  count\n"), "--time-passes table");
	if (!before || !after)
		tap_diag_text("stderr", err);
	free(err);
	tlc_module_free(m);
}

/* SIGSEGV's handler when the test started (SIG_DFL, or the sanitizer's under
 * ASan): every pipeline run in this process must leave it as it was. */
static struct sigaction segv_at_start;

/* The crash handler: the child runs a crashing pass; its exit code and stderr. */
static void test_crash(void)
{
	fresh_context();
	tlc_register_pass(&(tlc_registry){ctx, NULL}, &crash_pass);
	tlc_module *m = make_module(1);
	int fds[2];
	if (pipe(fds) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		const char *names[] = {"crash"};
		tlc_pipeline_opts po = {.npasses = 1, .passes = names};
		tlc_run_passes(m, &po);
		_exit(0);
	}
	close(fds[1]);
	char buf[1024] = {0};
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(buf) - 1 && (r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 70, "a crash in a pass exits with 70");
	ok(strncmp(buf, "tlc: internal error: crash in pass 'crash' (signal 11)\n", 55) == 0,
	   "the crash message names the pass and the signal");
	ok(strstr(buf, "function 'k0'") && strstr(buf, "please report"),
	   "and the function, and asks for a report");
	struct sigaction sa;
	sigaction(SIGSEGV, NULL, &sa);
	ok(sa.sa_handler == segv_at_start.sa_handler, "the parent's handlers are untouched");
	tlc_module_free(m);
}

static void test_verify_each(void)
{
	fresh_context();
	tlc_registry r = {ctx, NULL};
	tlc_register_pass(&r, &count_pass);
	tlc_register_pass(&r, &break_pass);
	tlc_module *m = make_module(1);
	const char *names[] = {"count", "break-ir", "count"};
	tlc_pipeline_opts po = {.npasses = 3, .passes = names, .verify_each = true};
	nruns = 0;
	is_int(tlc_run_passes(m, &po), -1, "--verify-each catches IR broken by a pass");
	is_int(nruns, 1, "and stops the pipeline there");
	ok(tlc_had_internal_error(ctx), "as an internal error");
	const char *d = take_diags();
	ok(strstr(d, "internal error in pass 'break-ir': the IR does not verify after this pass") != NULL,
	   "naming the pass");
	if (!strstr(d, "break-ir"))
		tap_diag_text("diagnostics", d);
	tlc_module_free(m);
}

int main(void)
{
	sigaction(SIGSEGV, NULL, &segv_at_start);
	test_registry();
	test_plugin_files();
	test_hardening();
	test_search_path();
	test_config();
	test_config_errors();
	test_config_files();
	test_pass_manager();
	test_dumps();
	test_crash();
	test_verify_each();
	tlc_context_free(ctx);
	tlc_buf_free(&diags);
	return done_testing();
}
