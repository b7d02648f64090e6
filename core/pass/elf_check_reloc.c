/* elf_check_reloc.c - relocations, and the functions dlopen calls.
 *
 * Every relocation writes one word at r_offset: outside a writable segment
 * that is SIGSEGV inside the loader.  A relative relocation writes base +
 * addend, a pointer into the image; DT_INIT, DT_FINI and the words of
 * DT_INIT_ARRAY / DT_FINI_ARRAY (after relocation) are called by dlopen and
 * dlclose, so they must be code.  The values of other pointers, and the code
 * and data themselves, cannot be judged from the structure: a flip there is
 * what trusting a plugin means (doc/security.md). */
#include "internal.h"

#include "pass/elf_check_priv.h"

#include <inttypes.h>
#include <string.h>

static bool has_textrel(const elf_dyn_info *d)
{
	return d->seen[D_TEXTREL] || (d->seen[D_FLAGS] && (d->val[D_FLAGS] & DF_TEXTREL));
}

/* The relocation types a shared object asks the loader for at run time, on
 * the machines tlc knows them for: another type (a flipped r_info) makes the
 * loader write a value of the wrong kind, or a copy relocation, which only an
 * executable may have. */
static bool type_ok(uint32_t type, bool plt, bool textrel)
{
#if defined(__x86_64__)
	if (plt) /* DT_JMPREL: calls through the PLT */
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_IRELATIVE ||
		       type == R_X86_64_TLSDESC;
	switch (type) {
	case R_X86_64_64: case R_X86_64_GLOB_DAT: case R_X86_64_JUMP_SLOT: case R_X86_64_RELATIVE:
	case R_X86_64_DTPMOD64: case R_X86_64_DTPOFF64: case R_X86_64_TPOFF64:
	case R_X86_64_TLSDESC: case R_X86_64_IRELATIVE:
		return true;
	case R_X86_64_PC32: case R_X86_64_32: case R_X86_64_32S: case R_X86_64_PC64:
		return textrel; /* text relocations in code */
	default:
		return false;
	}
#elif defined(__aarch64__)
	(void)textrel;
	if (plt)
		return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_IRELATIVE ||
		       type == R_AARCH64_TLSDESC;
	switch (type) {
	case R_AARCH64_ABS64: case R_AARCH64_GLOB_DAT: case R_AARCH64_JUMP_SLOT:
	case R_AARCH64_RELATIVE: case R_AARCH64_TLS_DTPMOD: case R_AARCH64_TLS_DTPREL:
	case R_AARCH64_TLS_TPREL: case R_AARCH64_TLSDESC: case R_AARCH64_IRELATIVE:
		return true;
	default:
		return false;
	}
#else
	(void)type, (void)plt, (void)textrel;
	return true;
#endif
}

/* Where relocations may write: the writable segments, or any loaded one
 * with text relocations.  Relocations come sorted by address, so the segment
 * of the previous one is tried first. */
typedef struct reloc_targets {
	uint32_t flags; /* PF_W, or 0 with text relocations */
	const elf_phdr *last;
} reloc_targets;

static reloc_targets targets_of(const elf_dyn_info *d)
{
	return (reloc_targets){has_textrel(d) ? 0 : PF_W, NULL};
}

static int check_target(elf_file *f, reloc_targets *t, uint64_t where, const char *table)
{
	const elf_phdr *p = t->last;
	if (p && where >= p->p_vaddr && elf_inside(where - p->p_vaddr, sizeof(elf_addr), p->p_memsz))
		return 0;
	if ((t->last = elf_load_holding(f, where, sizeof(elf_addr), t->flags)))
		return 0;
	return elf_fail(f, "a relocation in %s writes to 0x%" PRIx64 ", outside the %s", table,
	                where, t->flags ? "writable segments" : "loaded segments");
}

/* One entry of a DT_RELA (with addend) or DT_REL table. */
typedef struct reloc {
	uint64_t offset, sym;
	uint32_t type;
	int64_t addend; /* 0 for DT_REL: the addend is the word at offset */
} reloc;

static reloc reloc_at(const unsigned char *table, uint64_t i, bool with_addend)
{
	reloc r = {0};
	if (with_addend) {
		elf_rela e;
		memcpy(&e, table + i * sizeof(e), sizeof(e));
		r.offset = e.r_offset;
		r.sym = ELF_R_SYM(e.r_info);
		r.type = (uint32_t)ELF_R_TYPE(e.r_info);
		r.addend = e.r_addend;
	} else {
		elf_rel e;
		memcpy(&e, table + i * sizeof(e), sizeof(e));
		r.offset = e.r_offset;
		r.sym = ELF_R_SYM(e.r_info);
		r.type = (uint32_t)ELF_R_TYPE(e.r_info);
	}
	return r;
}

/* The table of size bytes at address at, or NULL (reason set). */
static const unsigned char *reloc_table(elf_file *f, uint64_t at, uint64_t size,
                                        bool with_addend, const char *table)
{
	size_t ent = with_addend ? sizeof(elf_rela) : sizeof(elf_rel);
	if (size % ent != 0) {
		elf_fail(f, "%s is %" PRIu64 " bytes, not a whole number of entries", table, size);
		return NULL;
	}
	return elf_image(f, at, size, table);
}

