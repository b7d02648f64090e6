/* frontend_import.c - import statements.  tilelang and its language module
 * are understood, math, itertools and functools are evaluated; a module of
 * the program itself (a sibling NAME.py of the program file, or a package
 * NAME/__init__.py, and relative imports `from .utils import x` beside the
 * importing file) is read and run by the same evaluator, under the same
 * rules and budgets, once per compilation; so are tlc's own modules of
 * TileLang's Python API (tilelang.quantize: core/frontend/py/, compiled in);
 * every other module (torch, triton, argparse, ...) is an opaque host module. */
#include "frontend.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A module of the program, read from its file. */
struct fe_pymod {
	const char *name; /* dotted, as first imported */
	const char *path;
	const char *key;    /* the real path: one module per file, however imported */
	const char *pkgdir; /* a package: the directory of its submodules; else NULL */
	fe_env *env;        /* its globals */
	/* PM_HOST: its syntax is beyond tlc's reader: an opaque host module */
	enum { PM_LOADING, PM_DONE, PM_FAILED, PM_HOST } state;
	bool bundled; /* tlc's own: a name it lacks is TileLang's host API */
};

/* tlc's own modules, in the evaluator's Python subset, each under the names
 * programs import it by (the text: core/frontend/py/NAME.py, embedded by
 * scripts/embed.sh) */
struct tlc_device_source {
	const char *name;
	const char *text;
};
#include "core/frontend/py_sources.h"

static const struct {
	const char *dotted, *source;
} bundled[] = {
	{"tilelang.quantize", "tilelang_quantize"},
	{"tilelang.quantize.quantization", "tilelang_quantize"},
	/* BitBLAS's module of the same functions, which older programs import */
	{"bitblas.quantization", "tilelang_quantize"},
	{"bitblas.quantization.quantization", "tilelang_quantize"},
	/* T.gemm_sp and the metadata layouts (frontend_sparse.c); no program
	 * imports it by this name */
	{"tilelang.tlc_sparse", "tilelang_sparse"},
	/* the C decoders for T.import_source (tilelang.quantize re-exports them) */
	{"tilelang.quantize.lop3", "tilelang_quantize_intrin"},
	{"tilelang.quantize.mxfp", "tilelang_quantize_intrin"},
	{"bitblas.gpu.intrin.lop3", "tilelang_quantize_intrin"},
};

static fe_val *known_module(fe *F, const char *dotted)
{
	static const struct {
		const char *name;
		int mod;
	} known[] = {
		{"tilelang.language", FM_T},
		{"tvm.tl.language", FM_T}, /* tilelang.language before tilelang was a package */
		{"tilelang", FM_TILELANG},
		{"tilelang.layout", FM_LAYOUT},
		{"math", FM_MATH},
		{"itertools", FM_ITERTOOLS},
		{"functools", FM_FUNCTOOLS},
		{"tilelang.autotuner", FM_AUTOTUNER},
		{"tilelang.math", FM_TLMATH},
		{"tvm", FM_TVM},
		{"tvm.tir", FM_TVM_TIR},
		{"tvm.te", FM_TVM_TE},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(dotted, known[i].name) == 0) {
			fe_val *v = fe_new(F, FV_MODULE);
			v->u.s = fe_strdup(F, dotted);
			v->mod = known[i].mod;
			return v;
		}
	return NULL;
}

static fe_val *host_module(fe *F, const char *dotted)
{
	fe_val *v = fe_new(F, FV_HOST);
	v->u.s = fe_strdup(F, dotted);
	return v;
}

static const char *source_name(fe *F, uint32_t file)
{
	return file > 0 && (int)file < F->ctx->nsources ? F->ctx->sources[file].name : "<input>";
}

/* The directory of a file's name ("." when it has none). */
static const char *dir_of(fe *F, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return fe_strndup(F, path, (size_t)(slash - path));
}

