/* pipeline.h - shared parts of the software-pipelining passes
 * (pipeline-planning, inject-pipeline). */
#ifndef TLC_PIPELINE_H
#define TLC_PIPELINE_H

#include <tlc/pass.h>
#include <tlc/walk.h>

/* The body of a loop as a block (a single statement is wrapped in one). */
tlc_stmt *pl_body_seq(tlc_module *m, tlc_stmt *loop);
/* s is a T.copy; its source and destination buffers (false otherwise). */
bool pl_copy_sides(const tlc_stmt *s, const tlc_buffer **src, const tlc_buffer **dst);


/* ---- versions.c: multi-versioned shared buffers ---- */

#define PL_MAX_VERSIONED 32

typedef struct pl_versioned {
	const tlc_buffer *from;
	tlc_buffer *to; /* with the leading dimension of versions (pl_make_versions) */
	int64_t versions;
} pl_versioned;

typedef struct pl_versions {
	tlc_module *m;
	int n;
	pl_versioned ver[PL_MAX_VERSIONED];
	const tlc_expr *iter; /* the iteration (from 0) whose versions the rewriter uses */
} pl_versions;

pl_versioned *pl_version_of(pl_versions *v, const tlc_buffer *b);
/* Ask for `versions` versions of b (the most asked for wins); false when
 * the table is full. */
bool pl_add_version(pl_versions *v, const tlc_buffer *b, int64_t versions);
/* Make the versioned buffers and declare them in f in place of the
 * originals; false (and *outside) when a buffer is used outside `loop`. */
bool pl_make_versions(pl_versions *v, tlc_func *f, const tlc_stmt *loop, const tlc_buffer **outside);
/* Hook rw up to rewrite accesses into those of iteration v->iter. */
void pl_version_rewriter(tlc_rewriter *rw, pl_versions *v);

/* thread_split.c: the branches of an `if` on the thread index as T.ws scopes */
int pl_run_thread_split(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
int pl_run_planning(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
int pl_run_warp_specialize(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
int pl_run_inject(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
int pl_run_stage_outputs(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);

#endif
