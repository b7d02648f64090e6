/* plugin.c - loading plugins (dlopen) and the registry of passes, targets
 * and ops they fill.
 *
 * Every failure to load is one line naming the file and the reason, and
 * leaves the context as it was: a plugin whose init fails is unloaded and
 * whatever it registered is removed again. */
#include "internal.h"

#include "pass/elf_check.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tlc_loc no_loc;

/* Grow an array of `size`-byte items to hold at least n + 1 of them. */
static void *grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 8;
	return tlc_xrealloc(p, (size_t)*cap * size);
}

/* ---- registry ---- */

tlc_context *tlc_registry_context(tlc_registry *reg)
{
	return reg->ctx;
}

/* The name of the loaded plugin whose shared object holds address p: the
 * owner of a descriptor, for messages about duplicates. */
static const char *plugin_owning(const tlc_context *ctx, const void *p)
{
	Dl_info want, have;
	if (!dladdr(p, &want))
		return "tlc";
	for (int i = 0; i < ctx->nplugins; i++) {
		void *entry = dlsym(ctx->plugins[i].handle, TLC_PLUGIN_SYMBOL);
		if (entry && dladdr(entry, &have) && have.dli_fbase == want.dli_fbase)
			return ctx->plugins[i].desc->name;
	}
	return "tlc";
}

/* The name of the plugin being initialised (for pass_plugin). */
static const char *current_plugin_name(const tlc_registry *reg)
{
	const tlc_context *ctx = reg->ctx;
	if (reg->plugin_path && ctx->nplugins > 0)
		return ctx->plugins[ctx->nplugins - 1].desc->name;
	return "tlc";
}

int tlc_register_pass(tlc_registry *reg, const tlc_pass_desc *pass)
{
	tlc_context *ctx = reg->ctx;
	const char *who = reg->plugin_path ? reg->plugin_path : "tlc";
	if (!pass || !pass->name || !*pass->name || !pass->run) {
		tlc_error(ctx, no_loc, "plugin '%s': a pass without a name or run function", who);
		return -1;
	}
	for (int i = 0; i < ctx->npasses; i++) {
		if (strcmp(ctx->passes[i]->name, pass->name) == 0) {
			tlc_error(ctx, no_loc, "plugin '%s': pass '%s' is already registered by plugin '%s'",
			          who, pass->name, ctx->pass_plugin[i]);
			return -1;
		}
	}
	if (ctx->npasses == ctx->cap_passes) {
		ctx->cap_passes = ctx->cap_passes ? ctx->cap_passes * 2 : 8;
		size_t n = (size_t)ctx->cap_passes;
		ctx->passes = tlc_xrealloc(ctx->passes, n * sizeof(*ctx->passes));
		ctx->pass_plugin = tlc_xrealloc(ctx->pass_plugin, n * sizeof(*ctx->pass_plugin));
	}
	ctx->passes[ctx->npasses] = pass;
	ctx->pass_plugin[ctx->npasses] = current_plugin_name(reg);
	ctx->npasses++;
	return 0;
}

int tlc_register_target(tlc_registry *reg, const tlc_target_desc *target)
{
	tlc_context *ctx = reg->ctx;
	const char *who = reg->plugin_path ? reg->plugin_path : "tlc";
	if (!target || !target->name || !*target->name || !target->emit) {
		tlc_error(ctx, no_loc, "plugin '%s': a target without a name or emit function", who);
		return -1;
	}
	const tlc_target_info *info = target->info;
	const char *bad = !info ? "no machine description (tlc_target_info)"
	                  : info->struct_size < offsetof(tlc_target_info, matrix) + sizeof(info->matrix)
	                      ? "a machine description older than this tlc"
	                  : tlc_target_info_check(info);
	if (bad) {
		tlc_error(ctx, no_loc, "plugin '%s': target '%s' has %s", who, target->name, bad);
		return -1;
	}
	for (int i = 0; i < ctx->ntargets; i++) {
		if (strcmp(ctx->targets[i]->name, target->name) == 0) {
			tlc_error(ctx, no_loc,
			          "plugin '%s': target '%s' is already registered by plugin '%s'", who,
			          target->name, plugin_owning(ctx, ctx->targets[i]));
			return -1;
		}
	}
	ctx->targets = grow(ctx->targets, ctx->ntargets, &ctx->cap_targets, sizeof(*ctx->targets));
	ctx->targets[ctx->ntargets++] = target;
	return 0;
}

tlc_op_id tlc_register_op(tlc_registry *reg, const char *name, int min_args, int max_args,
                          unsigned flags)
{
	tlc_op_id id = tlc_context_add_op(reg->ctx, name, min_args, max_args, flags);
	if (id < 0)
		tlc_error(reg->ctx, no_loc, "plugin '%s': op 'T.%s' %s",
		          reg->plugin_path ? reg->plugin_path : "tlc", name ? name : "",
		          name && *name ? "is already defined" : "has no name");
	return id;
}

