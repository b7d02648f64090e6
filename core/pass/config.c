/* config.c - the INI configuration (doc/pipeline.md) and pass options.
 *
 * Parsed with the system inih.  Debian's libinih gives the handler no line
 * number, so the file is fed to ini_parse_stream through a reader that counts
 * lines; the reader also checks every line's shape (section headers, indented
 * keys, overlong lines) so that each error names its own line. */
#include "internal.h"

#include "hash_table.h"

#include <tlc/config.h>

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* defined in plugin.c */
TLC_HIDDEN void tlc_libtlc_dir(char *out, size_t size);

/* inih r55 reads lines into a 200-byte buffer and silently splits longer ones. */
#define INI_LINE_MAX 200
/* inih copies section names into a 50-byte buffer. */
#define INI_SECTION_MAX 50
/* Each error shows its source line, which the diagnostics find by scanning
 * the file from its start: 10^5 bad lines would take minutes.  The first
 * errors say what is wrong; the others are only counted. */
#define INI_ERRORS_SHOWN 100

/* Every lookup by name goes through a hash table (a hostile or generated INI
 * may have 10^6 keys or sections); the arrays keep the file's order. */
struct tlc_pass_options {
	char *name; /* the pass or target */
	int n, cap;
	char **keys;
	char **values;
	tlc_loc *locs; /* where each was set: an INI line, or file 0 for --pass-arg */
	tlc_hash_table index; /* key -> index in keys */
};

typedef struct cfg_pipeline {
	char *target;
	int n, cap;
	char **passes;
	tlc_loc *locs;
} cfg_pipeline;

/* A name that must be registered once plugins are loaded. */
typedef enum { REF_PASS, REF_TARGET, REF_PASS_OR_TARGET } ref_kind;
typedef struct cfg_ref {
	ref_kind kind;
	char *name;
	tlc_loc loc; /* file 0: from the command line */
} cfg_ref;

struct tlc_config {
	char *path;
	int nplugins, cap_plugins;
	char **plugins;
	char *default_target;
	int npipes, cap_pipes;
	cfg_pipeline *pipes;
	tlc_hash_table pipe_index; /* target -> index in pipes */
	int nopts, cap_opts;
	tlc_pass_options **opts;
	tlc_hash_table opt_index; /* pass or target name -> index in opts */
	int nrefs, cap_refs;
	cfg_ref *refs;
};

/* Grow an array of `size`-byte items so that index n fits. */
static void *grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 8;
	return tlc_xrealloc(p, (size_t)*cap * size);
}

tlc_config *tlc_config_new(void)
{
	return tlc_xcalloc(1, sizeof(tlc_config));
}

static void options_free(tlc_pass_options *o)
{
	for (int i = 0; i < o->n; i++) {
		free(o->keys[i]);
		free(o->values[i]);
	}
	free(o->keys);
	free(o->values);
	free(o->locs);
	free(o->name);
	tlc_hash_free(&o->index);
	free(o);
}

void tlc_config_free(tlc_config *cfg)
{
	if (!cfg)
		return;
	for (int i = 0; i < cfg->nplugins; i++)
		free(cfg->plugins[i]);
	free(cfg->plugins);
	for (int i = 0; i < cfg->npipes; i++) {
		for (int j = 0; j < cfg->pipes[i].n; j++)
			free(cfg->pipes[i].passes[j]);
		free(cfg->pipes[i].passes);
		free(cfg->pipes[i].locs);
		free(cfg->pipes[i].target);
	}
	free(cfg->pipes);
	tlc_hash_free(&cfg->pipe_index);
	for (int i = 0; i < cfg->nopts; i++)
		options_free(cfg->opts[i]);
	free(cfg->opts);
	tlc_hash_free(&cfg->opt_index);
	for (int i = 0; i < cfg->nrefs; i++)
		free(cfg->refs[i].name);
	free(cfg->refs);
	free(cfg->default_target);
	free(cfg->path);
	free(cfg);
}

/* ---- building the configuration ---- */

