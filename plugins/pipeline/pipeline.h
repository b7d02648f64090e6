/* pipeline.h - shared parts of the software-pipelining passes
 * (pipeline-planning, inject-pipeline). */
#ifndef TLC_PIPELINE_H
#define TLC_PIPELINE_H

#include <tlc/pass.h>

/* The body of a loop as a block (a single statement is wrapped in one). */
tlc_stmt *pl_body_seq(tlc_module *m, tlc_stmt *loop);
/* s is a T.copy; its source and destination buffers (false otherwise). */
bool pl_copy_sides(const tlc_stmt *s, const tlc_buffer **src, const tlc_buffer **dst);

int pl_run_planning(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
int pl_run_inject(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);

#endif