/* A table of relocations: plt for DT_JMPREL (PLT slots), nrelative the
 * count of relative ones that come first (DT_RELACOUNT, DT_RELCOUNT). */
static int check_reloc_table(elf_file *f, const elf_dyn_info *d, uint64_t at, uint64_t size,
                             bool with_addend, bool plt, uint64_t nrelative, const char *table)
{
	const unsigned char *t = reloc_table(f, at, size, with_addend, table);
	if (!t)
		return -1;
	uint64_t n = size / (with_addend ? sizeof(elf_rela) : sizeof(elf_rel));
	/* DT_RELACOUNT: the loader asserts that so many relative ones come first */
	if (nrelative > n)
		return elf_fail(f, "%s has %" PRIu64 " entries, fewer than its count of relative "
		                   "ones (%" PRIu64 ")",
		                table, n, nrelative);
	reloc_targets targets = targets_of(d);
	bool textrel = has_textrel(d);
	for (uint64_t i = 0; i < n; i++) {
		reloc r = reloc_at(t, i, with_addend);
		if (i < nrelative && ELF_NATIVE_RELATIVE != 0 && r.type != ELF_NATIVE_RELATIVE)
			return elf_fail(f, "relocation %" PRIu64 " in %s is not relative, but the "
			                   "dynamic section counts it as one",
			                i, table);
		if (r.type == 0)
			continue; /* R_*_NONE on every machine */
		if (!type_ok(r.type, plt, textrel))
			return elf_fail(f, "relocation %" PRIu64 " in %s has type %u, which a shared "
			                   "object does not use",
			                i, table, r.type);
		if (r.sym >= d->nsyms && elf_check_symbol(f, d, r.sym) != 0)
			return -1;
		if (check_target(f, &targets, r.offset, table) != 0)
			return -1;
		/* base + addend: a pointer into the image (one past its end at most) */
		if (with_addend && ELF_NATIVE_RELATIVE != 0 && r.type == ELF_NATIVE_RELATIVE &&
		    ((uint64_t)r.addend < f->image_start || (uint64_t)r.addend > f->image_end))
			return elf_fail(f, "relocation %" PRIu64 " in %s points to 0x%" PRIx64
			                   ", outside the image",
			                i, table, (uint64_t)r.addend);
		if (with_addend && ELF_NATIVE_IRELATIVE != 0 && r.type == ELF_NATIVE_IRELATIVE &&
		    !elf_load_holding(f, (uint64_t)r.addend, 1, PF_X))
			return elf_fail(f, "relocation %" PRIu64 " in %s calls 0x%" PRIx64
			                   ", outside the executable segments",
			                i, table, (uint64_t)r.addend);
	}
	return 0;
}

/* DT_RELR: an address, then bitmaps of the words after it that are
 * relocated.  visit(where) is called for each relocated word; it returns
 * nonzero to stop. */
static int walk_relr(elf_file *f, const elf_dyn_info *d,
                     int (*visit)(elf_file *, const elf_dyn_info *, uint64_t, void *), void *arg)
{
	uint64_t size = d->val[D_RELRSZ];
	const size_t word = sizeof(elf_addr);
	if (size % word != 0)
		return elf_fail(f, "DT_RELRSZ %" PRIu64 " is not a whole number of entries", size);
	const unsigned char *r = elf_image(f, d->val[D_RELR], size, "DT_RELR");
	if (!r)
		return -1;
	uint64_t where = 0;
	for (uint64_t i = 0; i < size / word; i++) {
		elf_addr e;
		memcpy(&e, r + i * word, sizeof(e));
		if ((e & 1) == 0) {
			int rc = visit(f, d, e, arg);
			if (rc)
				return rc;
			where = e + word;
			continue;
		}
		for (unsigned bit = 1; bit < 8 * word; bit++) {
			if (!(((uint64_t)e >> bit) & 1))
				continue;
			int rc = visit(f, d, where + (bit - 1) * word, arg);
			if (rc)
				return rc;
		}
		where += (8 * word - 1) * word;
	}
	return 0;
}

static int relr_target(elf_file *f, const elf_dyn_info *d, uint64_t where, void *arg)
{
	(void)d;
	return check_target(f, arg, where, "DT_RELR");
}

/* ---- what dlopen calls ---- */

typedef struct slot_search {
	uint64_t slot;
	bool found;
} slot_search;

static int relr_finds(elf_file *f, const elf_dyn_info *d, uint64_t where, void *arg)
{
	(void)f, (void)d;
	slot_search *s = arg;
	s->found |= where == s->slot;
	return 0;
}

/* Is the word at slot, once relocated, an address of code?  A relative
 * relocation (DT_RELA or DT_RELR) gives base + value, a symbolic one the
 * symbol's address (the symbol was checked); a word no relocation touches
 * keeps its link-time value, wrong once the object is moved. */