static cfg_pipeline *pipeline_get(tlc_config *cfg, const char *target, bool create)
{
	int i = tlc_hash_find_str(&cfg->pipe_index, target);
	if (i >= 0)
		return &cfg->pipes[i];
	if (!create)
		return NULL;
	cfg->pipes = grow(cfg->pipes, cfg->npipes, &cfg->cap_pipes, sizeof(*cfg->pipes));
	cfg_pipeline *p = &cfg->pipes[cfg->npipes];
	memset(p, 0, sizeof(*p));
	p->target = tlc_xstrdup(target);
	tlc_hash_put_str(&cfg->pipe_index, p->target, cfg->npipes++);
	return p;
}

static tlc_pass_options *options_get(tlc_config *cfg, const char *name, bool create)
{
	int i = tlc_hash_find_str(&cfg->opt_index, name);
	if (i >= 0)
		return cfg->opts[i];
	if (!create)
		return NULL;
	cfg->opts = grow(cfg->opts, cfg->nopts, &cfg->cap_opts, sizeof(*cfg->opts));
	tlc_pass_options *o = tlc_xcalloc(1, sizeof(*o));
	o->name = tlc_xstrdup(name);
	tlc_hash_put_str(&cfg->opt_index, o->name, cfg->nopts);
	cfg->opts[cfg->nopts++] = o;
	return o;
}

/* Set key to value; a later value replaces an earlier one (in place: keys
 * keep the order of their first appearance). */
static void options_set(tlc_pass_options *o, const char *key, const char *value, tlc_loc loc)
{
	int i = tlc_hash_find_str(&o->index, key);
	if (i >= 0) {
		free(o->values[i]);
		o->values[i] = tlc_xstrdup(value);
		o->locs[i] = loc;
		return;
	}
	int cap = o->cap;
	o->keys = grow(o->keys, o->n, &cap, sizeof(*o->keys));
	cap = o->cap;
	o->values = grow(o->values, o->n, &cap, sizeof(*o->values));
	cap = o->cap;
	o->locs = grow(o->locs, o->n, &cap, sizeof(*o->locs));
	o->cap = cap;
	o->keys[o->n] = tlc_xstrdup(key);
	o->values[o->n] = tlc_xstrdup(value);
	o->locs[o->n] = loc;
	tlc_hash_put_str(&o->index, o->keys[o->n], o->n);
	o->n++;
}

static void add_ref(tlc_config *cfg, ref_kind kind, const char *name, tlc_loc loc)
{
	cfg->refs = grow(cfg->refs, cfg->nrefs, &cfg->cap_refs, sizeof(*cfg->refs));
	cfg->refs[cfg->nrefs++] = (cfg_ref){kind, tlc_xstrdup(name), loc};
}

/* ---- parsing ---- */

typedef struct ini_state {
	tlc_context *ctx;
	tlc_config *cfg;
	uint32_t file;
	const char *text, *p, *end;
	const char *line_start; /* of the line inih is working on */
	uint32_t line;
	bool section_bad; /* the current section was reported: ignore its keys */
	bool after_key;   /* the previous non-blank line was a key (continuations) */
	int nerrors;
	uint32_t first_error_line;
} ini_state;

/* Column (1-based) of `needle` in the current line, or 1. */
static uint32_t col_of(const ini_state *st, const char *needle)
{
	const char *nl = memchr(st->line_start, '\n', (size_t)(st->end - st->line_start));
	size_t len = (size_t)((nl ? nl : st->end) - st->line_start);
	size_t n = strlen(needle);
	for (size_t i = 0; n && i + n <= len; i++)
		if (memcmp(st->line_start + i, needle, n) == 0)
			return (uint32_t)i + 1;
	return 1;
}

