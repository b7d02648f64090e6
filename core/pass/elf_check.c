/* elf_check.c - check a plugin file's ELF structure before dlopen (see
 * elf_check.h for why).
 *
 * The checks follow what glibc's loader does with the file, in its order:
 * it reads the ELF header and the program headers, maps every PT_LOAD
 * segment from the file (a range past the end of the file is SIGBUS on
 * first touch), then reads the dynamic section and the tables it points to
 * through the mapped image, trusting every address, size and index
 * (elf_check_dynamic.c).  Only the running process's own ELF flavour is
 * parsed: anything else is refused at the header. */
#include "internal.h"

#include "pass/elf_check.h"
#include "pass/elf_check_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int elf_fail(elf_file *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->why, f->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

bool elf_inside(uint64_t off, uint64_t len, uint64_t limit)
{
	return off <= limit && len <= limit - off;
}

/* Read exactly len bytes at off (the caller checked the range). */
static int read_at(elf_file *f, void *buf, uint64_t len, uint64_t off)
{
	unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = pread(f->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return elf_fail(f, "cannot read %" PRIu64 " bytes at offset 0x%" PRIx64 ": %s", len,
			                off, n < 0 ? strerror(errno) : "the file is shorter than it was");
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

static const char *segment_type_name(uint32_t type)
{
	switch (type) {
	case PT_LOAD: return "PT_LOAD";
	case PT_DYNAMIC: return "PT_DYNAMIC";
	case PT_INTERP: return "PT_INTERP";
	case PT_NOTE: return "PT_NOTE";
	case PT_PHDR: return "PT_PHDR";
	case PT_TLS: return "PT_TLS";
	case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
	case PT_GNU_STACK: return "PT_GNU_STACK";
	case PT_GNU_RELRO: return "PT_GNU_RELRO";
	case PT_GNU_PROPERTY: return "PT_GNU_PROPERTY";
	default: return "other";
	}
}

/* ---- the image: PT_LOAD segments as the loader maps them ---- */

const elf_phdr *elf_load_holding(const elf_file *f, uint64_t vaddr, uint64_t len,
                                 uint32_t flags)
{
	for (int i = 0; i < f->eh.e_phnum; i++) {
		const elf_phdr *p = &f->ph[i];
		if (p->p_type == PT_LOAD && (p->p_flags & flags) == flags && vaddr >= p->p_vaddr &&
		    elf_inside(vaddr - p->p_vaddr, len, p->p_memsz))
			return p;
	}
	return NULL;
}

const unsigned char *elf_image(elf_file *f, uint64_t vaddr, uint64_t len, const char *what)
{
	for (int i = 0; i < f->eh.e_phnum; i++) {
		const elf_phdr *p = &f->ph[i];
		/* the loader reads these bytes: they must be mapped readable */
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_R) || vaddr < p->p_vaddr ||
		    !elf_inside(vaddr - p->p_vaddr, len, p->p_filesz))
			continue;
		if (!f->seg_bytes[i]) {
			/* p_filesz <= the file's size: checked with the program headers */
			f->seg_bytes[i] = tlc_xmalloc(p->p_filesz);
			if (read_at(f, f->seg_bytes[i], p->p_filesz, p->p_offset) != 0)
				return NULL;
		}
		return f->seg_bytes[i] + (vaddr - p->p_vaddr);
	}
	elf_fail(f, "%s (%" PRIu64 " bytes at address 0x%" PRIx64 ") is not inside a readable "
	            "loaded segment",
	         what, len, vaddr);
	return NULL;
}

/* ---- the ELF header ---- */

static const char *class_name(unsigned c)
{
	return c == ELFCLASS32 ? "32-bit" : c == ELFCLASS64 ? "64-bit" : "invalid";
}

static const char *data_name(unsigned d)
{
	return d == ELFDATA2LSB ? "little-endian" : d == ELFDATA2MSB ? "big-endian" : "invalid";
}

static int check_header(elf_file *f)
{
	unsigned char ident[EI_NIDENT];
	if (f->size < EI_NIDENT)
		return elf_fail(f, "the file is %" PRIu64 " bytes, too short for an ELF header", f->size);
	if (read_at(f, ident, EI_NIDENT, 0) != 0)
		return -1;
	if (memcmp(ident, ELFMAG, SELFMAG) != 0)
		return elf_fail(f, "no ELF magic number at the start (not an ELF file)");
	if (ident[EI_CLASS] != ELF_NATIVE_CLASS)
		return elf_fail(f, "ELF class %u (%s), this tlc is %s", ident[EI_CLASS],
		                class_name(ident[EI_CLASS]), class_name(ELF_NATIVE_CLASS));
	if (ident[EI_DATA] != ELF_NATIVE_DATA)
		return elf_fail(f, "ELF byte order %u (%s), this tlc is %s", ident[EI_DATA],
		                data_name(ident[EI_DATA]), data_name(ELF_NATIVE_DATA));
	if (ident[EI_VERSION] != EV_CURRENT)
		return elf_fail(f, "ELF identification version %u (expected %u)", ident[EI_VERSION],
		                EV_CURRENT);
	if (f->size < sizeof(f->eh))
		return elf_fail(f, "the file is %" PRIu64 " bytes, too short for an ELF header (%zu)",
		                f->size, sizeof(f->eh));
	if (read_at(f, &f->eh, sizeof(f->eh), 0) != 0)
		return -1;
	if (f->eh.e_type != ET_DYN)
		return elf_fail(f, "ELF type %u is not a shared object (ET_DYN)", f->eh.e_type);
	if (ELF_NATIVE_MACHINE != 0 && f->eh.e_machine != ELF_NATIVE_MACHINE)
		return elf_fail(f, "ELF machine %u, this tlc runs on machine %u", f->eh.e_machine,
		                (unsigned)ELF_NATIVE_MACHINE);
	if (f->eh.e_version != EV_CURRENT)
		return elf_fail(f, "ELF version %u (expected %u)", (unsigned)f->eh.e_version, EV_CURRENT);
	return 0;
}