static bool relocated_to_code(elf_file *f, const elf_dyn_info *d, uint64_t slot)
{
	static const int tables[][2] = {{D_RELA, D_RELASZ}, {D_REL, D_RELSZ}, {D_JMPREL, D_PLTRELSZ}};
	bool relative_in_place = false; /* base + the word at slot */
	for (size_t k = 0; k < TLC_ARRAY_LEN(tables) && !relative_in_place; k++) {
		if (!d->seen[tables[k][0]])
			continue;
		bool with_addend = tables[k][0] == D_RELA ||
		                   (tables[k][0] == D_JMPREL && d->val[D_PLTREL] == DT_RELA);
		/* the tables were checked: reading them again cannot fail */
		const unsigned char *t = reloc_table(f, d->val[tables[k][0]], d->val[tables[k][1]],
		                                     with_addend, "a relocation table");
		uint64_t n = d->val[tables[k][1]] / (with_addend ? sizeof(elf_rela) : sizeof(elf_rel));
		for (uint64_t i = 0; t && i < n; i++) {
			reloc r = reloc_at(t, i, with_addend);
			if (r.offset != slot || r.type == 0)
				continue;
			if (r.sym != 0)
				return true;
			if (with_addend)
				return elf_load_holding(f, (uint64_t)r.addend, 1, PF_X) != NULL;
			relative_in_place = true;
			break;
		}
	}
	if (!relative_in_place && d->seen[D_RELR]) {
		slot_search s = {slot, false};
		walk_relr(f, d, relr_finds, &s);
		relative_in_place = s.found;
	}
	if (!relative_in_place)
		return false;
	const unsigned char *w = elf_image(f, slot, sizeof(elf_addr), "an initialisation function");
	elf_addr value;
	if (!w)
		return false;
	memcpy(&value, w, sizeof(value));
	return elf_load_holding(f, value, 1, PF_X) != NULL;
}

static int check_init(elf_file *f, const elf_dyn_info *d)
{
	static const struct {
		int code, array, array_size;
		const char *name;
	} kinds[] = {{D_INIT, D_INIT_ARRAY, D_INIT_ARRAYSZ, "initialisation"},
	             {D_FINI, D_FINI_ARRAY, D_FINI_ARRAYSZ, "finalisation"}};
	for (size_t k = 0; k < TLC_ARRAY_LEN(kinds); k++) {
		if (d->seen[kinds[k].code] && !elf_load_holding(f, d->val[kinds[k].code], 1, PF_X))
			return elf_fail(f, "the %s function at 0x%" PRIx64 " is outside the executable "
			                   "segments",
			                kinds[k].name, d->val[kinds[k].code]);
		if (!d->seen[kinds[k].array])
			continue;
		uint64_t at = d->val[kinds[k].array], size = d->val[kinds[k].array_size];
		/* the array's words are relocated (written) before they are called */
		if (size % sizeof(elf_addr) != 0 || !elf_load_holding(f, at, size, PF_W))
			return elf_fail(f, "the %s array (%" PRIu64 " bytes at 0x%" PRIx64
			                   ") is not inside a writable segment",
			                kinds[k].name, size, at);
		for (uint64_t i = 0; i < size / sizeof(elf_addr); i++)
			if (!relocated_to_code(f, d, at + i * sizeof(elf_addr)))
				return elf_fail(f, "%s function %" PRIu64 " (the word at 0x%" PRIx64
				                   ") is not relocated to code",
				                kinds[k].name, i, at + i * sizeof(elf_addr));
	}
	return 0;
}

int elf_check_relocations(elf_file *f, const elf_dyn_info *d)
{
	/* DT_JMPREL may be the tail of DT_RELA (the loader then skips it there),
	 * never elsewhere inside it: entries read at the wrong stride */
	if (d->seen[D_RELA] && d->seen[D_JMPREL]) {
		uint64_t a = d->val[D_RELA], a_end = a + d->val[D_RELASZ];
		uint64_t p = d->val[D_JMPREL], p_end = p + d->val[D_PLTRELSZ];
		bool overlap = p < a_end && a < p_end;
		if (overlap && (p_end != a_end || p < a || (p - a) % sizeof(elf_rela) != 0))
			return elf_fail(f, "DT_JMPREL overlaps DT_RELA");
	}
	if (d->seen[D_RELA] && check_reloc_table(f, d, d->val[D_RELA], d->val[D_RELASZ], true,
	                                         false, d->val[D_RELACOUNT], "DT_RELA") != 0)
		return -1;
	if (d->seen[D_REL] && check_reloc_table(f, d, d->val[D_REL], d->val[D_RELSZ], false, false,
	                                        d->val[D_RELCOUNT], "DT_REL") != 0)
		return -1;
	if (d->seen[D_JMPREL] && check_reloc_table(f, d, d->val[D_JMPREL], d->val[D_PLTRELSZ],
	                                           d->val[D_PLTREL] == DT_RELA, true, 0,
	                                           "DT_JMPREL") != 0)
		return -1;
	reloc_targets relr_targets = targets_of(d);
	if (d->seen[D_RELR] && walk_relr(f, d, relr_target, &relr_targets) != 0)
		return -1;
	return check_init(f, d);
}