static void ini_error(ini_state *st, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ini_error(ini_state *st, uint32_t col, const char *fmt, ...)
{
	tlc_loc loc = {st->file, st->line, col};
	if (st->nerrors < INI_ERRORS_SHOWN) {
		va_list ap;
		va_start(ap, fmt);
		tlc_vdiag(st->ctx, TLC_ERROR, loc, fmt, ap);
		va_end(ap);
	}
	if (!st->nerrors++)
		st->first_error_line = st->line;
}

/* The count of errors past INI_ERRORS_SHOWN, as one note. */
static void note_hidden_errors(tlc_context *ctx, tlc_loc loc, int nerrors)
{
	if (nerrors > INI_ERRORS_SHOWN)
		tlc_note(ctx, loc, "%d more errors not shown", nerrors - INI_ERRORS_SHOWN);
}

/* Check a section header line ("[name]" after leading blanks). */
static void check_section(ini_state *st, const char *s, size_t len)
{
	const char *close = memchr(s, ']', len);
	st->section_bad = true;
	if (!close) {
		ini_error(st, 1, "expected ']' to close the section name");
		return;
	}
	size_t n = (size_t)(close - s - 1);
	char name[INI_SECTION_MAX + 1];
	if (n >= INI_SECTION_MAX) {
		ini_error(st, 2, "section name longer than %d characters", INI_SECTION_MAX - 1);
		return;
	}
	memcpy(name, s + 1, n);
	name[n] = '\0';
	static const char *const prefixes[] = {"pipeline.", "pass.", "target."};
	for (size_t i = 0; i < TLC_ARRAY_LEN(prefixes); i++) {
		size_t pl = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], pl) == 0 && name[pl]) {
			st->section_bad = false;
			if (i == 1 || i == 2) {
				/* [pass.X] / [target.X]: X must exist; checked after loading */
				tlc_loc loc = {st->file, st->line, 2 + (uint32_t)pl};
				add_ref(st->cfg, i == 1 ? REF_PASS : REF_TARGET, name + pl, loc);
				options_get(st->cfg, name + pl, true);
			}
			return;
		}
	}
	if (strcmp(name, "plugins") == 0 || strcmp(name, "tlc") == 0) {
		st->section_bad = false;
		return;
	}
	ini_error(st, 2,
	          "unknown section [%s] (expected [tlc], [plugins], [pipeline.TARGET], [pass.NAME] "
	          "or [target.NAME])",
	          name);
}

/* Look at one raw line before inih does: shape errors are reported here,
 * where the line number is known. */
static void check_line(ini_state *st, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len || s[i] == '\n' || s[i] == '\r' || s[i] == ';' || s[i] == '#')
		return;
	bool indented = i > 0;
	if (s[i] == '[') {
		check_section(st, s + i, len - i);
		st->after_key = false;
		return;
	}
	bool has_sep = memchr(s + i, '=', len - i) || memchr(s + i, ':', len - i);
	if (indented && st->after_key && memchr(s + i, '=', len - i)) {
		/* inih would take it as a continuation of the previous value */
		ini_error(st, (uint32_t)i + 1, "indented 'key = value' line (do not indent keys)");
		return;
	}
	if (indented && st->after_key)
		return; /* a continuation line: another value for the same key */
	if (!has_sep)
		ini_error(st, (uint32_t)i + 1, "expected 'key = value'");
	st->after_key = has_sep;
}

/* fgets-like reader for ini_parse_stream over the text in memory. */
static char *cfg_reader(char *str, int num, void *stream)
{
	ini_state *st = stream;
	if (st->p >= st->end)
		return NULL;
	const char *nl = memchr(st->p, '\n', (size_t)(st->end - st->p));
	size_t len = (size_t)((nl ? nl + 1 : st->end) - st->p);
	st->line++;
	st->line_start = st->p;
	if (len > (size_t)num - 1 || len > INI_LINE_MAX - 1) {
		ini_error(st, 1, "line longer than %d characters", INI_LINE_MAX - 2);
		len = 0; /* hand inih an empty line instead of a split one */
	} else {
		check_line(st, st->p, len);
	}
	memcpy(str, st->p, len);
	str[len] = '\0';
	st->p = nl ? nl + 1 : st->end;
	return str;
}