/* ---- program headers ---- */

static int check_load_segment(elf_file *f, int i, const elf_phdr *p, const elf_phdr *prev)
{
	if (p->p_filesz > p->p_memsz)
		return elf_fail(f, "segment %d (PT_LOAD) has more file bytes (%" PRIu64
		                   ") than memory bytes (%" PRIu64 ")",
		                i, (uint64_t)p->p_filesz, (uint64_t)p->p_memsz);
	if (p->p_align > 1 && ((p->p_align & (p->p_align - 1)) != 0 ||
	                       (p->p_vaddr - p->p_offset) % p->p_align != 0))
		return elf_fail(f, "segment %d (PT_LOAD) is misaligned (address 0x%" PRIx64
		                   ", offset 0x%" PRIx64 ", alignment 0x%" PRIx64 ")",
		                i, (uint64_t)p->p_vaddr, (uint64_t)p->p_offset, (uint64_t)p->p_align);
	/* zero fill (.bss) is written by the loader: only in a writable segment */
	if (p->p_memsz > p->p_filesz && !(p->p_flags & PF_W))
		return elf_fail(f, "segment %d (PT_LOAD) is read-only but has %" PRIu64
		                   " bytes of zero fill",
		                i, (uint64_t)(p->p_memsz - p->p_filesz));
	/* Linkers lay segments out in increasing addresses and file offsets,
	 * without overlap.  The loader sizes one reservation from the first to
	 * the last; a segment whose memory overlaps the next one is zero-filled
	 * over it, and one whose file bytes overlap another's maps the wrong
	 * code (bit flips in p_vaddr, p_offset or p_memsz do both). */
	if (prev && p->p_vaddr < prev->p_vaddr + prev->p_memsz)
		return elf_fail(f, "segment %d (PT_LOAD) overlaps the previous one in memory or is not "
		                   "in address order",
		                i);
	if (prev && p->p_offset < prev->p_offset + prev->p_filesz)
		return elf_fail(f, "segment %d (PT_LOAD) overlaps the previous one in the file or is "
		                   "not in file order",
		                i);
	return 0;
}

static int check_program_headers(elf_file *f)
{
	const elf_ehdr *eh = &f->eh;
	if (eh->e_phentsize != sizeof(elf_phdr))
		return elf_fail(f, "program header size %u (expected %zu)", eh->e_phentsize,
		                sizeof(elf_phdr));
	if (eh->e_phnum == 0 || eh->e_phnum == PN_XNUM)
		return elf_fail(f, "%s program headers", eh->e_phnum ? "too many" : "no");
	uint64_t table = (uint64_t)eh->e_phnum * sizeof(elf_phdr);
	if (!elf_inside(eh->e_phoff, table, f->size))
		return elf_fail(f, "the program header table (%u entries at offset 0x%" PRIx64
		                   ") extends past the end of the file (%" PRIu64 " bytes)",
		                eh->e_phnum, (uint64_t)eh->e_phoff, f->size);
	f->ph = tlc_xmalloc(table);
	f->seg_bytes = tlc_xcalloc(eh->e_phnum, sizeof(*f->seg_bytes));
	if (read_at(f, f->ph, table, eh->e_phoff) != 0)
		return -1;
	const elf_phdr *prev_load = NULL;
	int ndynamic = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const elf_phdr *p = &f->ph[i];
		if (!elf_inside(p->p_offset, p->p_filesz, f->size))
			return elf_fail(f, "segment %d (%s) holds %" PRIu64 " bytes at offset 0x%" PRIx64
			                   ", past the end of the file (%" PRIu64 " bytes)",
			                i, segment_type_name(p->p_type), (uint64_t)p->p_filesz,
			                (uint64_t)p->p_offset, f->size);
		if (p->p_vaddr + p->p_memsz < p->p_vaddr)
			return elf_fail(f, "segment %d (%s) wraps around the address space", i,
			                segment_type_name(p->p_type));
		if (p->p_type == PT_LOAD) {
			if (check_load_segment(f, i, p, prev_load) != 0)
				return -1;
			prev_load = p;
		}
		ndynamic += p->p_type == PT_DYNAMIC;
	}
	if (!prev_load)
		return elf_fail(f, "no loadable segment (PT_LOAD)");
	if (!ndynamic)
		return elf_fail(f, "no dynamic segment (PT_DYNAMIC)");
	/* the PT_LOADs are in address order and do not overlap */
	for (int i = 0; i < eh->e_phnum; i++) {
		const elf_phdr *p = &f->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		if (f->image_start == UINT64_MAX)
			f->image_start = p->p_vaddr;
		f->image_end = p->p_vaddr + p->p_memsz;
	}
	uint64_t image_start = f->image_start, image_end = f->image_end;
	/* segments the loader (or, later, the unwinder) reads through the image */
	for (int i = 0; i < eh->e_phnum; i++) {
		const elf_phdr *p = &f->ph[i];
		bool read_in_image = p->p_type == PT_DYNAMIC || p->p_type == PT_NOTE ||
		                     p->p_type == PT_TLS || p->p_type == PT_PHDR ||
		                     p->p_type == PT_GNU_PROPERTY || p->p_type == PT_GNU_EH_FRAME;
		if (read_in_image && p->p_filesz > 0 &&
		    !elf_load_holding(f, p->p_vaddr, p->p_filesz, PF_R))
			return elf_fail(f, "segment %d (%s) at address 0x%" PRIx64
			                   " is not inside a loaded segment",
			                i, segment_type_name(p->p_type), (uint64_t)p->p_vaddr);
		/* made read-only after relocation, in whole pages: it may run into
		 * the gap after its segment (lld does that), not out of the image */
		if (p->p_type == PT_GNU_RELRO && p->p_memsz > 0 &&
		    (!elf_load_holding(f, p->p_vaddr, 1, 0) ||
		     !elf_inside(p->p_vaddr - image_start, p->p_memsz, image_end - image_start)))
			return elf_fail(f, "segment %d (PT_GNU_RELRO) at address 0x%" PRIx64
			                   " is not inside the loaded image",
			                i, (uint64_t)p->p_vaddr);
	}
	return 0;
}