static const char *join(fe *F, const char *dir, const char *name, const char *ext)
{
	size_t n = strlen(dir) + strlen(name) + strlen(ext) + 2;
	char *s = fe_alloc(F, n);
	snprintf(s, n, "%s/%s%s", dir, name, ext);
	return s;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static fe_val *module_value_of(fe *F, fe_pymod *m)
{
	if (m->state == PM_HOST)
		return host_module(F, m->name);
	int idx = 0;
	for (; idx < F->npymods && F->pymods[idx] != m; idx++)
		;
	fe_val *v = fe_new(F, FV_MODULE);
	v->u.s = m->name;
	v->mod = FM_USER + idx;
	return v;
}

static fe_pymod *pymod_of(fe *F, const fe_val *v)
{
	return v->kind == FV_MODULE && v->mod >= FM_USER && v->mod - FM_USER < F->npymods
		       ? F->pymods[v->mod - FM_USER]
		       : NULL;
}

static char *read_file(fe *F, const char *path, size_t *len, tlc_loc loc)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		tlc_error(F->ctx, loc, "cannot read module file '%s'", path);
		return NULL;
	}
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (n < 0 || fseek(f, 0, SEEK_SET) != 0 || !fe_check_str(F, n, loc)) {
		if (n < 0)
			tlc_error(F->ctx, loc, "cannot read module file '%s'", path);
		fclose(f);
		return NULL;
	}
	char *text = fe_alloc(F, (size_t)n + 1);
	size_t got = fread(text, 1, (size_t)n, f);
	fclose(f);
	text[got] = 0;
	*len = got;
	return text;
}

static const char *real_path(fe *F, const char *path)
{
	char *rp = realpath(path, NULL);
	const char *r = fe_strdup(F, rp ? rp : path);
	free(rp);
	return r;
}

static fe_pymod *add_pymod(fe *F, const char *name, const char *path, const char *pkgdir, int state)
{
	if (F->npymods == F->cap_pymods) {
		int cap = F->cap_pymods ? 2 * F->cap_pymods : 8;
		fe_pymod **n = fe_alloc(F, sizeof(*n) * (size_t)cap);
		if (F->npymods)
			memcpy(n, F->pymods, sizeof(*n) * (size_t)F->npymods);
		F->pymods = n;
		F->cap_pymods = cap;
	}
	fe_pymod *m = fe_alloc(F, sizeof(*m));
	*m = (fe_pymod){.name = fe_strdup(F, name),
			.path = path,
			.key = real_path(F, path),
			.pkgdir = pkgdir,
			.state = state};
	F->pymods[F->npymods++] = m;
	return m;
}

/* Run the module of file `path` (once per compilation: later imports get
 * the same module), its text read from the file, or `text` when not NULL.
 * NULL after an error, reported. */
static fe_pymod *load_text(fe *F, const char *name, const char *path, const char *text_in,
			   const char *pkgdir, tlc_loc loc)
{
	const char *key = real_path(F, path);
	for (int i = 0; i < F->npymods; i++) {
		fe_pymod *m = F->pymods[i];
		if (strcmp(m->key, key) != 0)
			continue;
		if (m->state == PM_LOADING) {
			tlc_error(F->ctx, loc,
				  "circular import: module '%s' (%s) is imported again while it is "
				  "being imported; move what both need into a third module",
				  m->name, m->path);
			return NULL;
		}
		if (m->state == PM_FAILED) {
			tlc_error(F->ctx, loc,
				  "module '%s' (%s) could not be imported (see the error above)",
				  m->name, m->path);
			return NULL;
		}
		return m;
	}
	fe_pymod *m = add_pymod(F, name, path, pkgdir, PM_LOADING);
	m->bundled = text_in != NULL;
	size_t len = text_in ? strlen(text_in) : 0;
	const char *text = text_in ? text_in : read_file(F, path, &len, loc);
	uint32_t file = text ? tlc_add_source(F->ctx, path, text, len) : 0;
	tlc_diag_held held;
	tlc_diag_hold(F->ctx, &held);
	py_node *tree = text ? py_parse(F->ctx, F->arena, file, text, len) : NULL;
	if (text && !tree) {
		/* a module Python reads and tlc's reader does not (host code that
		 * uses newer syntax): the program may not need it at all */
		const char *s = tlc_buf_str(&held.held), *e = strstr(s, "error: ");
		const char *nl = e ? strchr(e, '\n') : NULL;
		char why[160];
		snprintf(why, sizeof why, "%.*s", e ? (int)(nl ? nl - e - 7 : 150) : 0, e ? e + 7 : "");
		tlc_diag_release(F->ctx, &held, false);
		tlc_warning(F->ctx, loc,
			    "module '%s' (%s) is not read: %s; its names are opaque host values", name,
			    path, why);
		m->state = PM_HOST;
		return m;
	}
	tlc_diag_release(F->ctx, &held, true);
	bool ok = tree != NULL;
	if (ok) {
		m->env = fe_env_new(F, NULL);
		fe_env_set(F, m->env, "__name__", fe_str(F, m->name));
		fe_env_set(F, m->env, "__file__", fe_str(F, path));
		/* a module runs at its own top level, also when imported inside
		 * a function or a kernel */
		fe_kernel *kernel = F->kernel;
		fe_frame top = {.caller = F->frame, .name = NULL};
		/* the host values the module's own statements use do not make the
		 * import statement host code (frontend_script.c) */
		int64_t host_uses = F->host_uses;
		F->kernel = NULL;
		F->frame = &top;
		for (int i = 0; ok && i < tree->nbody; i++)
			ok = fe_exec_toplevel(F, m->env, tree->body[i]) == FL_NORMAL;
		F->frame = top.caller;
		F->kernel = kernel;
		F->host_uses = host_uses;
	}
	m->state = ok ? PM_DONE : PM_FAILED;
	if (!ok) {
		if (text)
			tlc_note(F->ctx, loc, "in module '%s' (%s), imported here", m->name, path);
		return NULL;
	}
	return m;
}