static int cfg_handler(void *user, const char *section, const char *key, const char *value)
{
	ini_state *st = user;
	tlc_config *cfg = st->cfg;
	if (st->section_bad)
		return 1;
	if (!*section) {
		ini_error(st, col_of(st, key), "key '%s' outside of any section", key);
		return 1;
	}
	bool takes_name = strcmp(section, "plugins") == 0 || strncmp(section, "pipeline.", 9) == 0;
	if (takes_name && !*value) {
		ini_error(st, col_of(st, key), "'%s' needs a value", key);
		return 1;
	}
	if (strcmp(section, "plugins") == 0 && strcmp(key, "load") == 0) {
		cfg->plugins = grow(cfg->plugins, cfg->nplugins, &cfg->cap_plugins, sizeof(char *));
		cfg->plugins[cfg->nplugins++] = tlc_xstrdup(value);
	} else if (strcmp(section, "tlc") == 0 && strcmp(key, "default_target") == 0) {
		free(cfg->default_target);
		cfg->default_target = tlc_xstrdup(value);
		add_ref(cfg, REF_TARGET, value, (tlc_loc){st->file, st->line, col_of(st, value)});
	} else if (strncmp(section, "pipeline.", 9) == 0 && strcmp(key, "pass") == 0) {
		cfg_pipeline *p = pipeline_get(cfg, section + 9, true);
		int cap = p->cap;
		p->passes = grow(p->passes, p->n, &cap, sizeof(*p->passes));
		cap = p->cap;
		p->locs = grow(p->locs, p->n, &cap, sizeof(*p->locs));
		p->cap = cap;
		p->passes[p->n] = tlc_xstrdup(value);
		p->locs[p->n] = (tlc_loc){st->file, st->line, col_of(st, value)};
		p->n++;
	} else if (strncmp(section, "pass.", 5) == 0) {
		options_set(options_get(cfg, section + 5, true), key, value, (tlc_loc){st->file, st->line, 1});
	} else if (strncmp(section, "target.", 7) == 0) {
		options_set(options_get(cfg, section + 7, true), key, value, (tlc_loc){st->file, st->line, 1});
	} else {
		const char *expect = strcmp(section, "plugins") == 0 ? "load"
		                     : strcmp(section, "tlc") == 0 ? "default_target"
		                                                   : "pass";
		ini_error(st, col_of(st, key), "unknown key '%s' in [%s] (expected '%s')", key, section,
		          expect);
	}
	return 1;
}

int tlc_config_load_string(tlc_context *ctx, tlc_config *cfg, const char *name, const char *text)
{
	ini_state st = {0};
	st.ctx = ctx;
	st.cfg = cfg;
	st.text = st.p = st.line_start = text;
	st.end = text + strlen(text);
	st.file = tlc_add_source(ctx, name, text, strlen(text));
	free(cfg->path);
	cfg->path = tlc_xstrdup(name);
	int rc = ini_parse_stream(cfg_reader, &st, cfg_handler, &st);
	if (rc < 0) {
		tlc_error(ctx, (tlc_loc){0}, "cannot parse config file '%s'", name);
		return -1;
	}
	if (rc > 0 && (!st.nerrors || (uint32_t)rc < st.first_error_line)) {
		/* an error inih found that the line checks did not */
		tlc_loc loc = {st.file, (uint32_t)rc, 1};
		tlc_error(ctx, loc, "syntax error");
		return -1;
	}
	note_hidden_errors(ctx, (tlc_loc){st.file, 0, 0}, st.nerrors);
	return st.nerrors ? -1 : 0;
}

int tlc_config_load(tlc_context *ctx, tlc_config *cfg, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		tlc_error(ctx, (tlc_loc){0}, "cannot read config file '%s': %s", path, strerror(errno));
		return -1;
	}
	tlc_buf text;
	tlc_buf_init(&text);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk) - 1, f)) > 0) {
		chunk[n] = '\0';
		if (memchr(chunk, '\0', n)) {
			fclose(f);
			tlc_buf_free(&text);
			tlc_error(ctx, (tlc_loc){0}, "config file '%s' is not a text file", path);
			return -1;
		}
		tlc_buf_puts(&text, chunk);
	}
	bool bad = ferror(f);
	fclose(f);
	int rc = -1;
	if (bad)
		tlc_error(ctx, (tlc_loc){0}, "cannot read config file '%s': %s", path, strerror(errno));
	else
		rc = tlc_config_load_string(ctx, cfg, path, tlc_buf_str(&text));
	tlc_buf_free(&text);
	return rc;
}

/* ---- queries ---- */

static bool is_file(const char *path)
{
	return access(path, R_OK) == 0;
}

