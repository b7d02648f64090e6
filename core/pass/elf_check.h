/* elf_check.h - is a plugin file a shared object the dynamic loader can load
 * without crashing?  (libtlc-private; doc/security.md)
 *
 * dlopen() trusts the file's structure: a truncated or bit-flipped plugin
 * makes it read past the end of a mapping (SIGBUS), follow a wild pointer
 * (SIGSEGV) or fail one of its own assertions (SIGABRT), with no message.
 * tlc_elf_check reads the structures the loader reads, with the bounds the
 * loader assumes, before dlopen sees the file.  It cannot tell damaged
 * machine code or data from good ones: that is what a plugin is trusted for. */
#ifndef TLC_PASS_ELF_CHECK_H
#define TLC_PASS_ELF_CHECK_H

#include <stddef.h>

/* 0 when the file at path is an ELF shared object of this process's class,
 * byte order and machine whose headers, segments, sections and dynamic
 * tables lie inside the file and its image, and whose symbol entry_symbol
 * (when given and defined) is an exported function; else -1 and the reason,
 * one line, in why.  A file that cannot be opened, or is not a regular file,
 * passes: dlopen reports it in its own words. */
int tlc_elf_check(const char *path, const char *entry_symbol, char *why, size_t why_size);

#endif
