/* passmgr.c - runs a pipeline of passes over a module.
 *
 * The pass manager owns the debugging aids so that no pass has to:
 * IR dumps before/after passes, verification between passes, timing, and
 * the crash context that names the pass that crashed. */
#include "internal.h"

#include <tlc/config.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- crash context ----
 *
 * A signal handler cannot reach the context, so the running pass and function
 * are kept in thread-locals: the only global state of libtlc, set only while
 * passes run (a crash is delivered to the thread that crashed). */
static _Thread_local const char *volatile crash_pass;
static _Thread_local const char *volatile crash_func;

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

typedef struct crash_guard {
	bool installed;
	struct sigaction old[TLC_ARRAY_LEN(crash_signals)];
	stack_t old_stack;
	void *stack;
} crash_guard;

static void put_err(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));
	(void)r;
}

/* Async-signal-safe: write(2) and _exit(2) only. */
static void on_crash(int sig)
{
	char num[16];
	int n = 0;
	char digits[16];
	unsigned v = (unsigned)sig;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 15);
	for (int i = 0; i < n; i++)
		num[i] = digits[n - 1 - i];
	num[n] = '\0';
	put_err("tlc: internal error: crash in pass '");
	put_err(crash_pass ? crash_pass : "?");
	put_err("' (signal ");
	put_err(num);
	put_err(")\n");
	if (crash_func) {
		put_err("tlc: note: while running on function '");
		put_err(crash_func);
		put_err("'\n");
	}
	put_err("tlc: note: this is a bug in tlc or in one of its plugins; "
	        "please report it with the input that triggered it\n");
	_exit(TLC_EXIT_INTERNAL);
}

static void guard_install(crash_guard *g)
{
	g->installed = false;
	if (crash_pass)
		return; /* a nested run: the outer one's handlers stay */
	/* an alternate stack, so that a stack overflow still gets its message */
	size_t size = 64 * 1024;
	g->stack = tlc_xmalloc(size);
	stack_t ss = {.ss_sp = g->stack, .ss_size = size, .ss_flags = 0};
	sigaltstack(&ss, &g->old_stack);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < TLC_ARRAY_LEN(crash_signals); i++)
		sigaction(crash_signals[i], &sa, &g->old[i]);
	g->installed = true;
}

static void guard_remove(crash_guard *g)
{
	if (!g->installed)
		return;
	for (size_t i = 0; i < TLC_ARRAY_LEN(crash_signals); i++)
		sigaction(crash_signals[i], &g->old[i], NULL);
	sigaltstack(&g->old_stack, NULL);
	free(g->stack);
	crash_pass = NULL;
	crash_func = NULL;
}

/* ---- helpers ---- */

