/* device_text.c - the device helper headers (the .cuh files in backends/cuda/device/)
 * compiled into the plugin, so that the generated .cu can be self-contained
 * without tlc knowing where its source tree is at run time. */
#include <stddef.h>
#include <string.h>

#include "cuda_emit.h"
/* generated in the build tree by scripts/embed.sh (see Makefile.am) */
#include "backends/cuda/device_sources.h"

const char *cuda_device_text(const char *name)
{
	return gpu_device_text(tlc_device_sources, sizeof tlc_device_sources / sizeof tlc_device_sources[0], name);
}
