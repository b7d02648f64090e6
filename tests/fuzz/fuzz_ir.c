/* fuzz_ir.c - libFuzzer harness: IR text (what --emit=ir prints) read back.
 *
 * What the parser accepts must print as text that parses back to the same
 * print (doc/ir.md: parse(print(ir)) is the identity; tests/roundtrip.sh
 * checks it on the examples), and the default pipeline over it must not
 * fail inside tlc.  The seeds are the --emit=ir output of examples/ and
 * tests/lit/ inputs, before and after the pipeline. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_init();
	return 0;
}

static char *print(tlc_module *m)
{
	tlc_buf out;
	tlc_buf_init(&out);
	tlc_print_module(&out, m);
	char *text = strdup(tlc_buf_str(&out));
	tlc_buf_free(&out);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *text = fuzz_text(data, size);
	fuzz_session s;
	if (fuzz_session_open(&s, "tlc.ini", fuzz_default_config()) != 0)
		fuzz_bug(&s, "the default configuration does not load", text, size);
	tlc_frontend_opts fe = {0};
	tlc_module *m = tlc_parse(s.ctx, "fuzz_ir.tl", text, size, &fe);
	if (tlc_had_internal_error(s.ctx))
		fuzz_bug(&s, "internal error in the frontend", text, size);
	if (m && tlc_error_count(s.ctx) == 0) {
		char *first = print(m);
		tlc_module *again = tlc_parse(s.ctx, "printed.tl", first, strlen(first), &fe);
		if (!again || tlc_error_count(s.ctx) > 0)
			fuzz_bug(&s, "the printed IR does not parse back", first, strlen(first));
		char *second = print(again);
		if (strcmp(first, second) != 0)
			fuzz_bug(&s, "the printed IR prints differently once read back", second,
			         strlen(second));
		free(first);
		free(second);
		tlc_module_free(again);
		fuzz_pipeline_and_emit(&s, m, "cuda-sm90", true, text, size);
	}
	tlc_module_free(m);
	fuzz_session_close(&s);
	free(text);
	return 0;
}
