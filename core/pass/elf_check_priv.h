/* elf_check_priv.h - what elf_check.c and elf_check_dynamic.c share: the
 * running process's ELF flavour and the file being checked. */
#ifndef TLC_PASS_ELF_CHECK_PRIV_H
#define TLC_PASS_ELF_CHECK_PRIV_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Only files of the running process's class, byte order and machine can be
 * loaded, so only that flavour's structures are parsed. */
#if UINTPTR_MAX > 0xffffffffu
#define ELF_NATIVE_CLASS ELFCLASS64
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Shdr elf_shdr;
typedef Elf64_Dyn elf_dyn;
typedef Elf64_Sym elf_sym;
typedef Elf64_Rela elf_rela;
typedef Elf64_Rel elf_rel;
typedef Elf64_Addr elf_addr;
typedef Elf64_Verdef elf_verdef;
typedef Elf64_Verdaux elf_verdaux;
typedef Elf64_Verneed elf_verneed;
typedef Elf64_Vernaux elf_vernaux;
#define ELF_R_SYM(info) ELF64_R_SYM(info)
#define ELF_R_TYPE(info) ELF64_R_TYPE(info)
#define ELF_ST_TYPE(info) ELF64_ST_TYPE(info)
#define ELF_ST_BIND(info) ELF64_ST_BIND(info)
#define ELF_ST_VISIBILITY(other) ELF64_ST_VISIBILITY(other)
#else
#define ELF_NATIVE_CLASS ELFCLASS32
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Shdr elf_shdr;
typedef Elf32_Dyn elf_dyn;
typedef Elf32_Sym elf_sym;
typedef Elf32_Rela elf_rela;
typedef Elf32_Rel elf_rel;
typedef Elf32_Addr elf_addr;
typedef Elf32_Verdef elf_verdef;
typedef Elf32_Verdaux elf_verdaux;
typedef Elf32_Verneed elf_verneed;
typedef Elf32_Vernaux elf_vernaux;
#define ELF_R_SYM(info) ELF32_R_SYM(info)
#define ELF_R_TYPE(info) ELF32_R_TYPE(info)
#define ELF_ST_TYPE(info) ELF32_ST_TYPE(info)
#define ELF_ST_BIND(info) ELF32_ST_BIND(info)
#define ELF_ST_VISIBILITY(other) ELF32_ST_VISIBILITY(other)
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_NATIVE_DATA ELFDATA2LSB
#else
#define ELF_NATIVE_DATA ELFDATA2MSB
#endif

/* 0 where tlc does not know the machine's number: the check is skipped. */
#if defined(__x86_64__)
#define ELF_NATIVE_MACHINE EM_X86_64
#elif defined(__i386__)
#define ELF_NATIVE_MACHINE EM_386
#elif defined(__aarch64__)
#define ELF_NATIVE_MACHINE EM_AARCH64
#elif defined(__arm__)
#define ELF_NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define ELF_NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define ELF_NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define ELF_NATIVE_MACHINE EM_S390
#else
#define ELF_NATIVE_MACHINE 0
#endif

/* The relocation format glibc asserts for DT_PLTREL (0: either). */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) || defined(__powerpc64__) || \
	defined(__s390x__)
#define ELF_NATIVE_PLTREL DT_RELA
#elif defined(__i386__) || defined(__arm__)
#define ELF_NATIVE_PLTREL DT_REL
#else
#define ELF_NATIVE_PLTREL 0
#endif

/* The relative relocation (base + addend), 0 where tlc does not know it:
 * glibc asserts that the first DT_RELACOUNT relocations are of this type. */