static fe_pymod *load(fe *F, const char *name, const char *path, const char *pkgdir, tlc_loc loc)
{
	return load_text(F, name, path, NULL, pkgdir, loc);
}

/* The bundled module `dotted`; NULL with *found false (nothing reported)
 * when tlc has none of that name, or after an error in it. */
static fe_pymod *bundled_module(fe *F, const char *dotted, tlc_loc loc, bool *found)
{
	*found = false;
	for (size_t i = 0; i < TLC_ARRAY_LEN(bundled); i++) {
		if (strcmp(bundled[i].dotted, dotted) != 0)
			continue;
		for (size_t j = 0; j < TLC_ARRAY_LEN(tlc_device_sources); j++)
			if (!strcmp(tlc_device_sources[j].name, bundled[i].source)) {
				/* one module under all its names: the path is the key */
				char path[96];
				snprintf(path, sizeof path, "<tlc>/%s.py", bundled[i].source);
				*found = true;
				return load_text(F, bundled[i].dotted, fe_strdup(F, path),
						 tlc_device_sources[j].text, NULL, loc);
			}
	}
	return NULL;
}

const char *fe_bundled_text(const char *name)
{
	for (size_t j = 0; j < TLC_ARRAY_LEN(tlc_device_sources); j++)
		if (!strcmp(tlc_device_sources[j].name, name))
			return tlc_device_sources[j].text;
	return NULL;
}

fe_env *fe_run_bundled(fe *F, const char *name, const char *module_name, const char *path,
		      const char *what)
{
	const char *text = fe_bundled_text(name);
	if (!text) {
		tlc_internal_error(F->ctx, "frontend", "tlc's model of %s is not built in", what);
		return NULL;
	}
	size_t len = strlen(text);
	uint32_t file = tlc_add_source(F->ctx, path, text, len);
	py_node *tree = py_parse(F->ctx, F->arena, file, text, len);
	if (!tree) {
		tlc_internal_error(F->ctx, "frontend", "tlc's model of %s does not parse", what);
		return NULL;
	}
	fe_env *env = fe_env_new(F, NULL);
	fe_env_set(F, env, "__name__", fe_str(F, module_name));
	/* host code: no kernel, a frame of its own, and its host work not
	 * counted against the program's budget */
	fe_kernel *kernel = F->kernel;
	fe_frame top = {.caller = F->frame, .name = NULL};
	int64_t host_uses = F->host_uses;
	bool ok = true;
	F->kernel = NULL;
	F->frame = &top;
	for (int i = 0; ok && i < tree->nbody; i++)
		ok = fe_exec_body(F, env, 1, &tree->body[i]) == FL_NORMAL;
	F->frame = top.caller;
	F->kernel = kernel;
	F->host_uses = host_uses;
	if (!ok) {
		tlc_internal_error(F->ctx, "frontend", "tlc's model of %s fails to run", what);
		return NULL;
	}
	return env;
}

