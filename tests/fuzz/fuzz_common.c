/* fuzz_common.c - the compile session the harnesses share (fuzz_common.h). */
#include "fuzz_common.h"

#include <tlc/plugin.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TLC_FUZZ_PLUGIN_DIR
#error "build with -DTLC_FUZZ_PLUGIN_DIR=... (tests/fuzz/build.sh does)"
#endif
#ifndef TLC_FUZZ_CONFIG
#error "build with -DTLC_FUZZ_CONFIG=... (tests/fuzz/build.sh does)"
#endif

/* The pass manager installs its own SIGSEGV handler, which prints the pass
 * and _exit()s: libFuzzer would lose the input.  ASan keeps its handler (and
 * reports the crash with a stack) when user handlers are not allowed. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allow_user_segv_handler=0:handle_abort=1:handle_sigill=1:handle_sigfpe=1";
}

static const char *plugin_dir;
static char *default_config;

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *text = malloc(cap);
	size_t n;
	while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			text = realloc(text, cap *= 2);
	}
	fclose(f);
	if (text)
		text[len] = '\0';
	return text;
}

/* libFuzzer keeps the coverage counters of every loaded object and clears
 * them before each input: a plugin that a context unloads (dlclose) would
 * leave it clearing unmapped memory.  Opened once with RTLD_NODELETE, the
 * plugins stay mapped for the life of the process. */
static void pin_plugins(void)
{
	DIR *d = opendir(plugin_dir);
	if (!d) {
		fprintf(stderr, "fuzz: no plugin folder '%s' (make fuzz-build)\n", plugin_dir);
		exit(2);
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 3, ".so") != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", plugin_dir, e->d_name);
		if (!dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
			fprintf(stderr, "fuzz: %s\n", dlerror());
			exit(2);
		}
	}
	closedir(d);
}

void fuzz_init(void)
{
	const char *dir = getenv("TLC_FUZZ_PLUGIN_DIR");
	const char *config = getenv("TLC_FUZZ_CONFIG");
	plugin_dir = dir && *dir ? dir : TLC_FUZZ_PLUGIN_DIR;
	config = config && *config ? config : TLC_FUZZ_CONFIG;
	/* only the instrumented plugins: never the ones of the normal build */
	unsetenv("TLC_PLUGIN_PATH");
	pin_plugins();
	default_config = read_file(config);
	if (!default_config) {
		fprintf(stderr, "fuzz: cannot read the configuration '%s'\n", config);
		exit(2);
	}
	fuzz_session s;
	if (fuzz_session_open(&s, config, default_config) != 0) {
		fprintf(stderr, "%sfuzz: the configuration '%s' does not load with the plugins in '%s' "
		                "(make fuzz-build builds them)\n",
		        tlc_buf_str(&s.diags), config, plugin_dir);
		exit(2);
	}
	fuzz_session_close(&s);
}

const char *fuzz_default_config(void)
{
	return default_config;
}

/* A plugin built for fuzzing: a plain name with a file in the plugin folder.
 * Other names are not searched for: a fuzzed INI must not dlopen whatever
 * shared object of the system it can spell. */
static bool fuzz_plugin(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.so", plugin_dir, name);
	return access(path, R_OK) == 0;
}

int fuzz_session_open(fuzz_session *s, const char *config_name, const char *config_text)
{
	s->ctx = tlc_context_new();
	s->cfg = tlc_config_new();
	tlc_buf_init(&s->diags);
	tlc_diag_capture(s->ctx, &s->diags);
	if (tlc_config_load_string(s->ctx, s->cfg, config_name, config_text) != 0)
		return -1;
	const char *name;
	int rc = 0;
	for (int i = 0; (name = tlc_config_plugin_at(s->cfg, i)); i++)
		if (fuzz_plugin(name))
			rc |= tlc_plugin_load(s->ctx, name, 1, &plugin_dir);
	if (tlc_had_internal_error(s->ctx))
		fuzz_bug(s, "internal error while loading the plugins", config_text,
		         strlen(config_text));
	return rc || tlc_config_check(s->ctx, s->cfg) ? -1 : 0;
}

void fuzz_session_close(fuzz_session *s)
{
	tlc_config_free(s->cfg);
	tlc_context_free(s->ctx);
	tlc_buf_free(&s->diags);
}

void fuzz_bug(const fuzz_session *s, const char *why, const char *input, size_t len)
{
	fprintf(stderr, "---- diagnostics ----\n%s", s ? tlc_buf_str(&s->diags) : "");
	fprintf(stderr, "---- input (%zu bytes) ----\n%.*s\n", len, (int)(len < 4096 ? len : 4096),
	        input);
	fprintf(stderr, "fuzz: %s\n", why);
	abort();
}

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

static void check_internal(const fuzz_session *s, const char *step, const char *input,
                           size_t len)
{
	if (tlc_had_internal_error(s->ctx))
		fuzz_bug(s, step, input, len);
}

int fuzz_pipeline_and_emit(fuzz_session *s, tlc_module *m, const char *target_name, bool strict,
                           const char *input, size_t len)
{
	const tlc_target_desc *t = tlc_find_target(s->ctx, target_name);
	if (!t)
		return 1;
	const char *section = t->pipeline ? t->pipeline : t->name;
	if (strncmp(section, "pipeline.", 9) == 0)
		section += 9;
	const char *const *names = NULL;
	int n = tlc_config_pipeline(s->cfg, section, &names);
	if (n < 0)
		return 1;
	tlc_pipeline_opts po = {
		.target = t, .npasses = n, .passes = names, .config = s->cfg, .verify_each = strict,
	};
	if (tlc_pipeline_check(s->ctx, &po) != 0)
		return 1;
	if (!tlc_verify_module(s->ctx, m, NULL)) {
		check_internal(s, "internal error in the verifier", input, len);
		return 1;
	}
	if (tlc_run_passes(m, &po) != 0) {
		check_internal(s, "internal error in a pass (or IR that does not verify after it)",
		               input, len);
		return 1;
	}
	if (!tlc_verify_barriers(s->ctx, m, n ? names[n - 1] : NULL)) {
		check_internal(s, "internal error in the barrier check", input, len);
		/* sync-insert succeeded but left a conflict without a barrier */
		if (strict && n && strcmp(names[n - 1], "sync-insert") == 0)
			fuzz_bug(s, "the barrier check fails after sync-insert", input, len);
		return 1;
	}
	tlc_codegen_result res;
	tlc_buf_init(&res.source);
	tlc_buf_init(&res.header);
	int rc = t->emit(m, tlc_config_options(s->cfg, t->name), &res) != 0 ||
	         tlc_error_count(s->ctx) > 0;
	check_internal(s, "internal error in the target", input, len);
	tlc_buf_free(&res.source);
	tlc_buf_free(&res.header);
	return rc;
}