const tlc_pass_desc *tlc_find_pass(const tlc_context *ctx, const char *name)
{
	for (int i = 0; name && i < ctx->npasses; i++)
		if (strcmp(ctx->passes[i]->name, name) == 0)
			return ctx->passes[i];
	return NULL;
}

const tlc_target_desc *tlc_find_target(const tlc_context *ctx, const char *name)
{
	for (int i = 0; name && i < ctx->ntargets; i++)
		if (strcmp(ctx->targets[i]->name, name) == 0)
			return ctx->targets[i];
	return NULL;
}

const tlc_pass_desc *tlc_pass_at(const tlc_context *ctx, int i)
{
	return i >= 0 && i < ctx->npasses ? ctx->passes[i] : NULL;
}

const tlc_target_desc *tlc_target_at(const tlc_context *ctx, int i)
{
	return i >= 0 && i < ctx->ntargets ? ctx->targets[i] : NULL;
}

/* ---- loading one file ---- */

/* Undo what a failed init registered: everything past the given counts. */
static void roll_back(tlc_context *ctx, int npasses, int ntargets, int nops)
{
	ctx->npasses = npasses;
	ctx->ntargets = ntargets;
	for (int i = nops; i < ctx->nops; i++)
		free((char *)ctx->ops[i].name);
	ctx->nops = nops;
}

/* Check the descriptor; reports and returns -1 when it cannot be used. */
static int check_desc(tlc_context *ctx, const char *path, const tlc_plugin_desc *d)
{
	const size_t need = offsetof(tlc_plugin_desc, init) + sizeof(d->init);
	if (!d) {
		tlc_error(ctx, no_loc, "plugin '%s': the entry point returned no descriptor", path);
		return -1;
	}
	if (d->abi_version != TLC_PLUGIN_ABI_VERSION) {
		tlc_error(ctx, no_loc, "plugin '%s': ABI version %u, this tlc needs %d%s", path,
		          (unsigned)d->abi_version, TLC_PLUGIN_ABI_VERSION,
		          d->abi_version < TLC_PLUGIN_ABI_VERSION ? " (rebuild the plugin against this tlc's headers)" : "");
		return -1;
	}
	if (d->struct_size < need) {
		tlc_error(ctx, no_loc, "plugin '%s': descriptor is %u bytes, this tlc needs at least %zu",
		          path, (unsigned)d->struct_size, need);
		return -1;
	}
	if (!d->name || !*d->name) {
		tlc_error(ctx, no_loc, "plugin '%s': the descriptor has no name", path);
		return -1;
	}
	for (int i = 0; i < ctx->nplugins; i++) {
		if (strcmp(ctx->plugins[i].desc->name, d->name) == 0) {
			tlc_error(ctx, no_loc, "plugin '%s': a plugin named '%s' is already loaded from '%s'",
			          path, d->name, ctx->plugins[i].path);
			return -1;
		}
	}
	return 0;
}

/* Run the plugin's init; on failure unload it and undo its registrations. */
static int init_plugin(tlc_context *ctx, const char *path, void *handle, const tlc_plugin_desc *d)
{
	int npasses = ctx->npasses, ntargets = ctx->ntargets, nops = ctx->nops;
	int nerrors = ctx->nerrors;
	ctx->plugins = grow(ctx->plugins, ctx->nplugins, &ctx->cap_plugins, sizeof(*ctx->plugins));
	tlc_loaded_plugin *p = &ctx->plugins[ctx->nplugins++];
	p->path = tlc_xstrdup(path);
	p->handle = handle;
	p->desc = d;
	tlc_registry reg = {ctx, path};
	int rc = d->init ? d->init(&reg) : 0;
	if (rc == 0 && ctx->nerrors == nerrors)
		return 0;
	if (ctx->nerrors == nerrors)
		tlc_error(ctx, no_loc, "plugin '%s': initialisation failed", path);
	roll_back(ctx, npasses, ntargets, nops);
	ctx->nplugins--;
	free(p->path);
	dlclose(handle);
	return -1;
}

int tlc_plugin_load_file(tlc_context *ctx, const char *path)
{
	/* the same path loaded twice (INI and --load, a repeated `load` line) is
	 * loaded once: no need to read the file again */
	for (int i = 0; i < ctx->nplugins; i++)
		if (strcmp(ctx->plugins[i].path, path) == 0)
			return 0;
	/* dlopen of a truncated or damaged file crashes inside the loader: check
	 * the structures it trusts first (doc/security.md) */
	char damage[256];
	if (tlc_elf_check(path, TLC_PLUGIN_SYMBOL, damage, sizeof(damage)) != 0) {
		tlc_error(ctx, no_loc, "plugin '%s': not a loadable shared object: %s", path, damage);
		return -1;
	}
	dlerror();
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();
		tlc_error(ctx, no_loc, "plugin '%s': cannot load: %s", path, why ? why : "unknown error");
		return -1;
	}
	/* the same file loaded twice (INI and --load) is loaded once */
	for (int i = 0; i < ctx->nplugins; i++) {
		if (ctx->plugins[i].handle == handle) {
			dlclose(handle);
			return 0;
		}
	}
	tlc_plugin_entry_fn entry;
	*(void **)&entry = dlsym(handle, TLC_PLUGIN_SYMBOL);
	if (!entry) {
		tlc_error(ctx, no_loc, "plugin '%s': no entry symbol '%s' (not a tlc plugin?)", path,
		          TLC_PLUGIN_SYMBOL);
		dlclose(handle);
		return -1;
	}
	const tlc_plugin_desc *d = entry();
	if (check_desc(ctx, path, d) != 0) {
		dlclose(handle);
		return -1;
	}
	return init_plugin(ctx, path, handle, d);
}