fe_val *fe_bundled_module(fe *F, const char *dotted, tlc_loc loc, bool *found)
{
	fe_pymod *m = bundled_module(F, dotted, loc, found);
	return m ? module_value_of(F, m) : NULL;
}

fe_env *fe_pymodule_env(fe *F, const fe_val *v)
{
	fe_pymod *m = pymod_of(F, v);
	return m ? m->env : NULL;
}

static fe_pymod *namespace_package(fe *F, const char *dotted, const char *dir)
{
	const char *key = real_path(F, dir);
	for (int i = 0; i < F->npymods; i++)
		if (F->pymods[i]->pkgdir && strcmp(F->pymods[i]->key, key) == 0)
			return F->pymods[i];
	fe_pymod *pm = add_pymod(F, dotted, dir, dir, PM_DONE);
	pm->env = fe_env_new(F, NULL);
	return pm;
}

/* The module `name` (one component) in directory dir: NAME.py or the
 * package NAME/__init__.py.  *found false (nothing reported) when neither
 * exists. */
static fe_pymod *find_in(fe *F, const char *dir, const char *dotted, const char *name, tlc_loc loc,
			 bool *found)
{
	const char *pkg = join(F, dir, name, "");
	const char *init = join(F, pkg, "__init__", ".py");
	const char *file = join(F, dir, name, ".py");
	*found = true;
	if (is_file(init))
		return load(F, dotted, init, pkg, loc);
	if (is_file(file))
		return load(F, dotted, file, NULL, loc);
	struct stat st;
	if (stat(pkg, &st) == 0 && S_ISDIR(st.st_mode)) /* a namespace package: a directory alone */
		return namespace_package(F, dotted, pkg);
	*found = false;
	return NULL;
}

/* The module of dotted name `dotted` from directory dir, its packages
 * loaded on the way (each submodule set as an attribute of its package).
 * *found as in find_in for the first component; a later one that does not
 * exist is an error. */
static fe_pymod *find_dotted(fe *F, const char *dir, const char *dotted, tlc_loc loc, bool *found,
			     fe_pymod **top)
{
	fe_pymod *m = NULL;
	const char *p = dotted;
	*top = NULL;
	while (*p) {
		const char *dot = strchr(p, '.');
		const char *part = dot ? fe_strndup(F, p, (size_t)(dot - p)) : p;
		const char *sofar =
			fe_strndup(F, dotted, (size_t)((dot ? dot : p + strlen(p)) - dotted));
		if (m && !m->pkgdir) {
			tlc_error(F->ctx, loc, "no module named '%s': '%s' (%s) is not a package",
				  sofar, m->name, m->path);
			return NULL;
		}
		bool f;
		fe_pymod *sub = find_in(F, m ? m->pkgdir : dir, sofar, part, loc, &f);
		if (!f && !m) {
			*found = false;
			return NULL;
		}
		*found = true;
		if (!f)
			tlc_error(F->ctx, loc,
				  "no module named '%s' (no %s.py or %s/__init__.py in %s)", sofar,
				  part, part, m->pkgdir);
		if (!sub)
			return NULL;
		if (m)
			fe_env_set(F, m->env, part, module_value_of(F, sub));
		else
			*top = sub;
		m = sub;
		if (m->state == PM_HOST) /* the rest is host code too */
			return m;
		p = dot ? dot + 1 : p + strlen(p);
	}
	return m;
}

/* The directory relative imports of level `level` start from, seen from
 * the file of loc: its own directory, then one up per extra dot. */
static const char *relative_dir(fe *F, int level, tlc_loc loc)
{
	const char *dir = dir_of(F, source_name(F, loc.file));
	for (int i = 1; i < level; i++)
		dir = join(F, dir, "..", "");
	return dir;
}