static bool in_list(const char *name, int n, const char *const *list)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* The banner is a Python comment, so a dump stays a parseable kernel file. */
static void dump_ir(const tlc_module *m, const char *when, const char *pass)
{
	tlc_buf out;
	tlc_buf_init(&out);
	tlc_buf_printf(&out, "# *** IR Dump %s %s ***\n", when, pass);
	tlc_print_module(&out, m);
	fputs(tlc_buf_str(&out), stderr);
	fflush(stderr);
	tlc_buf_free(&out);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report_times(const tlc_pipeline_opts *o, const double *secs, int nrun)
{
	double total = 0;
	for (int i = 0; i < nrun; i++)
		total += secs[i];
	fprintf(stderr, "tlc: pass timing (wall clock, all functions)\n");
	fprintf(stderr, "%12s %7s  %s\n", "seconds", "%", "pass");
	for (int i = 0; i < nrun; i++)
		fprintf(stderr, "%12.6f %6.1f%%  %s\n", secs[i],
		        total > 0 ? 100.0 * secs[i] / total : 0.0, o->passes[i]);
	fprintf(stderr, "%12.6f %6.1f%%  %s\n", total, 100.0, "total");
}

int tlc_pipeline_check(tlc_context *ctx, const tlc_pipeline_opts *o)
{
	static const tlc_loc no_loc;
	int rc = 0;
	const struct {
		int n;
		const char *const *names;
		const char *option;
	} lists[] = {
		{o->npasses, o->passes, "pipeline"},
		{o->nprint_before, o->print_before, "--print-before"},
		{o->nprint_after, o->print_after, "--print-after"},
	};
	for (size_t l = 0; l < TLC_ARRAY_LEN(lists); l++) {
		for (int i = 0; i < lists[l].n; i++) {
			if (tlc_find_pass(ctx, lists[l].names[i]))
				continue;
			tlc_suggestion sg;
			tlc_suggest_init(&sg, lists[l].names[i]);
			const tlc_pass_desc *p;
			for (int k = 0; (p = tlc_pass_at(ctx, k)); k++)
				tlc_suggest_add(&sg, p->name);
			char hint[160];
			tlc_error(ctx, no_loc, "unknown pass '%s' in the %s%s (see tlc --list-passes)", lists[l].names[i],
			          lists[l].option, tlc_suggest_text(&sg, hint, sizeof hint));
			rc = -1;
		}
	}
	return rc;
}

/* Run one pass over every function; returns 0 or -1. */
static int run_one(tlc_module *m, const tlc_pass_desc *p, const tlc_pass_options *opts)
{
	tlc_context *ctx = m->ctx;
	int rc = 0;
	ctx->current_pass = p->name;
	crash_pass = p->name;
	for (int i = 0; i < m->nfuncs && rc == 0; i++) {
		tlc_func *f = m->funcs[i];
		int nerrors = ctx->nerrors;
		crash_func = f->name;
		int r = p->run(m, f, opts);
		if (r != 0 && ctx->nerrors == nerrors)
			tlc_internal_error(ctx, p->name,
			                   "the pass failed on function '%s' without reporting why",
			                   f->name ? f->name : "?");
		if (r != 0 || ctx->nerrors > nerrors)
			rc = -1;
	}
	crash_func = NULL;
	ctx->current_pass = NULL;
	return rc;
}

int tlc_run_passes(tlc_module *m, const tlc_pipeline_opts *o)
{
	tlc_context *ctx = m->ctx;
	if (tlc_pipeline_check(ctx, o) != 0)
		return -1;
	if (o->target)
		tlc_module_set_target(m, o->target);
	const char *outer = crash_pass;
	crash_guard guard;
	guard_install(&guard);
	double *secs = tlc_xcalloc((size_t)o->npasses + 1, sizeof(double));
	int rc = 0, nrun = 0;
	bool barriers_placed = false;
	for (int i = 0; i < o->npasses && rc == 0; i++) {
		const tlc_pass_desc *p = tlc_find_pass(ctx, o->passes[i]);
		if (o->print_before_all || in_list(p->name, o->nprint_before, o->print_before))
			dump_ir(m, "Before", p->name);
		double t0 = now_seconds();
		rc = run_one(m, p, tlc_config_options(o->config, p->name));
		secs[nrun++] = now_seconds() - t0;
		crash_pass = outer;
		if (rc != 0)
			break;
		if (o->print_after_all || in_list(p->name, o->nprint_after, o->print_after))
			dump_ir(m, "After", p->name);
		barriers_placed |= (p->flags & TLC_PASS_PLACES_BARRIERS) != 0;
		if (o->verify_each && (!tlc_verify_module(ctx, m, p->name) ||
		                       (barriers_placed && !tlc_verify_barriers(ctx, m, p->name)))) {
			tlc_internal_error(ctx, p->name, "the IR does not verify after this pass");
			rc = -1;
		}
	}
	/* once at the end at least: a pass that changed a type or left a
	 * variable unbound is an internal error, not code printed from it */
	if (rc == 0 && !o->verify_each && o->npasses > 0 && !tlc_verify_module(ctx, m, o->passes[o->npasses - 1])) {
		tlc_internal_error(ctx, o->passes[o->npasses - 1],
		                   "the IR does not verify after the pipeline (--verify-each names the pass that broke it)");
		rc = -1;
	}
	guard_remove(&guard);
	if (o->time_passes)
		report_times(o, secs, nrun);
	free(secs);
	return rc;
}
