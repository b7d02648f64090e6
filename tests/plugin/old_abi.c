/* old_abi.c - a plugin built for the previous ABI (1, before target
 * descriptions): loading it must fail with one line that says to rebuild it,
 * and must not call init. */
#include <tlc/plugin.h>

#include <stdlib.h>

static int old_abi_init(tlc_registry *reg)
{
	(void)reg;
	abort(); /* never reached: the ABI check comes first */
}

static const tlc_plugin_desc old_abi_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION - 1,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "old_abi",
	.version = "0",
	.description = "test plugin built for the previous ABI version",
	.init = old_abi_init,
};

TLC_DEFINE_PLUGIN(old_abi_plugin)