fe_val *fe_pymodule_attr(fe *F, fe_val *v, const char *name, tlc_loc loc)
{
	fe_pymod *m = pymod_of(F, v);
	fe_val *r = m ? fe_env_get_local(m->env, name) : NULL;
	if (r)
		return r;
	if (m && m->pkgdir) { /* a submodule not imported yet: `from pkg import sub` */
		bool found;
		size_t n = strlen(m->name) + strlen(name) + 2;
		char *dotted = fe_alloc(F, n);
		snprintf(dotted, n, "%s.%s", m->name, name);
		fe_pymod *sub = find_in(F, m->pkgdir, dotted, name, loc, &found);
		if (found) {
			if (!sub)
				return NULL;
			fe_val *sv = module_value_of(F, sub);
			fe_env_set(F, m->env, name, sv);
			return sv;
		}
	}
	if (m && m->bundled) {
		/* the rest of TileLang's module is host code (numpy weight
		 * packing, C source for T.import_source): opaque */
		size_t n = strlen(m->name) + strlen(name) + 2;
		char *dotted = fe_alloc(F, n);
		snprintf(dotted, n, "%s.%s", m->name, name);
		return host_module(F, dotted);
	}
	tlc_error(F->ctx, loc, "module '%s' has no attribute '%s'", v->u.s, name);
	return NULL;
}

/* The globals of the module that env belongs to. */
static fe_env *root_env(fe_env *env)
{
	while (env->parent)
		env = env->parent;
	return env;
}

/* `from m import *` of a module of the program: its public names (its
 * __all__ when it has one), and the names of the modules it star-imported. */
static bool import_star(fe *F, fe_env *env, fe_pymod *m, tlc_loc loc)
{
	fe_val *all = fe_env_get_local(m->env, "__all__");
	if (all) {
		fe_val *list = fe_iterate(F, all, loc);
		if (!list)
			return false;
		for (int i = 0; i < list->u.seq.n; i++) {
			fe_val *n = list->u.seq.items[i];
			fe_val *v = n->kind == FV_STR ? fe_env_get_local(m->env, n->u.s) : NULL;
			if (!v) {
				tlc_error(F->ctx, loc,
					  "module '%s' has no attribute %s (named in its __all__)",
					  m->name, fe_show(F, n));
				return false;
			}
			fe_env_set(F, env, n->u.s, v);
		}
	} else {
		if (!fe_work(F, m->env->n, loc))
			return false;
		for (int i = 0; i < m->env->n; i++)
			if (m->env->names[i][0] != '_')
				fe_env_set(F, env, m->env->names[i], m->env->vals[i]);
	}
	fe_env *root = root_env(env);
	for (int i = 0, n = F->nstar; i < n; i++)
		if (F->star_env[i] == m->env && F->nstar < (int)TLC_ARRAY_LEN(F->star)) {
			F->star[F->nstar] = F->star[i];
			F->star_env[F->nstar++] = root;
		}
	return true;
}

/* The module `dotted` of an import at loc (level: its leading dots), and
 * in *top the module `import a.b` binds (a).  NULL after an error. */
static fe_val *import_module(fe *F, const char *dotted, int level, tlc_loc loc, fe_val **top)
{
	*top = NULL;
	if (level == 0) {
		fe_val *k = known_module(F, dotted);
		if (k) {
			const char *dot = strchr(dotted, '.');
			*top = dot ? known_module(F, fe_strndup(F, dotted, (size_t)(dot - dotted)))
				   : k;
			if (!*top)
				*top = host_module(F,
						   fe_strndup(F, dotted, (size_t)(dot - dotted)));
			return k;
		}
	}
	if (level == 0) {
		bool found;
		fe_pymod *b = bundled_module(F, dotted, loc, &found);
		if (found) {
			if (!b)
				return NULL;
			const char *dot = strchr(dotted, '.');
			const char *first = fe_strndup(F, dotted, (size_t)(dot - dotted));
			*top = known_module(F, first);
			if (!*top)
				*top = host_module(F, first);
			return module_value_of(F, b);
		}
	}
	/* absolute imports find the program's modules beside the program
	 * (Python's sys.path[0]); relative ones beside the importing file */
	const char *dir = level ? relative_dir(F, level, loc) : dir_of(F, source_name(F, F->file));
	bool found;
	fe_pymod *tm;
	fe_pymod *m = *dotted ? find_dotted(F, dir, dotted, loc, &found, &tm) : NULL;
	if (*dotted && found) {
		if (!m)
			return NULL;
		*top = module_value_of(F, tm);
		return module_value_of(F, m);
	}
	if (level) {
		if (!*dotted) { /* from . import x: the directory is the package */
			const char *init = join(F, dir, "__init__", ".py");
			fe_pymod *pm = NULL;
			const char *key = real_path(F, dir);
			for (int i = 0; i < F->npymods && !pm; i++)
				if (F->pymods[i]->pkgdir &&
				    strcmp(real_path(F, F->pymods[i]->pkgdir), key) == 0)
					pm = F->pymods[i];
			if (!pm && is_file(init)) {
				pm = load(F, ".", init, dir, loc);
				if (!pm)
					return NULL;
			} else if (!pm) { /* a directory without __init__.py: a namespace package */
				pm = namespace_package(F, ".", dir);
			}
			return module_value_of(F, pm);
		}
		tlc_error(F->ctx, loc,
			  "no module named '%s' beside %s (no %s.py or %s/__init__.py in %s)",
			  dotted, source_name(F, loc.file), dotted, dotted, dir);
		return NULL;
	}
	/* not the program's: a host module, opaque; `import tilelang.testing`
	 * still binds the tilelang that tlc knows */
	const char *dot = strchr(dotted, '.');
	const char *first = dot ? fe_strndup(F, dotted, (size_t)(dot - dotted)) : dotted;
	*top = known_module(F, first);
	if (!*top)
		*top = host_module(F, first);
	return host_module(F, dotted);
}

