/* elf_check_dynamic.c - the dynamic section and the tables it points to.
 *
 * glibc's loader reads these through the mapped image and trusts them: every
 * address is added to the load base and dereferenced, every string offset
 * indexes the string table, every symbol index the symbol table, every
 * relocation writes where it says; a few missing entries are NULL
 * dereferences or failed assertions (SIGABRT) inside it
 * (elf/get-dynamic-info.h, elf/dl-lookup.c, elf/dl-version.c, elf/do-rel.h).
 * Each check here names the bound the loader assumes.  Tables are read with
 * memcpy: their addresses in the file need not be aligned. */
#include "internal.h"

#include "pass/elf_check_priv.h"

#include <inttypes.h>
#include <string.h>

static int dyn_index(int64_t tag)
{
	switch (tag) {
	case DT_STRTAB: return D_STRTAB;
	case DT_STRSZ: return D_STRSZ;
	case DT_SYMTAB: return D_SYMTAB;
	case DT_SYMENT: return D_SYMENT;
	case DT_HASH: return D_HASH;
	case DT_GNU_HASH: return D_GNU_HASH;
	case DT_RELA: return D_RELA;
	case DT_RELASZ: return D_RELASZ;
	case DT_RELAENT: return D_RELAENT;
	case DT_REL: return D_REL;
	case DT_RELSZ: return D_RELSZ;
	case DT_RELENT: return D_RELENT;
	case DT_JMPREL: return D_JMPREL;
	case DT_PLTRELSZ: return D_PLTRELSZ;
	case DT_PLTREL: return D_PLTREL;
	case DT_RELR: return D_RELR;
	case DT_RELRSZ: return D_RELRSZ;
	case DT_RELRENT: return D_RELRENT;
	case DT_INIT: return D_INIT;
	case DT_FINI: return D_FINI;
	case DT_INIT_ARRAY: return D_INIT_ARRAY;
	case DT_INIT_ARRAYSZ: return D_INIT_ARRAYSZ;
	case DT_FINI_ARRAY: return D_FINI_ARRAY;
	case DT_FINI_ARRAYSZ: return D_FINI_ARRAYSZ;
	case DT_VERSYM: return D_VERSYM;
	case DT_VERDEF: return D_VERDEF;
	case DT_VERNEED: return D_VERNEED;
	case DT_FLAGS: return D_FLAGS;
	case DT_TEXTREL: return D_TEXTREL;
	case DT_RELACOUNT: return D_RELACOUNT;
	case DT_RELCOUNT: return D_RELCOUNT;
	default: return -1;
	}
}

static elf_dyn entry_at(const elf_dyn_info *d, uint64_t i)
{
	elf_dyn e;
	memcpy(&e, d->entries + i * sizeof(e), sizeof(e));
	return e;
}

