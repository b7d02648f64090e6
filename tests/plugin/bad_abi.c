/* bad_abi.c - a plugin built for a future ABI: loading it must fail with
 * "ABI version 99, this tlc needs <the current one>" and must not call init. */
#include <tlc/plugin.h>

#include <stdlib.h>

static int bad_abi_init(tlc_registry *reg)
{
	(void)reg;
	abort(); /* never reached: the ABI check comes first */
}

static const tlc_plugin_desc bad_abi_plugin = {
	.abi_version = 99,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "bad_abi",
	.version = "0",
	.description = "test plugin with a wrong ABI version",
	.init = bad_abi_init,
};

TLC_DEFINE_PLUGIN(bad_abi_plugin)