#if defined(__x86_64__)
#define ELF_NATIVE_RELATIVE R_X86_64_RELATIVE
#elif defined(__aarch64__)
#define ELF_NATIVE_RELATIVE R_AARCH64_RELATIVE
#elif defined(__i386__)
#define ELF_NATIVE_RELATIVE R_386_RELATIVE
#elif defined(__arm__)
#define ELF_NATIVE_RELATIVE R_ARM_RELATIVE
#elif defined(__riscv)
#define ELF_NATIVE_RELATIVE R_RISCV_RELATIVE
#elif defined(__powerpc64__)
#define ELF_NATIVE_RELATIVE R_PPC64_RELATIVE
#elif defined(__s390x__)
#define ELF_NATIVE_RELATIVE R_390_RELATIVE
#else
#define ELF_NATIVE_RELATIVE 0
#endif

/* The relocation that calls a resolver function at base + addend (0: none
 * known): its addend is code. */
#if defined(__x86_64__)
#define ELF_NATIVE_IRELATIVE R_X86_64_IRELATIVE
#elif defined(__aarch64__)
#define ELF_NATIVE_IRELATIVE R_AARCH64_IRELATIVE
#else
#define ELF_NATIVE_IRELATIVE 0
#endif

typedef struct elf_file {
	int fd;
	uint64_t size; /* of the file, in bytes */
	elf_ehdr eh;
	elf_phdr *ph;              /* eh.e_phnum entries, once read */
	unsigned char **seg_bytes; /* the file bytes of PT_LOAD ph[i], read on demand */
	uint64_t image_start, image_end; /* the addresses the PT_LOAD segments span */
	const char *entry_symbol;  /* must be a function when the file defines it */
	char *why;                 /* the reason of a failure */
	size_t why_size;
} elf_file;

/* Write the reason into f->why; returns -1. */
int elf_fail(elf_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* [off, off + len) lies inside [0, limit), without overflow. */
bool elf_inside(uint64_t off, uint64_t len, uint64_t limit);

/* The PT_LOAD whose memory (file bytes and zero fill) holds [vaddr, vaddr +
 * len) and has all of flags (PF_W, PF_X), or NULL. */
const elf_phdr *elf_load_holding(const elf_file *f, uint64_t vaddr, uint64_t len,
                                 uint32_t flags);

/* The file bytes the loader maps at [vaddr, vaddr + len): a table the loader
 * reads through the image.  NULL, with the reason set, when no PT_LOAD holds
 * them from the file. */
const unsigned char *elf_image(elf_file *f, uint64_t vaddr, uint64_t len, const char *what);

/* ---- the dynamic section (elf_check_dynamic.c, elf_check_reloc.c) ---- */

/* The dynamic entries the loader relies on, by our own index. */
enum elf_dyn_entry {
	D_STRTAB, D_STRSZ, D_SYMTAB, D_SYMENT, D_HASH, D_GNU_HASH,
	D_RELA, D_RELASZ, D_RELAENT, D_REL, D_RELSZ, D_RELENT,
	D_JMPREL, D_PLTRELSZ, D_PLTREL, D_RELR, D_RELRSZ, D_RELRENT,
	D_RELACOUNT, D_RELCOUNT,
	D_INIT, D_FINI, D_INIT_ARRAY, D_INIT_ARRAYSZ, D_FINI_ARRAY, D_FINI_ARRAYSZ,
	D_VERSYM, D_VERDEF, D_VERNEED, D_FLAGS, D_TEXTREL,
	D_COUNT
};

typedef struct elf_dyn_info {
	bool seen[D_COUNT];
	uint64_t val[D_COUNT];
	const unsigned char *entries; /* the dynamic section, in the image */
	uint64_t nentries;            /* before DT_NULL */
	const char *strtab;
	uint64_t strsz;
	uint64_t nsyms;       /* symbols the hash tables reach (all checked) */
	unsigned max_version; /* the highest version index defined or needed */
} elf_dyn_info;

/* The dynamic section and the tables it points to. */
int elf_check_dynamic(elf_file *f);

/* Symbol i as the loader reads it: entry, name, version, value. */
int elf_check_symbol(elf_file *f, const elf_dyn_info *d, uint64_t i);

/* The relocations, and the functions dlopen calls (elf_check_reloc.c). */
int elf_check_relocations(elf_file *f, const elf_dyn_info *d);

#endif