/* ---- the search path ---- */

/* A list of directories without duplicates. */
typedef struct dir_list {
	int n, cap;
	char **dirs;
} dir_list;

static void dirs_add(dir_list *l, const char *dir, size_t len)
{
	if (len == 0)
		return;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (int i = 0; i < l->n; i++)
		if (strlen(l->dirs[i]) == len && strncmp(l->dirs[i], dir, len) == 0)
			return;
	l->dirs = grow(l->dirs, l->n, &l->cap, sizeof(*l->dirs));
	char *s = tlc_xmalloc(len + 1);
	memcpy(s, dir, len);
	s[len] = '\0';
	l->dirs[l->n++] = s;
}

static void dirs_free(dir_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->dirs[i]);
	free(l->dirs);
}

/* The directory holding the running libtlc.so (resolved), or "" if unknown.
 * Found through dladdr on one of its own functions, so that an installed
 * tree can be moved as a whole.  Also used by config.c. */
TLC_HIDDEN void tlc_libtlc_dir(char *out, size_t size);
void tlc_libtlc_dir(char *out, size_t size)
{
	Dl_info info;
	char real[PATH_MAX];
	out[0] = '\0';
	if (!dladdr((void *)tlc_libtlc_dir, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
		return;
	if (!realpath(info.dli_fname, real))
		return;
	char *slash = strrchr(real, '/');
	*slash = '\0';
	snprintf(out, size, "%s", real[0] ? real : "/");
}

static void search_dirs(dir_list *l, int ndirs, const char *const *dirs)
{
	for (int i = 0; i < ndirs; i++)
		dirs_add(l, dirs[i], strlen(dirs[i]));
	const char *env = getenv("TLC_PLUGIN_PATH");
	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t len = colon ? (size_t)(colon - env) : strlen(env);
		dirs_add(l, env, len);
		env = colon ? colon + 1 : NULL;
	}
	char lib[PATH_MAX];
	tlc_libtlc_dir(lib, sizeof(lib));
	if (lib[0]) {
		char dir[PATH_MAX + 16];
		snprintf(dir, sizeof(dir), "%s/tlc/plugins", lib);
		dirs_add(l, dir, strlen(dir));
	}
	dirs_add(l, TLC_PLUGINDIR, strlen(TLC_PLUGINDIR));
}

void tlc_plugin_search_path(tlc_buf *out, int ndirs, const char *const *dirs)
{
	dir_list l = {0};
	search_dirs(&l, ndirs, dirs);
	for (int i = 0; i < l.n; i++)
		tlc_buf_printf(out, "%s\n", l.dirs[i]);
	dirs_free(&l);
}

int tlc_plugin_load(tlc_context *ctx, const char *name_or_path, int ndirs, const char *const *dirs)
{
	if (!name_or_path || !*name_or_path) {
		tlc_error(ctx, no_loc, "empty plugin name");
		return -1;
	}
	if (strchr(name_or_path, '/'))
		return tlc_plugin_load_file(ctx, name_or_path);
	dir_list l = {0};
	search_dirs(&l, ndirs, dirs);
	tlc_buf path, tried;
	tlc_buf_init(&path);
	tlc_buf_init(&tried);
	int rc = -2;
	for (int i = 0; i < l.n && rc == -2; i++) {
		path.len = 0;
		tlc_buf_printf(&path, "%s/%s.so", l.dirs[i], name_or_path);
		if (access(tlc_buf_str(&path), F_OK) == 0)
			rc = tlc_plugin_load_file(ctx, tlc_buf_str(&path));
		tlc_buf_printf(&tried, "%s%s", i ? ", " : "", l.dirs[i]);
	}
	if (rc == -2) {
		tlc_error(ctx, no_loc, "plugin '%s' not found (looked for %s.so in: %s)", name_or_path,
		          name_or_path, tried.len ? tlc_buf_str(&tried) : "no directories");
		rc = -1;
	}
	tlc_buf_free(&path);
	tlc_buf_free(&tried);
	dirs_free(&l);
	return rc;
}

const tlc_plugin_desc *tlc_plugin_at(const tlc_context *ctx, int i, const char **path)
{
	if (i < 0 || i >= ctx->nplugins)
		return NULL;
	if (path)
		*path = ctx->plugins[i].path;
	return ctx->plugins[i].desc;
}

const char *tlc_pass_plugin_at(const tlc_context *ctx, int i)
{
	return i >= 0 && i < ctx->npasses ? ctx->pass_plugin[i] : NULL;
}
