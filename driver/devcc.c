/* devcc.c - tlc --emit=ptx|cubin|hsaco|so: the generated source goes to a
 * temporary directory and the target's device compiler (nvcc for CUDA
 * targets, hipcc for HIP targets) turns it into the output.  The compiler's
 * own messages reach stderr unchanged; tlc adds one line saying what failed.
 *
 * The compiler is looked for in this order: --nvcc=PATH / --hipcc=PATH;
 * $NVCC / $HIPCC (the compiler's name in capitals); the path configure found
 * (TLC_NVCC, TLC_HIPCC); PATH. */
#include "config.h"

#include "devcc.h"

#include <tlc/diag.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TLC_NVCC
#define TLC_NVCC ""
#endif
#ifndef TLC_HIPCC
#define TLC_HIPCC ""
#endif

/* What each device compiler is asked for each output kind: the flags
 * before the target's arch flags.  A kind a compiler lacks is refused. */
typedef struct devcc_kind {
	const char *compiler, *kind;
	const char *flags[4];
} devcc_kind;

static const devcc_kind kinds[] = {
	{"nvcc", "ptx", {"-ptx"}},
	{"nvcc", "cubin", {"-cubin"}},
	{"nvcc", "so", {"-shared", "-Xcompiler", "-fPIC"}},
	/* a code object for hipModuleLoad (an offload bundle, which it reads) */
	{"hipcc", "hsaco", {"--genco"}},
	{"hipcc", "so", {"-shared", "-fPIC"}},
};

static const devcc_kind *find_kind(const char *compiler, const char *kind)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(kinds[i].compiler, compiler) && !strcmp(kinds[i].kind, kind))
			return &kinds[i];
	return NULL;
}

/* The configure-time path of a compiler ("" when configure found none). */
static const char *configured(const char *compiler)
{
	return !strcmp(compiler, "nvcc") ? TLC_NVCC : !strcmp(compiler, "hipcc") ? TLC_HIPCC : "";
}

#define MAX_ARGS 64

bool devcc_is_binary_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(kinds[i].kind, kind))
			return true;
	return false;
}

/* ---- finding the compiler ---- */

static bool is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first executable `name` in $PATH, malloc'd; NULL if none. */
static char *search_path(const char *name)
{
	const char *dirs = getenv("PATH");
	while (dirs && *dirs) {
		const char *colon = strchr(dirs, ':');
		size_t len = colon ? (size_t)(colon - dirs) : strlen(dirs);
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)(len ? len : 1), len ? dirs : ".", name) <
		        (int)sizeof(path) &&
		    is_executable(path))
			return strdup(path);
		dirs = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* A user-given compiler: a path, or a bare name searched in PATH. */
static char *resolve_given(const char *given)
{
	if (strchr(given, '/'))
		return is_executable(given) ? strdup(given) : NULL;
	return search_path(given);
}

/* "nvcc" -> "NVCC", the environment variable that names it. */
static void env_name(const char *compiler, char *out, size_t size)
{
	size_t i = 0;
	for (; compiler[i] && i + 1 < size; i++)
		out[i] = isalnum((unsigned char)compiler[i]) ? (char)toupper((unsigned char)compiler[i]) : '_';
	out[i] = '\0';
}

/* The compiler's path (malloc'd), or NULL after a one-line error. */
static char *find_compiler(const tlc_target_desc *t, const devcc_opts *o)
{
	const char *cc = t->compiler;
	char env[64];
	env_name(cc, env, sizeof(env));
	char *path = NULL;
	if (o->compiler) {
		if (!(path = resolve_given(o->compiler)))
			fprintf(stderr, "tlc: error: --%s=%s: no such executable; give the path of %s with --%s=PATH\n", cc,
			        o->compiler, cc, cc);
		return path;
	}
	const char *from_env = getenv(env);
	if (from_env && *from_env) {
		if (!(path = resolve_given(from_env)))
			fprintf(stderr, "tlc: error: %s=%s: no such executable; fix %s or give --%s=PATH\n", env, from_env,
			        env, cc);
		return path;
	}
	const char *conf = configured(cc);
	if (conf[0] && is_executable(conf))
		return strdup(conf);
	if (!(path = search_path(cc)))
		fprintf(stderr, "tlc: error: %s not found (looked at $%s%s%s and PATH); "
		                "give --%s=PATH or set %s to point tlc at it\n",
		        cc, env, conf[0] ? ", " : "", conf, cc, env);
	return path;
}

/* ---- the temporary directory ---- */

static char *make_temp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tlc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path)) {
		fprintf(stderr, "tlc: error: cannot create a temporary directory in %s: %s\n",
		        tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return NULL;
	}
	return strdup(path);
}

