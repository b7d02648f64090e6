/* context.c - the compile session: source files, the op table, cleanup of
 * loaded plugins. */
#include "internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static const tlc_op_info builtin_ops[] = {
#define OP(e, name, mina, maxa, flags) {name, mina, maxa, flags},
#include <tlc/ops.def>
#undef OP
};

tlc_context *tlc_context_new(void)
{
	tlc_context *ctx = tlc_xcalloc(1, sizeof(*ctx));
	ctx->caret = true;
	/* file index 0 means "no file" */
	ctx->cap_sources = 8;
	ctx->sources = tlc_xcalloc((size_t)ctx->cap_sources, sizeof(tlc_source));
	ctx->nsources = 1;
	ctx->cap_ops = (int)TLC_ARRAY_LEN(builtin_ops) + 16;
	ctx->ops = tlc_xcalloc((size_t)ctx->cap_ops, sizeof(tlc_op_info));
	memcpy(ctx->ops, builtin_ops, sizeof(builtin_ops));
	ctx->nops = (int)TLC_ARRAY_LEN(builtin_ops);
	return ctx;
}

void tlc_context_free(tlc_context *ctx)
{
	if (!ctx)
		return;
	for (int i = 1; i < ctx->nsources; i++) {
		free(ctx->sources[i].name);
		free(ctx->sources[i].text);
		free(ctx->sources[i].line_starts);
	}
	free(ctx->sources);
	for (int i = 0; i < ctx->nseen; i++)
		free(ctx->seen[i]);
	free(ctx->seen);
	/* names of plugin-registered ops are owned by the context */
	for (int i = TLC_OP_BUILTIN_COUNT; i < ctx->nops; i++)
		free((char *)ctx->ops[i].name);
	free(ctx->ops);
	free(ctx->passes);
	free(ctx->pass_plugin);
	free(ctx->targets);
	/* descriptors live in the plugins: unload them last, newest first */
	for (int i = ctx->nplugins - 1; i >= 0; i--) {
		if (ctx->plugins[i].handle)
			dlclose(ctx->plugins[i].handle);
		free(ctx->plugins[i].path);
	}
	free(ctx->plugins);
	free(ctx);
}

uint32_t tlc_add_source(tlc_context *ctx, const char *name, const char *text, size_t len)
{
	if (ctx->nsources == ctx->cap_sources) {
		ctx->cap_sources *= 2;
		ctx->sources = tlc_xrealloc(ctx->sources, (size_t)ctx->cap_sources * sizeof(tlc_source));
	}
	tlc_source *s = &ctx->sources[ctx->nsources];
	s->name = tlc_xstrdup(name ? name : "<input>");
	s->text = tlc_xmalloc(len + 1);
	if (len)
		memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->len = len;
	s->line_starts = NULL;
	s->nlines = 0;
	return (uint32_t)ctx->nsources++;
}

tlc_op_id tlc_op_lookup(const tlc_context *ctx, const char *name)
{
	if (!ctx || !name)
		return -1;
	for (int i = 0; i < ctx->nops; i++)
		if (strcmp(ctx->ops[i].name, name) == 0)
			return i;
	return -1;
}

const tlc_op_info *tlc_op_get(const tlc_context *ctx, tlc_op_id op)
{
	if (!ctx || op < 0 || op >= ctx->nops)
		return NULL;
	return &ctx->ops[op];
}

tlc_op_id tlc_context_add_op(tlc_context *ctx, const char *name, int min_args, int max_args,
                             unsigned flags)
{
	if (!name || !*name || tlc_op_lookup(ctx, name) >= 0)
		return -1;
	if (ctx->nops == ctx->cap_ops) {
		ctx->cap_ops *= 2;
		ctx->ops = tlc_xrealloc(ctx->ops, (size_t)ctx->cap_ops * sizeof(tlc_op_info));
	}
	tlc_op_info *o = &ctx->ops[ctx->nops];
	o->name = tlc_xstrdup(name);
	o->min_args = min_args;
	o->max_args = max_args;
	o->flags = flags;
	return ctx->nops++;
}
