/* device_text.c - the hip plugin's device helpers (backends/hip/device/)
 * compiled into the plugin, so that a generated .hip is self-contained. */
#include "hip_emit.h"
/* generated in the build tree by scripts/embed.sh (see Makefile.am) */
#include "backends/hip/device_sources.h"

const char *hip_device_text(const char *name)
{
	return gpu_device_text(tlc_device_sources, sizeof tlc_device_sources / sizeof tlc_device_sources[0], name);
}