fe_flow fe_exec_import(fe *F, fe_env *env, py_node *s)
{
	for (int i = 0; i < s->nnames; i++) {
		const char *full = s->names[i];
		fe_val *top;
		if (s->kind == PY_IMPORT) {
			fe_val *mod = import_module(F, full, 0, s->loc, &top);
			if (!mod)
				return FL_ERROR;
			/* `import a.b.c` binds `a`, `import a.b.c as x` the module a.b.c */
			if (s->asnames[i])
				fe_env_set(F, env, s->asnames[i], mod);
			else
				fe_env_set(F, env, top->u.s, top);
			continue;
		}
		const char *name = s->asnames[i] ? s->asnames[i] : full;
		fe_val *mod = import_module(F, s->str ? s->str : "", s->level, s->loc, &top);
		if (!mod)
			return FL_ERROR;
		if (strcmp(full, "*") == 0) {
			fe_pymod *pm = pymod_of(F, mod);
			if (pm) {
				if (!import_star(F, env, pm, s->loc))
					return FL_ERROR;
				continue;
			}
			/* the names of a module tlc understands are looked up in it
			 * when no variable has them (eval_name); a host module's
			 * names stay unknown: using one is the error, not the import */
			if (mod->kind == FV_MODULE && F->nstar < (int)TLC_ARRAY_LEN(F->star)) {
				F->star[F->nstar] = mod;
				F->star_env[F->nstar++] = root_env(env);
			}
			continue;
		}
		fe_val *v;
		if (mod->kind == FV_MODULE && mod->mod == FM_TILELANG &&
		    strcmp(full, "language") == 0)
			v = known_module(F, "tilelang.language");
		else if (mod->kind == FV_MODULE && mod->mod == FM_TILELANG &&
			 strcmp(full, "layout") == 0)
			v = known_module(F, "tilelang.layout");
		else if (mod->kind == FV_MODULE && mod->mod < FM_USER) {
			/* a name of a module tlc knows but does not model (a
			 * tilelang.layout helper of sparse gemms): refused where the
			 * program uses it, so that kernels which never do compile */
			tlc_diag_held held;
			tlc_diag_hold(F->ctx, &held);
			int errors0 = tlc_error_count(F->ctx);
			v = fe_getattr(F, mod, full, s->loc);
			bool refused = !v && !F->budget_hit && !F->too_many_errors &&
				       tlc_error_count(F->ctx) > errors0;
			const char *why = refused ? fe_first_error(F, &held.held) : NULL;
			tlc_diag_release(F->ctx, &held, !refused);
			if (refused) {
				fe_skip_import(F, env, name, s->loc, why);
				continue;
			}
		} else
			v = fe_getattr(F, mod, full, s->loc);
		if (!v)
			return FL_ERROR;
		fe_env_set(F, env, name, v);
	}
	return FL_NORMAL;
}