static uint32_t word_at(const unsigned char *p)
{
	uint32_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* A string the loader reads from the string table: it must end inside it. */
static bool string_ok(const elf_dyn_info *d, uint64_t off)
{
	return off < d->strsz && memchr(d->strtab + off, '\0', d->strsz - off);
}

/* ---- the section itself ---- */

static int read_dynamic(elf_file *f, elf_dyn_info *d)
{
	const elf_phdr *dyn = NULL;
	for (int i = 0; i < f->eh.e_phnum; i++)
		if (f->ph[i].p_type == PT_DYNAMIC)
			dyn = &f->ph[i]; /* the loader keeps the last one */
	uint64_t n = dyn->p_filesz / sizeof(elf_dyn);
	d->entries = elf_image(f, dyn->p_vaddr, n * sizeof(elf_dyn), "the dynamic section");
	if (!d->entries)
		return -1;
	/* the loader walks the entries up to DT_NULL, however far that is */
	for (d->nentries = 0; d->nentries < n; d->nentries++)
		if (entry_at(d, d->nentries).d_tag == DT_NULL)
			break;
	if (d->nentries == n)
		return elf_fail(f, "the dynamic section has no DT_NULL entry to end it");
	for (uint64_t i = 0; i < d->nentries; i++) {
		elf_dyn e = entry_at(d, i);
		int k = dyn_index(e.d_tag);
		/* linkers write each of these once; the loader keeps the last */
		if (k >= 0 && d->seen[k])
			return elf_fail(f, "the dynamic section has tag 0x%" PRIx64 " twice",
			                (uint64_t)e.d_tag);
		if (k >= 0) {
			d->seen[k] = true;
			d->val[k] = e.d_un.d_val;
		}
	}
	return 0;
}

/* Entries the loader reads whenever another one is there (a NULL entry
 * pointer or an assertion otherwise). */
static int check_entry_pairs(elf_file *f, const elf_dyn_info *d)
{
	static const struct {
		int have, need;
		const char *have_name, *need_name;
	} pairs[] = {
		{D_RELA, D_RELASZ, "DT_RELA", "DT_RELASZ"},
		{D_RELA, D_RELAENT, "DT_RELA", "DT_RELAENT"},
		{D_REL, D_RELSZ, "DT_REL", "DT_RELSZ"},
		{D_REL, D_RELENT, "DT_REL", "DT_RELENT"},
		{D_RELR, D_RELRSZ, "DT_RELR", "DT_RELRSZ"},
		{D_RELR, D_RELRENT, "DT_RELR", "DT_RELRENT"},
		{D_PLTREL, D_JMPREL, "DT_PLTREL", "DT_JMPREL"},
		{D_JMPREL, D_PLTREL, "DT_JMPREL", "DT_PLTREL"},
		{D_JMPREL, D_PLTRELSZ, "DT_JMPREL", "DT_PLTRELSZ"},
		{D_INIT_ARRAY, D_INIT_ARRAYSZ, "DT_INIT_ARRAY", "DT_INIT_ARRAYSZ"},
		{D_FINI_ARRAY, D_FINI_ARRAYSZ, "DT_FINI_ARRAY", "DT_FINI_ARRAYSZ"},
	};
	for (size_t i = 0; i < TLC_ARRAY_LEN(pairs); i++)
		if (d->seen[pairs[i].have] && !d->seen[pairs[i].need])
			return elf_fail(f, "the dynamic section has %s without %s", pairs[i].have_name,
			                pairs[i].need_name);
	if (!d->seen[D_STRTAB] || !d->seen[D_STRSZ] || !d->seen[D_SYMTAB])
		return elf_fail(f, "the dynamic section has no string or symbol table");
	if (!d->seen[D_HASH] && !d->seen[D_GNU_HASH])
		return elf_fail(f, "the dynamic section has no symbol hash table");
	if (d->seen[D_SYMENT] && d->val[D_SYMENT] != sizeof(elf_sym))
		return elf_fail(f, "symbol size %" PRIu64 " (expected %zu)", d->val[D_SYMENT],
		                sizeof(elf_sym));
	if (d->seen[D_RELA] && d->val[D_RELAENT] != sizeof(elf_rela))
		return elf_fail(f, "DT_RELAENT %" PRIu64 " (expected %zu)", d->val[D_RELAENT],
		                sizeof(elf_rela));
	if (d->seen[D_REL] && d->val[D_RELENT] != sizeof(elf_rel))
		return elf_fail(f, "DT_RELENT %" PRIu64 " (expected %zu)", d->val[D_RELENT],
		                sizeof(elf_rel));
	if (d->seen[D_RELR] && d->val[D_RELRENT] != sizeof(elf_addr))
		return elf_fail(f, "DT_RELRENT %" PRIu64 " (expected %zu)", d->val[D_RELRENT],
		                sizeof(elf_addr));
	if (d->seen[D_PLTREL] && d->val[D_PLTREL] != DT_RELA && d->val[D_PLTREL] != DT_REL)
		return elf_fail(f, "DT_PLTREL %" PRIu64 " is neither DT_REL nor DT_RELA",
		                d->val[D_PLTREL]);
	if (d->seen[D_PLTREL] && ELF_NATIVE_PLTREL != 0 && d->val[D_PLTREL] != ELF_NATIVE_PLTREL)
		return elf_fail(f, "DT_PLTREL %" PRIu64 " is not this machine's relocation format",
		                d->val[D_PLTREL]);
	return 0;
}

static int check_strings(elf_file *f, elf_dyn_info *d)
{
	d->strsz = d->val[D_STRSZ];
	d->strtab = (const char *)elf_image(f, d->val[D_STRTAB], d->strsz, "the string table");
	if (!d->strtab)
		return -1;
	for (uint64_t i = 0; i < d->nentries; i++) {
		elf_dyn e = entry_at(d, i);
		bool names_string = e.d_tag == DT_NEEDED || e.d_tag == DT_SONAME ||
		                    e.d_tag == DT_RPATH || e.d_tag == DT_RUNPATH;
		if (names_string && !string_ok(d, e.d_un.d_val))
			return elf_fail(f, "dynamic entry %" PRIu64 " names string %" PRIu64
			                   ", outside the string table (%" PRIu64 " bytes)",
			                i, (uint64_t)e.d_un.d_val, d->strsz);
	}
	return 0;
}

/* ---- symbols: as many as the hash tables reach ---- */

/* DT_GNU_HASH: nbuckets, symoffset, bloom words, bloom shift, the bloom
 * filter, the buckets, then one chain word per symbol from symoffset on; a
 * chain ends at a word with bit 0 set. */
static int count_gnu_hash(elf_file *f, elf_dyn_info *d)
{
	uint64_t at = d->val[D_GNU_HASH];
	const unsigned char *h = elf_image(f, at, 16, "the GNU hash table");
	if (!h)
		return -1;
	uint32_t nbuckets = word_at(h), symoffset = word_at(h + 4);
	uint32_t bloom_words = word_at(h + 8), bloom_shift = word_at(h + 12);
	/* the loader takes hash % nbuckets and asserts a power-of-two bloom size */
	if (nbuckets == 0 || bloom_words == 0 || (bloom_words & (bloom_words - 1)) != 0 ||
	    bloom_shift >= 8 * sizeof(elf_addr))
		return elf_fail(f, "the GNU hash table's header is invalid (%u buckets, %u bloom "
		                   "words, shift %u)",
		                nbuckets, bloom_words, bloom_shift);
	uint64_t buckets_at = at + 16 + (uint64_t)bloom_words * sizeof(elf_addr);
	const unsigned char *buckets =
		elf_image(f, buckets_at, (uint64_t)nbuckets * 4, "the GNU hash buckets");
	if (!buckets)
		return -1;
	uint32_t last = 0;
	for (uint32_t b = 0; b < nbuckets; b++) {
		uint32_t first = word_at(buckets + 4 * (uint64_t)b);
		if (first != 0 && first < symoffset)
			return elf_fail(f, "GNU hash bucket %u starts at symbol %u, below the first "
			                   "hashed symbol %u",
			                b, first, symoffset);
		last = first > last ? first : last;
	}
	d->nsyms = symoffset;
	if (last == 0)
		return 0;
	/* every chain ends at or before the end of the chain that starts last */
	uint64_t chains_at = buckets_at + (uint64_t)nbuckets * 4;
	for (uint64_t i = last;; i++) {
		const unsigned char *w =
			elf_image(f, chains_at + (i - symoffset) * 4, 4, "a GNU hash chain");
		if (!w)
			return -1;
		if (word_at(w) & 1) {
			d->nsyms = i + 1;
			return 0;
		}
	}
}

/* DT_HASH: nbucket, nchain, the buckets, the chains; nchain is the number of
 * symbols, and every bucket and chain entry is a symbol index. */
static int count_sysv_hash(elf_file *f, elf_dyn_info *d)
{
	uint64_t at = d->val[D_HASH];
	const unsigned char *h = elf_image(f, at, 8, "the hash table");
	if (!h)
		return -1;
	uint32_t nbucket = word_at(h), nchain = word_at(h + 4);
	if (nbucket == 0)
		return elf_fail(f, "the hash table has no buckets");
	uint64_t n = (uint64_t)nbucket + nchain;
	const unsigned char *t = elf_image(f, at + 8, n * 4, "the hash table");
	if (!t)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (word_at(t + 4 * i) >= nchain)
			return elf_fail(f, "the hash table names symbol %u of %u", word_at(t + 4 * i),
			                nchain);
	d->nsyms = nchain > d->nsyms ? nchain : d->nsyms;
	return 0;
}

int elf_check_symbol(elf_file *f, const elf_dyn_info *d, uint64_t i)
{
	const unsigned char *p = elf_image(f, d->val[D_SYMTAB] + i * sizeof(elf_sym),
	                                   sizeof(elf_sym), "a symbol table entry");
	if (!p)
		return -1;
	elf_sym s;
	memcpy(&s, p, sizeof(s));
	if (!string_ok(d, s.st_name))
		return elf_fail(f, "symbol %" PRIu64 " has its name outside the string table", i);
	if (d->seen[D_VERSYM]) {
		p = elf_image(f, d->val[D_VERSYM] + 2 * i, 2, "a symbol version");
		if (!p)
			return -1;
		uint16_t ver;
		memcpy(&ver, p, sizeof(ver));
		/* the loader indexes a table sized by the versions defined and needed */
		unsigned ndx = ver & 0x7fff;
		if (ndx > 1 && ndx > d->max_version)
			return elf_fail(f, "symbol %" PRIu64 " has version %u, above the highest "
			                   "version defined or needed (%u)",
			                i, ndx, d->max_version);
	}
	if (i == 0)
		return 0; /* the null symbol */
	unsigned bind = ELF_ST_BIND(s.st_info), vis = ELF_ST_VISIBILITY(s.st_other);
	unsigned type = ELF_ST_TYPE(s.st_info);
	if (bind != STB_LOCAL && bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
		return elf_fail(f, "symbol %" PRIu64 " has an unknown binding %u", i, bind);
	if (type > STT_TLS && type != STT_GNU_IFUNC)
		return elf_fail(f, "symbol %" PRIu64 " has an unknown type %u", i, type);
	if (s.st_shndx == SHN_UNDEF) {
		/* a local or non-default undefined symbol binds to itself: the
		 * loader resolves it to the load base + 0 and calls that */
		if (bind == STB_LOCAL || vis != STV_DEFAULT)
			return elf_fail(f, "undefined symbol '%s' is local or not of default visibility",
			                d->strtab + s.st_name);
		return 0;
	}
	bool entry = f->entry_symbol && strcmp(d->strtab + s.st_name, f->entry_symbol) == 0;
	if (entry && (type != STT_FUNC || bind == STB_LOCAL || vis == STV_HIDDEN ||
	              vis == STV_INTERNAL || s.st_shndx >= SHN_LORESERVE))
		return elf_fail(f, "the entry symbol '%s' is not an exported function", f->entry_symbol);
	if (s.st_shndx >= SHN_LORESERVE)
		return 0;
	/* what dlsym returns (the entry point among them) must be in the image */
	bool code = type == STT_FUNC || type == STT_GNU_IFUNC;
	uint64_t size = type == STT_OBJECT && s.st_size ? s.st_size : 1;
	if ((code || type == STT_OBJECT) && !elf_load_holding(f, s.st_value, size, code ? PF_X : 0))
		return elf_fail(f, "symbol '%s' at 0x%" PRIx64 " is outside the %s",
		                d->strtab + s.st_name, (uint64_t)s.st_value,
		                code ? "executable segments" : "loaded segments");
	return 0;
}

/* The symbols lookups reach through the hash tables.  (Symbols before a GNU
 * hash table's first hashed one are reached only by relocations, which
 * elf_check_relocations checks one by one: no table gives their number.) */
static int check_symbols(elf_file *f, elf_dyn_info *d)
{
	if (d->seen[D_GNU_HASH] && count_gnu_hash(f, d) != 0)
		return -1;
	if (d->seen[D_HASH] && count_sysv_hash(f, d) != 0)
		return -1;
	for (uint64_t i = 0; i < d->nsyms; i++)
		if (elf_check_symbol(f, d, i) != 0)
			return -1;
	return 0;
}

/* ---- symbol versions (elf/dl-version.c) ---- */

/* A library a version requirement names must be one of DT_NEEDED: the
 * loader asserts that it finds it among the loaded dependencies. */
static bool is_needed(const elf_dyn_info *d, const char *name)
{
	for (uint64_t i = 0; i < d->nentries; i++) {
		elf_dyn e = entry_at(d, i);
		if (e.d_tag == DT_NEEDED && strcmp(d->strtab + e.d_un.d_val, name) == 0)
			return true;
	}
	return false;
}

static int check_verdef(elf_file *f, elf_dyn_info *d)
{
	uint64_t at = d->val[D_VERDEF];
	for (;;) {
		elf_verdef vd;
		elf_verdaux aux;
		const unsigned char *p = elf_image(f, at, sizeof(vd), "a version definition");
		if (!p)
			return -1;
		memcpy(&vd, p, sizeof(vd));
		p = elf_image(f, at + vd.vd_aux, sizeof(aux), "a version definition's name");
		if (!p)
			return -1;
		memcpy(&aux, p, sizeof(aux));
		if (!string_ok(d, aux.vda_name))
			return elf_fail(f, "a version definition has its name outside the string table");
		unsigned ndx = vd.vd_ndx & 0x7fff;
		d->max_version = ndx > d->max_version ? ndx : d->max_version;
		if (vd.vd_next == 0)
			return 0;
		at += vd.vd_next; /* forward only: vd_next is unsigned */
	}
}

static int check_verneed(elf_file *f, elf_dyn_info *d)
{
	uint64_t at = d->val[D_VERNEED];
	for (;;) {
		elf_verneed vn;
		const unsigned char *p = elf_image(f, at, sizeof(vn), "a version requirement");
		if (!p)
			return -1;
		memcpy(&vn, p, sizeof(vn));
		if (!string_ok(d, vn.vn_file) || !is_needed(d, d->strtab + vn.vn_file))
			return elf_fail(f, "a version requirement names a library that is not needed");
		uint64_t aux_at = at + vn.vn_aux;
		for (;;) {
			elf_vernaux aux;
			p = elf_image(f, aux_at, sizeof(aux), "a version requirement");
			if (!p)
				return -1;
			memcpy(&aux, p, sizeof(aux));
			if (!string_ok(d, aux.vna_name))
				return elf_fail(f, "a version requirement has its name outside the string "
				                   "table");
			unsigned ndx = aux.vna_other & 0x7fff;
			d->max_version = ndx > d->max_version ? ndx : d->max_version;
			if (aux.vna_next == 0)
				break;
			aux_at += aux.vna_next;
		}
		if (vn.vn_next == 0)
			return 0;
		at += vn.vn_next;
	}
}

static int check_versions(elf_file *f, elf_dyn_info *d)
{
	d->max_version = 1;
	if (d->seen[D_VERDEF] && check_verdef(f, d) != 0)
		return -1;
	return d->seen[D_VERNEED] ? check_verneed(f, d) : 0;
}

int elf_check_dynamic(elf_file *f)
{
	elf_dyn_info d;
	memset(&d, 0, sizeof(d));
	if (read_dynamic(f, &d) != 0 || check_entry_pairs(f, &d) != 0 || check_strings(f, &d) != 0 ||
	    check_versions(f, &d) != 0 || check_symbols(f, &d) != 0 ||
	    elf_check_relocations(f, &d) != 0)
		return -1;
	return 0;
}