char *tlc_config_default_path(void)
{
	const char *env = getenv("TLC_CONFIG");
	if (env && *env)
		return tlc_xstrdup(env);
	char lib[PATH_MAX], path[PATH_MAX + 32];
	tlc_libtlc_dir(lib, sizeof(lib));
	if (lib[0]) {
		snprintf(path, sizeof(path), "%s/../share/tlc/tlc.ini", lib);
		if (is_file(path)) {
			char real[PATH_MAX];
			return tlc_xstrdup(realpath(path, real) ? real : path);
		}
	}
	if (is_file(TLC_SYSCONFDIR "/tlc.ini"))
		return tlc_xstrdup(TLC_SYSCONFDIR "/tlc.ini");
	return NULL;
}

void tlc_config_search_path(tlc_buf *out)
{
	const char *env = getenv("TLC_CONFIG");
	tlc_buf_printf(out, "$TLC_CONFIG (%s)", env && *env ? env : "unset");
	char lib[PATH_MAX];
	tlc_libtlc_dir(lib, sizeof(lib));
	if (lib[0])
		tlc_buf_printf(out, ", %s/../share/tlc/tlc.ini", lib);
	tlc_buf_printf(out, ", %s/tlc.ini", TLC_SYSCONFDIR);
}

const char *tlc_config_path(const tlc_config *cfg)
{
	return cfg->path;
}

const char *tlc_config_plugin_at(const tlc_config *cfg, int i)
{
	return i >= 0 && i < cfg->nplugins ? cfg->plugins[i] : NULL;
}

const char *tlc_config_default_target(const tlc_config *cfg)
{
	return cfg->default_target;
}

int tlc_config_pipeline(const tlc_config *cfg, const char *target, const char *const **names)
{
	cfg_pipeline *p = pipeline_get((tlc_config *)cfg, target, false);
	if (!p)
		return -1;
	*names = (const char *const *)p->passes;
	return p->n;
}