/* Remove dir and the plain files in it (all that tlc and nvcc put there). */
static void remove_temp_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	while (d && (ent = readdir(d))) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name) < (int)sizeof(path))
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "tlc: error: cannot write '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* Copy file `from` to `to` ("-": stdout).  A rename would keep nvcc's file
 * mode but fails across file systems; copying works everywhere. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	if (!in) {
		fprintf(stderr, "tlc: error: the compiler wrote no '%s': %s\n", from, strerror(errno));
		return -1;
	}
	bool is_stdout = strcmp(to, "-") == 0;
	FILE *out = is_stdout ? stdout : fopen(to, "wb");
	if (!out) {
		fprintf(stderr, "tlc: error: cannot write '%s': %s\n", to, strerror(errno));
		fclose(in);
		return -1;
	}
	char buf[1 << 16];
	size_t n;
	bool bad = false;
	while (!bad && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		bad = fwrite(buf, 1, n, out) != n;
	bad |= ferror(in) != 0;
	fclose(in);
	bad |= is_stdout ? fflush(out) != 0 : fclose(out) != 0;
	if (bad) {
		fprintf(stderr, "tlc: error: cannot write '%s': %s\n", is_stdout ? "<stdout>" : to, strerror(errno));
		if (!is_stdout)
			unlink(to);
		return -1;
	}
	return 0;
}

/* ---- running the compiler ---- */

static void print_command(const char *const *argv)
{
	fputs("tlc: running:", stderr);
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

/* Run argv with its stdout sent to our stderr (stdout may carry -o - output).
 * Returns the exit status, or -1 after reporting why it did not run. */
static int run_command(const char *const *argv)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tlc: error: cannot run %s: %s\n", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "tlc: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "tlc: error: waiting for %s: %s\n", argv[0], strerror(errno));
			return -1;
		}
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "tlc: error: %s was killed by signal %d\n", argv[0], WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

/* The compiler's argv for kind; false when it does not fit MAX_ARGS. */
static bool build_argv(const char **argv, const tlc_target_desc *t, const devcc_opts *o, const char *kind,
                       const char *cc, const char *src, const char *out)
{
	int n = 0;
	argv[n++] = cc;
	const devcc_kind *k = find_kind(t->compiler, kind);
	for (int i = 0; k && i < 4 && k->flags[i]; i++)
		argv[n++] = k->flags[i];
	const char *const *flags = strcmp(kind, "ptx") == 0 && t->asm_flags ? t->asm_flags : t->arch_flags;
	for (int i = 0; flags && flags[i]; i++) {
		if (n >= MAX_ARGS - 8)
			return false;
		argv[n++] = flags[i];
	}
	argv[n++] = "-O3";
	for (int i = 0; i < o->nextra; i++) {
		if (n >= MAX_ARGS - 4)
			return false;
		argv[n++] = o->extra[i];
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	argv[n] = NULL;
	return true;
}

static int compile_in(const char *dir, const tlc_target_desc *t, const devcc_opts *o, const char *kind,
                      const char *stem, const char *source, const char *output, const char *cc)
{
	char src[PATH_MAX], out[PATH_MAX];
	if (snprintf(src, sizeof(src), "%s/%s.%s", dir, stem, t->source_ext ? t->source_ext : "cu") >=
	        (int)sizeof(src) ||
	    snprintf(out, sizeof(out), "%s/%s.%s", dir, stem, kind) >= (int)sizeof(out)) {
		fprintf(stderr, "tlc: error: temporary path too long\n");
		return TLC_EXIT_ERROR;
	}
	if (write_file(src, source))
		return TLC_EXIT_ERROR;
	const char *argv[MAX_ARGS + 1];
	if (!build_argv(argv, t, o, kind, cc, src, out)) {
		fprintf(stderr, "tlc: error: too many -X%s arguments (at most %d)\n", t->compiler, MAX_ARGS - 16);
		return TLC_EXIT_USAGE;
	}
	if (o->verbose)
		print_command(argv);
	int status = run_command(argv);
	if (status != 0) {
		if (status > 0)
			fprintf(stderr, "tlc: error: %s failed with exit status %d (-v shows the command, "
			                "--keep-temps keeps its input)\n", cc, status);
		return TLC_EXIT_ERROR;
	}
	return copy_file(out, output) ? TLC_EXIT_ERROR : TLC_EXIT_OK;
}

int devcc_build(const tlc_target_desc *t, const devcc_opts *o, const char *kind, const char *stem,
                const char *source, const char *output)
{
	if (!t->compiler || !t->arch_flags) {
		fprintf(stderr, "tlc: error: target '%s' has no device compiler: --emit=%s is not available for it\n",
		        t->name, kind);
		return TLC_EXIT_ERROR;
	}
	if (!find_kind(t->compiler, kind)) {
		char list[64] = "";
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (!strcmp(kinds[i].compiler, t->compiler))
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
				         kinds[i].kind);
		fprintf(stderr, "tlc: error: --emit=%s is not available for target '%s', which compiles with %s (it "
		                "makes %s)\n",
		        kind, t->name, t->compiler, list);
		return TLC_EXIT_USAGE;
	}
	char *cc = find_compiler(t, o);
	if (!cc)
		return TLC_EXIT_ERROR;
	char *dir = make_temp_dir();
	int rc = TLC_EXIT_ERROR;
	if (dir) {
		rc = compile_in(dir, t, o, kind, stem, source, output, cc);
		if (o->keep_temps)
			fprintf(stderr, "tlc: note: temporary files kept in %s\n", dir);
		else
			remove_temp_dir(dir);
	}
	free(dir);
	free(cc);
	return rc;
}