/* ---- section headers: not used by the loader, but a file cut short loses
 * them first (they come last), and tools that read plugins need them ---- */

static int check_sections(elf_file *f)
{
	const elf_ehdr *eh = &f->eh;
	if (eh->e_shoff == 0)
		return 0; /* no section header table: allowed */
	if (eh->e_shentsize != sizeof(elf_shdr))
		return elf_fail(f, "section header size %u (expected %zu)", eh->e_shentsize,
		                sizeof(elf_shdr));
	elf_shdr first;
	if (!elf_inside(eh->e_shoff, sizeof(first), f->size))
		return elf_fail(f, "the section header table at offset 0x%" PRIx64
		                   " is past the end of the file (%" PRIu64 " bytes)",
		                (uint64_t)eh->e_shoff, f->size);
	if (read_at(f, &first, sizeof(first), eh->e_shoff) != 0)
		return -1;
	/* more than SHN_LORESERVE sections: the count is in section 0 */
	uint64_t n = eh->e_shnum ? eh->e_shnum : first.sh_size;
	if (n > f->size / sizeof(elf_shdr) || !elf_inside(eh->e_shoff, n * sizeof(elf_shdr), f->size))
		return elf_fail(f, "the section header table (%" PRIu64 " entries at offset 0x%" PRIx64
		                   ") extends past the end of the file (%" PRIu64 " bytes)",
		                n, (uint64_t)eh->e_shoff, f->size);
	elf_shdr *sh = tlc_xmalloc(n * sizeof(elf_shdr) + 1);
	int rc = read_at(f, sh, n * sizeof(elf_shdr), eh->e_shoff);
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_type == SHT_NULL ||
		    elf_inside(sh[i].sh_offset, sh[i].sh_size, f->size))
			continue;
		rc = elf_fail(f, "section %" PRIu64 " holds %" PRIu64 " bytes at offset 0x%" PRIx64
		                 ", past the end of the file (%" PRIu64 " bytes)",
		              i, (uint64_t)sh[i].sh_size, (uint64_t)sh[i].sh_offset, f->size);
	}
	uint64_t names = eh->e_shstrndx == SHN_XINDEX ? first.sh_link : eh->e_shstrndx;
	if (rc == 0 && names != SHN_UNDEF && names >= n)
		rc = elf_fail(f, "the section name table is section %" PRIu64 " of %" PRIu64, names, n);
	free(sh);
	return rc;
}

/* ---- the whole file ---- */

int tlc_elf_check(const char *path, const char *entry_symbol, char *why, size_t why_size)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf_file f = {
		.fd = fd,
		.size = (uint64_t)st.st_size,
		.image_start = UINT64_MAX,
		.entry_symbol = entry_symbol,
		.why = why,
		.why_size = why_size,
	};
	int rc = check_header(&f);
	if (rc == 0)
		rc = check_program_headers(&f);
	if (rc == 0)
		rc = check_sections(&f);
	if (rc == 0)
		rc = elf_check_dynamic(&f);
	for (int i = 0; f.seg_bytes && i < f.eh.e_phnum; i++)
		free(f.seg_bytes[i]);
	free(f.seg_bytes);
	free(f.ph);
	close(fd);
	return rc;
}
