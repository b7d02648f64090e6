/* tap.h - a tiny Test Anything Protocol helper for the C unit tests (read by
 * automake's tap-driver.sh).
 *
 *   plan(3);                       or no plan, and done_testing() prints it
 *   ok(x == 1, "x is %d", 1);
 *   is_str(got, "want", "name");
 *   is_int(got, 42, "name");
 *   return done_testing();         0 when every test passed and the plan held
 */
#ifndef TLC_TAP_H
#define TLC_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_vreport(bool pass, const char *fmt, va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_run);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

/* Print a diagnostic line (a TAP comment). */
static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

static inline bool ok(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline bool ok(bool pass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vreport(pass, fmt, ap);
	va_end(ap);
	return pass;
}

/* Print each line of a multi-line text as a TAP comment. */
static inline void tap_diag_text(const char *label, const char *s)
{
	printf("# %s:\n", label);
	const char *p = s ? s : "(null)";
	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("#   |%.*s|\n", len, p);
		p += len + (nl ? 1 : 0);
	}
}

static inline bool is_str(const char *got, const char *want, const char *name)
{
	bool pass = got && want && strcmp(got, want) == 0;
	ok(pass, "%s", name);
	if (!pass) {
		tap_diag_text("got", got);
		tap_diag_text("expected", want);
	}
	return pass;
}

static inline bool is_int(long long got, long long want, const char *name)
{
	bool pass = got == want;
	ok(pass, "%s", name);
	if (!pass)
		diag("got %lld, expected %lld", got, want);
	return pass;
}

/* Finish: print the plan if none was given; the exit status for main. */
static inline int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		diag("planned %d tests but ran %d", tap_planned, tap_run);
	fflush(stdout);
	return tap_failed || (tap_planned >= 0 && tap_planned != tap_run) ? 1 : 0;
}

#endif
