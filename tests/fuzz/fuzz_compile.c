/* fuzz_compile.c - libFuzzer harness: kernel source -> the default pipeline
 * -> CUDA text, through the libtlc API and the plugins, as `tlc --emit=cu`.
 *
 * An input may start with a line "#entry=CALL" (the --entry of tlc, for
 * kernels made by a Python function: "#entry=matmul(256, 256, 256)"); the
 * seeds made from examples/ and tests/lit/ carry theirs.  A source whose
 * length is 3 modulo 4 is compiled for cuda-sm80, the others for the default
 * target. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *text = fuzz_text(data, size);
	const char *source = text, *entry = NULL;
	if (strncmp(text, "#entry=", 7) == 0) {
		char *nl = strchr(text, '\n');
		if (nl) {
			*nl = '\0';
			entry = text + 7;
			source = nl + 1;
		}
	}
	size_t len = size - (size_t)(source - text);
	fuzz_session s;
	if (fuzz_session_open(&s, "tlc.ini", fuzz_default_config()) != 0)
		fuzz_bug(&s, "the default configuration does not load", text, size);
	tlc_frontend_opts fe = {.entry = entry};
	tlc_module *m = tlc_parse(s.ctx, "fuzz.tl", source, len, &fe);
	if (tlc_had_internal_error(s.ctx))
		fuzz_bug(&s, "internal error in the frontend", text, size);
	if (m && tlc_error_count(s.ctx) == 0) {
		const char *target = len % 4 == 3 ? "cuda-sm80"
		                     : tlc_config_default_target(s.cfg) ? tlc_config_default_target(s.cfg)
		                                                        : "cuda-sm90";
		fuzz_pipeline_and_emit(&s, m, target, true, text, size);
	}
	tlc_module_free(m);
	fuzz_session_close(&s);
	free(text);
	return 0;
}