/* An error of tlc_config_check, shown while fewer than INI_ERRORS_SHOWN were. */
static void check_error(tlc_context *ctx, int *nerrors, tlc_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void check_error(tlc_context *ctx, int *nerrors, tlc_loc loc, const char *fmt, ...)
{
	if ((*nerrors)++ >= INI_ERRORS_SHOWN)
		return;
	va_list ap;
	va_start(ap, fmt);
	tlc_vdiag(ctx, TLC_ERROR, loc, fmt, ap);
	va_end(ap);
}

static bool parses_as(tlc_opt_kind kind, const char *v)
{
	if (kind == TLC_OPT_STRING)
		return true;
	if (kind == TLC_OPT_BOOL) {
		static const char *const words[] = {"1", "true", "yes", "on", "0", "false", "no", "off"};
		for (size_t i = 0; i < TLC_ARRAY_LEN(words); i++)
			if (strcasecmp(v, words[i]) == 0)
				return true;
		return false;
	}
	char *end;
	errno = 0;
	(void)strtol(v, &end, 0);
	return *v && !*end && !errno;
}

/* Every key set for `pass` is one of its declared options, with a value of
 * the option's kind. */
static void check_options(tlc_context *ctx, int *nerrors, const tlc_pass_desc *pass, const tlc_pass_options *o)
{
	static const char *const kinds[] = {"a boolean (true/false, 1/0, yes/no, on/off)", "an integer", "a string"};
	for (int k = 0; k < o->n; k++) {
		const tlc_pass_option *opt = NULL;
		tlc_suggestion sg;
		tlc_suggest_init(&sg, o->keys[k]);
		tlc_buf names;
		tlc_buf_init(&names);
		for (const tlc_pass_option *x = pass->options; x->name; x++) {
			if (strcmp(x->name, o->keys[k]) == 0)
				opt = x;
			tlc_suggest_add(&sg, x->name);
			tlc_buf_printf(&names, "%s%s", names.len ? ", " : "", x->name);
		}
		char where[256], hint[160];
		if (o->locs[k].file)
			snprintf(where, sizeof where, "[pass.%s] %s = %s", pass->name, o->keys[k], o->values[k]);
		else
			snprintf(where, sizeof where, "--pass-arg=%s.%s=%s", pass->name, o->keys[k], o->values[k]);
		if (!opt)
			check_error(ctx, nerrors, o->locs[k], "%s: pass '%s' has no option '%s'%s (%s%s)", where, pass->name,
			            o->keys[k], tlc_suggest_text(&sg, hint, sizeof hint),
			            names.len ? "its options: " : "it takes no options", tlc_buf_str(&names));
		else if (!parses_as(opt->kind, o->values[k]))
			check_error(ctx, nerrors, o->locs[k], "%s: option '%s' of pass '%s' takes %s", where, opt->name,
			            pass->name, kinds[opt->kind]);
		tlc_buf_free(&names);
	}
}

int tlc_config_check(tlc_context *ctx, const tlc_config *cfg)
{
	int nerrors = 0;
	for (int i = 0; i < cfg->npipes; i++) {
		const cfg_pipeline *p = &cfg->pipes[i];
		for (int j = 0; j < p->n; j++)
			if (!tlc_find_pass(ctx, p->passes[j]))
				check_error(ctx, &nerrors, p->locs[j], "unknown pass '%s' in [pipeline.%s]",
				            p->passes[j], p->target);
	}
	for (int i = 0; i < cfg->nrefs; i++) {
		const cfg_ref *r = &cfg->refs[i];
		bool pass = tlc_find_pass(ctx, r->name) != NULL;
		bool target = tlc_find_target(ctx, r->name) != NULL;
		if (r->kind == REF_PASS && !pass)
			check_error(ctx, &nerrors, r->loc, "unknown pass '%s'", r->name);
		else if (r->kind == REF_TARGET && !target)
			check_error(ctx, &nerrors, r->loc, "unknown target '%s'", r->name);
		else if (r->kind == REF_PASS_OR_TARGET && !pass && !target)
			check_error(ctx, &nerrors, r->loc, "--pass-arg: no pass or target named '%s'",
			            r->name);
	}
	for (int i = 0; i < cfg->nopts; i++) {
		const tlc_pass_desc *pass = tlc_find_pass(ctx, cfg->opts[i]->name);
		if (pass && pass->options)
			check_options(ctx, &nerrors, pass, cfg->opts[i]);
	}
	note_hidden_errors(ctx, (tlc_loc){0}, nerrors);
	return nerrors ? -1 : 0;
}

int tlc_config_set_pass_arg(tlc_context *ctx, tlc_config *cfg, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *dot = NULL;
	for (const char *s = arg; eq && s < eq; s++)
		if (*s == '.')
			dot = s;
	if (!eq || !dot || dot == arg || dot + 1 == eq) {
		tlc_error(ctx, (tlc_loc){0}, "--pass-arg expects PASS.KEY=VALUE, not '%s'", arg);
		return -1;
	}
	char *name = tlc_xstrdup(arg);
	name[dot - arg] = '\0';
	name[eq - arg] = '\0';
	const char *key = name + (dot - arg) + 1;
	options_set(options_get(cfg, name, true), key, eq + 1, (tlc_loc){0});
	add_ref(cfg, REF_PASS_OR_TARGET, name, (tlc_loc){0});
	free(name);
	return 0;
}

const tlc_pass_options *tlc_config_options(const tlc_config *cfg, const char *name)
{
	static const tlc_pass_options empty;
	const tlc_pass_options *o = cfg ? options_get((tlc_config *)cfg, name, false) : NULL;
	return o ? o : &empty;
}

/* ---- option values (pass.h) ---- */

const char *tlc_opt_str(const tlc_pass_options *o, const char *key, const char *def)
{
	int i = o && key ? tlc_hash_find_str(&o->index, key) : -1;
	return i >= 0 ? o->values[i] : def;
}

long tlc_opt_int(const tlc_pass_options *o, const char *key, long def)
{
	const char *s = tlc_opt_str(o, key, NULL);
	if (!s || !*s)
		return def;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	return *end || errno ? def : v;
}

bool tlc_opt_bool(const tlc_pass_options *o, const char *key, bool def)
{
	const char *s = tlc_opt_str(o, key, NULL);
	if (!s)
		return def;
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	for (size_t i = 0; i < TLC_ARRAY_LEN(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return true;
		if (strcasecmp(s, no[i]) == 0)
			return false;
	}
	return def;
}
