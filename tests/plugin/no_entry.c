/* no_entry.c - a shared object that is not a tlc plugin: it exports a
 * function but not tlc_plugin_entry_v1. */
__attribute__((visibility("default"))) int not_a_tlc_plugin(void);
int not_a_tlc_plugin(void)
{
	return 42;
}
