/* tlc.c - the command-line driver: options in, libtlc calls out.
 *
 *   context -> config -> plugins -> read -> parse -> verify -> passes -> emit
 *
 * Exit codes: 0 ok, 1 compile errors, 2 usage errors, 70 internal errors. */
#include "config.h"

#include "devcc.h"

#include <tlc/config.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/sim.h>
#include <tlc/target.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_TARGET "cuda-sm90"

/* A growable list of strings pointing into argv (or owned, see below). */
typedef struct str_list {
	int n, cap;
	const char **items;
} str_list;

typedef struct options {
	const char *input;
	const char *output; /* NULL or "-": stdout */
	const char *target;
	const char *entry;
	const char *config;
	const char *emit;
	bool emit_given; /* --emit was on the command line (else the target's source) */
	bool dep_file;        /* -MD: write the output's dependencies for make */
	const char *dep_path; /* -MF FILE: where (else the output's stem + .d) */
	const char *passes; /* --passes value; NULL: the INI pipeline */
	const char *nvcc;   /* --nvcc value; NULL: search */
	const char *hipcc;  /* --hipcc value; NULL: search */
	str_list define_names, define_values;
	str_list input_names, input_values; /* --input NAME=VALUE (names copied) */
	bool run;                           /* --run: simulate instead of emitting */
	bool compare;                       /* --compare: the lowered run against the tile level */
	bool strict_bounds;                 /* --strict-bounds: what the masking hides is an error */
	double atol, rtol;
	unsigned long long seed;
	long long blocks; /* --blocks: a sample of the grid (0: all) */
	tlc_frontend_limits limits; /* --limit NAME=N (0: the default) */
	int config_index;           /* --config-index=N */
	bool list_configs;          /* --list-configs */
	str_list pass_args, loads, plugin_dirs, print_before, print_after, xnvcc, xhipcc;
	bool print_before_all, print_after_all, verify_each, time_passes, keep_temps;
	bool verbose, list_passes, list_targets, print_plugin_path, no_caret, print_target_info;
	bool remarks; /* --remarks: option remarks=true of every pass that has one */
} options;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("tlc: error: out of memory\n", stderr);
		exit(TLC_EXIT_INTERNAL);
	}
	return p;
}

static void list_add(str_list *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xrealloc(l->items, (size_t)l->cap * sizeof(*l->items));
	}
	l->items[l->n++] = s;
}

static void options_free(options *o)
{
	str_list *lists[] = {&o->define_names, &o->define_values, &o->pass_args, &o->loads, &o->plugin_dirs,
	                     &o->print_before, &o->print_after, &o->xnvcc, &o->xhipcc, &o->input_names, &o->input_values};
	/* define and input names were copied to cut them at '=': free them before their array */
	for (int i = 0; i < o->define_names.n; i++)
		free((char *)o->define_names.items[i]);
	for (int i = 0; i < o->input_names.n; i++)
		free((char *)o->input_names.items[i]);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		free(lists[i]->items);
}

/* ---- usage ---- */

static const char help_text[] =
	"usage: tlc [options] FILE\n"
	"Compile a TileLang kernel file (FILE, or - for stdin) to CUDA source or tile IR.\n"
	"\n"
	"Input:\n"
	"  --entry=CALL            the kernel to build: a factory call such as\n"
	"                          'matmul(1024, 1024, 1024, 128, 128, 32)'\n"
	"  -D NAME=VALUE           set a compile-time size or constant (repeatable)\n"
	"  --config-index=N        build the entry with config N (from 0) of its\n"
	"                          @autotune(configs=...) where --entry and -D leave\n"
	"                          parameters open (default 0: the first)\n"
	"  --list-configs          print the entry's @autotune configs, one a line as\n"
	"                          'N: {...}', and exit\n"
	"  --limit NAME=N          raise or lower a budget of compile-time evaluation:\n"
	"                          steps (statements and loop iterations, default 2M),\n"
	"                          work (items operations go through, 100M), items (of one\n"
	"                          list, tuple, dict or range, 1M), string-bytes (16M),\n"
	"                          memory (bytes of all values, 1G); N may end in K, M or G\n"
	"                          (repeatable; doc/security.md)\n"
	"\n"
	"Output:\n"
	"  -o FILE                 write the output to FILE (-: stdout); default: stdout for\n"
	"                          ir and source, FILE's stem + .ptx/.cubin/.hsaco and\n"
	"                          lib + stem + .so in the current directory for the others;\n"
	"                          with the source and --emit=so the launcher header goes to\n"
	"                          the output's stem + .h\n"
	"  -MD, -MF FILE           also write a make rule of the output's dependencies (the\n"
	"                          kernel file, the configuration, the plugins) to FILE, or\n"
	"                          to the output's stem + .d; needs -o FILE\n"
	"  --emit=KIND             ir: the tile IR after the pipeline; cu or hip: the target's\n"
	"                          source, CUDA or HIP C++ (default); ptx, cubin: nvcc's PTX\n"
	"                          or cubin of it (CUDA targets); hsaco: hipcc's code object\n"
	"                          (HIP targets); so: a shared library of extern \"C\" launchers\n"
	"  --target=NAME           code generation target (default: [tlc] default_target in\n"
	"                          the config, else " DEFAULT_TARGET "); see --list-targets\n"
	"\n"
	"Simulator (doc/sim.md):\n"
	"  --run                   run the kernel on the CPU after the pipeline instead of\n"
	"                          emitting code; -o DIR writes every tensor parameter to\n"
	"                          DIR/NAME.npy.  Use --passes= to run the tile level (the\n"
	"                          IR as the frontend leaves it)\n"
	"  --input=NAME=VALUE      the value of parameter NAME: a .npy file for a tensor, a\n"
	"                          number for a scalar (repeatable); tensors not given are\n"
	"                          random\n"
	"  --seed=N                the seed of the random tensors (default 0)\n"
	"  --compare[=ATOL,RTOL]   also run the tile level on the same inputs and check that\n"
	"                          every tensor agrees: |x - tile| <= ATOL + RTOL |tile|\n"
	"                          (default 0,0: bit for bit)\n"
	"  --blocks=N              run only N blocks of the grid, spread evenly from the\n"
	"                          first to the last (the others' outputs keep their\n"
	"                          initial values)\n"
	"  --strict-bounds         at the tile level, a global load or store outside its\n"
	"                          tensor, which the bounds semantics masks (loads read 0\n"
	"                          or the safe value, stores are dropped), is an error\n"
	"                          naming the statement, the index and the shape\n"
	"\n"
	"Device compiler (--emit=ptx|cubin|hsaco|so):\n"
	"  --nvcc=PATH             the nvcc to run for CUDA targets (default: $NVCC, the nvcc\n"
	"                          configure found, then nvcc in PATH)\n"
	"  -Xnvcc=ARG              pass ARG to nvcc (repeatable); tlc passes -O3 and the\n"
	"                          target's -gencode itself\n"
	"  --hipcc=PATH            the hipcc to run for HIP targets (default: $HIPCC, the\n"
	"                          hipcc configure found, then hipcc in PATH)\n"
	"  -Xhipcc=ARG             pass ARG to hipcc (repeatable); tlc passes -O3 and the\n"
	"                          target's --offload-arch itself\n"
	"  --keep-temps            keep the temporary source and compiler output; print where\n"
	"\n"
	"Pipeline and plugins:\n"
	"  --config=FILE           read FILE instead of the default tlc.ini\n"
	"  --passes=A,B,...        run these passes instead of the target's INI pipeline\n"
	"                          (--passes= runs none)\n"
	"  --pass-arg=P.KEY=VALUE  set option KEY of pass (or target) P (repeatable)\n"
	"  --remarks               every pass with a `remarks` option says on stderr what it\n"
	"                          left undone and why (a loop not warp-specialized, a copy\n"
	"                          not a TMA store, an output not staged)\n"
	"  --load=PLUGIN           load a plugin: a path, or a name searched in the plugin\n"
	"                          path (repeatable)\n"
	"  --plugin-path=DIR       search DIR for plugins before the default dirs (repeatable)\n"
	"  --list-passes           list the registered passes and exit\n"
	"  --list-targets          list the registered targets and exit\n"
	"  --print-target-info     print what passes assume about the --target machine\n"
	"                          (lanes, memory, vector widths, matrix instructions) and\n"
	"                          exit\n"
	"  --print-plugin-path     print the plugin search directories and exit\n"
	"\n"
	"Debugging the pipeline (dumps go to stderr):\n"
	"  --print-before=PASS     print the IR before PASS (repeatable)\n"
	"  --print-after=PASS      print the IR after PASS (repeatable)\n"
	"  --print-before-all      print the IR before every pass\n"
	"  --print-after-all       print the IR after every pass\n"
	"  --verify-each           verify the IR after every pass\n"
	"  --time-passes           print the wall time of each pass\n"
	"\n"
	"Other:\n"
	"  -fno-caret-diagnostics  do not show the source line and caret in diagnostics\n"
	"  -v                      print the version, config file, plugin path, plugins,\n"
	"                          target and pipeline on stderr\n"
	"  --version               print the version and exit\n"
	"  -h, --help              print this help and exit\n"
	"\n"
	"Environment: TLC_CONFIG (config file), TLC_PLUGIN_PATH (colon-separated plugin dirs),\n"
	"NVCC, HIPCC (the device compilers to run), TMPDIR (where temporary files go).\n"
	"Exit status: 0 success, 1 compile errors, 2 usage errors, 70 internal errors.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fputs("tlc: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\ntry 'tlc --help' for more information\n", stderr);
	return TLC_EXIT_USAGE;
}

/* ---- option parsing ---- */

enum {
	OPT_TARGET = 256, OPT_ENTRY, OPT_CONFIG, OPT_PASSES, OPT_PASS_ARG, OPT_LOAD,
	OPT_PLUGIN_PATH, OPT_LIST_PASSES, OPT_LIST_TARGETS, OPT_PRINT_PLUGIN_PATH, OPT_EMIT,
	OPT_PRINT_BEFORE, OPT_PRINT_AFTER, OPT_PRINT_BEFORE_ALL, OPT_PRINT_AFTER_ALL,
	OPT_VERIFY_EACH, OPT_TIME_PASSES, OPT_VERSION, OPT_HELP, OPT_NO_CARET,
	OPT_NVCC, OPT_HIPCC, OPT_KEEP_TEMPS, OPT_PRINT_TARGET_INFO, OPT_RUN, OPT_INPUT, OPT_SEED, OPT_BLOCKS, OPT_COMPARE,
	OPT_LIMIT, OPT_CONFIG_INDEX, OPT_LIST_CONFIGS, OPT_REMARKS, OPT_STRICT_BOUNDS,
};

static const struct option long_options[] = {
	{"target", required_argument, NULL, OPT_TARGET},
	{"entry", required_argument, NULL, OPT_ENTRY},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"passes", required_argument, NULL, OPT_PASSES},
	{"pass-arg", required_argument, NULL, OPT_PASS_ARG},
	{"remarks", no_argument, NULL, OPT_REMARKS},
	{"load", required_argument, NULL, OPT_LOAD},
	{"plugin-path", required_argument, NULL, OPT_PLUGIN_PATH},
	{"list-passes", no_argument, NULL, OPT_LIST_PASSES},
	{"list-targets", no_argument, NULL, OPT_LIST_TARGETS},
	{"print-target-info", no_argument, NULL, OPT_PRINT_TARGET_INFO},
	{"print-plugin-path", no_argument, NULL, OPT_PRINT_PLUGIN_PATH},
	{"emit", required_argument, NULL, OPT_EMIT},
	{"print-before", required_argument, NULL, OPT_PRINT_BEFORE},
	{"print-after", required_argument, NULL, OPT_PRINT_AFTER},
	{"print-before-all", no_argument, NULL, OPT_PRINT_BEFORE_ALL},
	{"print-after-all", no_argument, NULL, OPT_PRINT_AFTER_ALL},
	{"verify-each", no_argument, NULL, OPT_VERIFY_EACH},
	{"time-passes", no_argument, NULL, OPT_TIME_PASSES},
	{"nvcc", required_argument, NULL, OPT_NVCC},
	{"hipcc", required_argument, NULL, OPT_HIPCC},
	{"keep-temps", no_argument, NULL, OPT_KEEP_TEMPS},
	{"run", no_argument, NULL, OPT_RUN},
	{"input", required_argument, NULL, OPT_INPUT},
	{"seed", required_argument, NULL, OPT_SEED},
	{"blocks", required_argument, NULL, OPT_BLOCKS},
	{"compare", optional_argument, NULL, OPT_COMPARE},
	{"strict-bounds", no_argument, NULL, OPT_STRICT_BOUNDS},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"config-index", required_argument, NULL, OPT_CONFIG_INDEX},
	{"list-configs", no_argument, NULL, OPT_LIST_CONFIGS},
	{"version", no_argument, NULL, OPT_VERSION},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static bool is_identifier(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* -D NAME=VALUE: NAME is copied (cut at '='), VALUE points into argv. */
static int add_define(options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || !is_identifier(arg, (size_t)(eq - arg)) || !eq[1])
		return usage_error("-D expects NAME=VALUE, not '%s'", arg);
	char *name = strndup(arg, (size_t)(eq - arg));
	list_add(&o->define_names, name);
	list_add(&o->define_values, eq + 1);
	return 0;
}

/* --input NAME=VALUE: NAME is copied (cut at '='), VALUE points into argv. */
static int add_input(options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || !is_identifier(arg, (size_t)(eq - arg)) || !eq[1])
		return usage_error("--input expects NAME=VALUE (a .npy file or a number), not '%s'", arg);
	list_add(&o->input_names, strndup(arg, (size_t)(eq - arg)));
	list_add(&o->input_values, eq + 1);
	return 0;
}

static int parse_seed(options *o, const char *arg)
{
	char *end;
	errno = 0;
	o->seed = strtoull(arg, &end, 0);
	if (!*arg || *end || errno || *arg == '-')
		return usage_error("--seed expects a non-negative integer, not '%s'", arg);
	return 0;
}

static int parse_blocks(options *o, const char *arg)
{
	char *end;
	errno = 0;
	o->blocks = strtoll(arg, &end, 10);
	if (!*arg || *end || errno || o->blocks < 1)
		return usage_error("--blocks expects a positive number of blocks, not '%s'", arg);
	return 0;
}

/* --compare[=ATOL,RTOL] */
static int parse_compare(options *o, const char *arg)
{
	o->compare = true;
	o->atol = o->rtol = 0.0;
	if (!arg)
		return 0;
	char *end, *end2;
	errno = 0;
	o->atol = strtod(arg, &end);
	if (end != arg && *end == ',') {
		o->rtol = strtod(end + 1, &end2);
		if (end2 != end + 1 && !*end2 && !errno && o->atol >= 0 && o->rtol >= 0)
			return 0;
	}
	return usage_error("--compare takes ATOL,RTOL (two non-negative numbers), not '%s'", arg);
}

/* --limit NAME=N: a budget of compile-time evaluation (doc/security.md);
 * N is a positive integer, optionally followed by K, M or G (times 2^10,
 * 2^20, 2^30). */
static int parse_limit(options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg);
	if (tlc_frontend_limit_get(NULL, name) < 0 || n >= sizeof name) {
		tlc_suggestion sg;
		char hint[96];
		tlc_suggest_init(&sg, name);
		for (const char *const *l = tlc_frontend_limit_names(); *l; l++)
			tlc_suggest_add(&sg, *l);
		fprintf(stderr, "tlc: error: unknown limit '%s'%s (the limits: steps, work, items, string-bytes, memory)\n",
		        name, tlc_suggest_text(&sg, hint, sizeof hint));
		return TLC_EXIT_USAGE;
	}
	if (!eq)
		return usage_error("--limit expects NAME=N, not '%s'", arg);
	char *end;
	errno = 0;
	long long v = strtoll(eq + 1, &end, 10);
	int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
	if (shift)
		end++;
	bool bad = end == eq + 1 || *end || errno || v < 1 || v > (LLONG_MAX >> shift);
	if (!bad && tlc_frontend_limit_set(&o->limits, name, (int64_t)v << shift) == 0)
		return 0;
	fprintf(stderr,
	        "tlc: error: --limit %s expects a positive integer of at most %lld (K, M, G suffixes allowed), "
	        "not '%s'\n",
	        name, (long long)tlc_frontend_limit_max(name), eq + 1);
	return TLC_EXIT_USAGE;
}

static int check_emit(const char *emit)
{
	static const char *const known[] = {"ir", "cu", "hip", "ptx", "cubin", "hsaco", "so"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(emit, known[i]) == 0)
			return 0;
	return usage_error("unknown --emit kind '%s' (expected ir, cu, hip, ptx, cubin, hsaco or so)", emit);
}

/* True when paths a and b name one existing file (or are the same string). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* An unknown option, with the long option it is closest to. */
static int unknown_option(const char *arg)
{
	char word[64];
	const char *w = arg;
	while (*w == '-')
		w++;
	snprintf(word, sizeof word, "%.*s", (int)strcspn(w, "="), w);
	tlc_suggestion sg;
	tlc_suggest_init(&sg, word);
	for (int i = 0; long_options[i].name; i++)
		tlc_suggest_add(&sg, long_options[i].name);
	if (sg.best) {
		fprintf(stderr, "tlc: error: unknown option '%s'; did you mean '--%s'?\n", arg, sg.best);
		fputs("try 'tlc --help' for more information\n", stderr);
		return TLC_EXIT_USAGE;
	}
	return usage_error("unknown option '%s'", arg);
}

/* Returns -1 to go on compiling, or an exit code. */
static int parse_options(options *o, int argc, char **argv)
{
	/* -fno-caret-diagnostics is a gcc-style single-dash long flag: take it out
	 * before getopt sees it. */
	int n = 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-fno-caret-diagnostics") == 0)
			o->no_caret = true;
		else if (strcmp(argv[i], "-MD") == 0)
			o->dep_file = true;
		else if (strcmp(argv[i], "-MF") == 0 && i + 1 < argc)
			o->dep_path = argv[++i], o->dep_file = true;
		else if (strcmp(argv[i], "-MF") == 0)
			return usage_error("%s", "-MF needs a file name");
		else if (strncmp(argv[i], "-Xnvcc=", 7) == 0 || strncmp(argv[i], "--Xnvcc=", 8) == 0)
			list_add(&o->xnvcc, strchr(argv[i], '=') + 1);
		else if (strncmp(argv[i], "-Xhipcc=", 8) == 0 || strncmp(argv[i], "--Xhipcc=", 9) == 0)
			list_add(&o->xhipcc, strchr(argv[i], '=') + 1);
		else
			argv[n++] = argv[i];
	}
	argc = n;
	argv[argc] = NULL;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:D:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'D':
			if (add_define(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case 'v': o->verbose = true; break;
		case 'h':
		case OPT_HELP: fputs(help_text, stdout); return TLC_EXIT_OK;
		case OPT_VERSION:
			printf("tlc %s (plugin ABI %d)\n", PACKAGE_VERSION, TLC_PLUGIN_ABI_VERSION);
			return TLC_EXIT_OK;
		case OPT_TARGET: o->target = optarg; break;
		case OPT_ENTRY: o->entry = optarg; break;
		case OPT_CONFIG: o->config = optarg; break;
		case OPT_PASSES: o->passes = optarg; break;
		case OPT_PASS_ARG: list_add(&o->pass_args, optarg); break;
		case OPT_REMARKS: o->remarks = true; break;
		case OPT_LOAD: list_add(&o->loads, optarg); break;
		case OPT_PLUGIN_PATH: list_add(&o->plugin_dirs, optarg); break;
		case OPT_LIST_PASSES: o->list_passes = true; break;
		case OPT_LIST_TARGETS: o->list_targets = true; break;
		case OPT_PRINT_TARGET_INFO: o->print_target_info = true; break;
		case OPT_PRINT_PLUGIN_PATH: o->print_plugin_path = true; break;
		case OPT_EMIT: o->emit = optarg; break;
		case OPT_PRINT_BEFORE: list_add(&o->print_before, optarg); break;
		case OPT_PRINT_AFTER: list_add(&o->print_after, optarg); break;
		case OPT_PRINT_BEFORE_ALL: o->print_before_all = true; break;
		case OPT_PRINT_AFTER_ALL: o->print_after_all = true; break;
		case OPT_VERIFY_EACH: o->verify_each = true; break;
		case OPT_TIME_PASSES: o->time_passes = true; break;
		case OPT_NVCC: o->nvcc = optarg; break;
		case OPT_HIPCC: o->hipcc = optarg; break;
		case OPT_KEEP_TEMPS: o->keep_temps = true; break;
		case OPT_RUN: o->run = true; break;
		case OPT_INPUT:
			if (add_input(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (parse_seed(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case OPT_BLOCKS:
			if (parse_blocks(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case OPT_COMPARE:
			if (parse_compare(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case OPT_STRICT_BOUNDS: o->strict_bounds = true; break;
		case OPT_LIMIT:
			if (parse_limit(o, optarg))
				return TLC_EXIT_USAGE;
			break;
		case OPT_CONFIG_INDEX: {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > INT_MAX)
				return usage_error("--config-index expects a non-negative integer, not '%s'", optarg);
			o->config_index = (int)v;
			break;
		}
		case OPT_LIST_CONFIGS: o->list_configs = true; break;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return unknown_option(argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return usage_error("more than one input file ('%s')", argv[optind]);
	if (o->run && o->emit)
		return usage_error("--run simulates the kernel instead of emitting code: drop --emit=%s", o->emit);
	if ((o->input_names.n || o->seed || o->blocks || o->compare) && !o->run)
		return usage_error("%s", "--input, --seed, --blocks and --compare are options of --run");
	/* the compiled code masks nothing it could report: its guards are in the IR */
	if (o->strict_bounds && !o->run)
		return usage_error("%s", "--strict-bounds is an option of --run: it checks the tile level of tlc-sim "
		                         "(with --passes= or --compare), where accesses outside a tensor are masked");
	if (!o->emit)
		o->emit = o->run ? "ir" : "cu"; /* the target's source, whichever its language */
	else
		o->emit_given = true;
	int rc = check_emit(o->emit);
	if (rc)
		return rc;
	if (o->output && strcmp(o->output, "-") == 0 && devcc_is_binary_kind(o->emit) &&
	    strcmp(o->emit, "ptx") != 0)
		return usage_error("--emit=%s writes a binary file: give -o FILE, not -o -", o->emit);
	bool query = o->list_passes || o->list_targets || o->print_plugin_path || o->verbose || o->print_target_info;
	if (!o->input && !query)
		return usage_error("%s", "no input file");
	if (o->dep_file && (o->run || !o->output || !strcmp(o->output, "-") || !strcmp(o->emit, "ir")))
		return usage_error("%s", "-MD and -MF write the dependencies of an output file: give -o FILE (not with "
		                         "--run or --emit=ir)");
	/* never overwrite the input (-o of --run is a directory) */
	if (o->input && o->output && !o->run && strcmp(o->input, "-") && strcmp(o->output, "-") &&
	    same_file(o->input, o->output))
		return usage_error("-o %s is the input file: tlc does not overwrite its input", o->output);
	return -1;
}

/* ---- reading and writing files ---- */

/* Read FILE (or stdin for "-") into a malloc'd, NUL-terminated buffer. */
static char *read_input(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "tlc: error: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *text = xrealloc(NULL, cap);
	while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0)
			text = xrealloc(text, cap *= 2);
	}
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		fprintf(stderr, "tlc: error: cannot read '%s': %s\n", path, strerror(errno));
		free(text);
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	return text;
}

static bool to_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

static int write_output(const char *path, const char *text)
{
	if (to_stdout(path)) {
		fputs(text, stdout);
		return fflush(stdout) == 0 ? 0 : -1;
	}
	FILE *f = fopen(path, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "tlc: error: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* out.cu -> out.h (the stem of the output name, plus ".h"). */
static char *header_path(const char *out)
{
	const char *slash = strrchr(out, '/');
	const char *dot = strrchr(out, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	char *h = xrealloc(NULL, stem + 3);
	memcpy(h, out, stem);
	memcpy(h + stem, ".h", 3);
	return h;
}

/* The input's file name without folder and extension: "k/add.tl" -> "add";
 * NULL for stdin. */
static char *input_stem(const char *input)
{
	if (strcmp(input, "-") == 0)
		return NULL;
	const char *base = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
	char *stem = xrealloc(NULL, n + 1);
	memcpy(stem, base, n);
	stem[n] = '\0';
	return stem;
}

/* ---- the compile session ---- */

typedef struct session {
	options *opt;
	tlc_context *ctx;
	tlc_config *cfg;
	const tlc_target_desc *target;
	const char *target_name;
	str_list passes; /* point into passes_copy or the config */
	char *passes_copy;
} session;

static int fail_code(const tlc_context *ctx)
{
	return tlc_had_internal_error(ctx) ? TLC_EXIT_INTERNAL : TLC_EXIT_ERROR;
}

static int load_config_and_plugins(session *s)
{
	options *o = s->opt;
	char *path = o->config ? strdup(o->config) : tlc_config_default_path();
	if (!path && !o->loads.n) {
		/* nothing would be loaded: every target and pass would be unknown */
		tlc_buf where;
		tlc_buf_init(&where);
		tlc_config_search_path(&where);
		fprintf(stderr, "tlc: error: no configuration file (tlc.ini) found; looked at: %s; give --config=FILE "
		                "or set TLC_CONFIG\n",
		        tlc_buf_str(&where));
		tlc_buf_free(&where);
		return TLC_EXIT_ERROR;
	}
	int rc = path ? tlc_config_load(s->ctx, s->cfg, path) : 0;
	free(path);
	if (rc)
		return TLC_EXIT_ERROR;
	const char *const *dirs = o->plugin_dirs.items;
	const char *name;
	for (int i = 0; (name = tlc_config_plugin_at(s->cfg, i)); i++)
		rc |= tlc_plugin_load(s->ctx, name, o->plugin_dirs.n, dirs);
	for (int i = 0; i < o->loads.n; i++)
		rc |= tlc_plugin_load(s->ctx, o->loads.items[i], o->plugin_dirs.n, dirs);
	if (rc)
		return fail_code(s->ctx);
	const tlc_pass_desc *p;
	for (int i = 0; o->remarks && (p = tlc_pass_at(s->ctx, i)); i++)
		for (const tlc_pass_option *x = p->options; x && x->name; x++)
			if (strcmp(x->name, "remarks") == 0 && x->kind == TLC_OPT_BOOL) {
				char arg[256];
				snprintf(arg, sizeof arg, "%s.remarks=true", p->name);
				tlc_config_set_pass_arg(s->ctx, s->cfg, arg);
			}
	/* after --remarks: a --pass-arg=P.remarks=false still turns one off */
	for (int i = 0; i < o->pass_args.n; i++)
		if (tlc_config_set_pass_arg(s->ctx, s->cfg, o->pass_args.items[i]))
			return TLC_EXIT_USAGE;
	return tlc_config_check(s->ctx, s->cfg) ? TLC_EXIT_ERROR : -1;
}

/* Nothing registered that kind of thing: the configuration loads no plugin
 * for it (an empty or wrong tlc.ini): say which file, and where tlc looked. */
static void nothing_registered(const session *s, const char *what)
{
	const char *path = tlc_config_path(s->cfg);
	fprintf(stderr, "tlc: error: no %s registered: %s%s%s loads no plugin that registers one (its [plugins] "
	                "section; see tlc -v)\n",
	        what, path ? "the configuration '" : "no configuration file", path ? path : "", path ? "'" : "");
}

static int list_registry(const session *s)
{
	const tlc_pass_desc *p;
	const tlc_target_desc *t;
	if ((s->opt->list_passes && !tlc_pass_at(s->ctx, 0)) || (s->opt->list_targets && !tlc_target_at(s->ctx, 0))) {
		nothing_registered(s, s->opt->list_passes && !tlc_pass_at(s->ctx, 0) ? "passes" : "targets");
		return TLC_EXIT_ERROR;
	}
	if (s->opt->list_passes)
		for (int i = 0; (p = tlc_pass_at(s->ctx, i)); i++)
			printf("%-24s %s [%s]\n", p->name, p->summary ? p->summary : "",
			       tlc_pass_plugin_at(s->ctx, i));
	if (s->opt->list_targets)
		for (int i = 0; (t = tlc_target_at(s->ctx, i)); i++)
			printf("%-24s %s\n", t->name, t->summary ? t->summary : "");
	return TLC_EXIT_OK;
}

static void unknown_target(const session *s, const char *name)
{
	if (!tlc_target_at(s->ctx, 0)) {
		nothing_registered(s, "targets");
		return;
	}
	tlc_suggestion sg;
	tlc_suggest_init(&sg, name);
	const tlc_target_desc *t;
	for (int i = 0; (t = tlc_target_at(s->ctx, i)); i++)
		tlc_suggest_add(&sg, t->name);
	char hint[160];
	fprintf(stderr, "tlc: error: unknown target '%s'%s (see tlc --list-targets)\n", name,
	        tlc_suggest_text(&sg, hint, sizeof hint));
}

/* The machine description of --target (or the default target). */
static int print_target_info(session *s)
{
	const options *o = s->opt;
	const char *name = o->target ? o->target
	                   : tlc_config_default_target(s->cfg) ? tlc_config_default_target(s->cfg)
	                                                      : DEFAULT_TARGET;
	const tlc_target_desc *t = tlc_find_target(s->ctx, name);
	if (!t) {
		unknown_target(s, name);
		return TLC_EXIT_ERROR;
	}
	tlc_buf out;
	tlc_buf_init(&out);
	tlc_target_info_print(&out, s->ctx, t);
	fputs(tlc_buf_str(&out), stdout);
	tlc_buf_free(&out);
	return TLC_EXIT_OK;
}

/* The target and the pass list: --passes, else the target's INI pipeline. */
static int resolve_pipeline(session *s)
{
	options *o = s->opt;
	s->target_name = o->target ? o->target
	                 : tlc_config_default_target(s->cfg) ? tlc_config_default_target(s->cfg)
	                                                      : DEFAULT_TARGET;
	s->target = tlc_find_target(s->ctx, s->target_name);
	bool need_target = (strcmp(o->emit, "ir") != 0 && !o->run) || !o->passes;
	if (!s->target && need_target) {
		unknown_target(s, s->target_name);
		return TLC_EXIT_ERROR;
	}
	/* registration checked the description's cheap facts; --verify-each
	 * also builds every fragment of its matrix table */
	const char *bad =
	    s->target && o->verify_each ? tlc_target_info_verify(s->ctx, s->target->info) : NULL;
	if (bad) {
		fprintf(stderr, "tlc: error: target '%s' has %s\n", s->target->name, bad);
		return TLC_EXIT_ERROR;
	}
	if (o->passes) {
		s->passes_copy = strdup(o->passes);
		for (char *tok = strtok(s->passes_copy, ","); tok; tok = strtok(NULL, ","))
			list_add(&s->passes, tok);
		return -1;
	}
	const char *section = s->target->pipeline ? s->target->pipeline : s->target->name;
	if (strncmp(section, "pipeline.", 9) == 0)
		section += 9;
	const char *const *names = NULL;
	int n = tlc_config_pipeline(s->cfg, section, &names);
	if (n < 0) {
		const char *file = tlc_config_path(s->cfg);
		fprintf(stderr, "tlc: error: no [pipeline.%s] section in %s%s%s (or give --passes=)\n",
		        section, file ? "'" : "", file ? file : "any config file", file ? "'" : "");
		return TLC_EXIT_ERROR;
	}
	for (int i = 0; i < n; i++)
		list_add(&s->passes, names[i]);
	return -1;
}

static void print_verbose(const session *s)
{
	const options *o = s->opt;
	const char *path = tlc_config_path(s->cfg);
	fprintf(stderr, "tlc %s (plugin ABI %d)\n", PACKAGE_VERSION, TLC_PLUGIN_ABI_VERSION);
	fprintf(stderr, "config: %s\n", path ? path : "(none)");
	tlc_buf dirs;
	tlc_buf_init(&dirs);
	tlc_plugin_search_path(&dirs, o->plugin_dirs.n, o->plugin_dirs.items);
	fprintf(stderr, "plugin path:\n");
	for (const char *d = tlc_buf_str(&dirs); *d;) {
		const char *nl = strchr(d, '\n');
		fprintf(stderr, "  %.*s\n", (int)(nl - d), d);
		d = nl + 1;
	}
	tlc_buf_free(&dirs);
	fprintf(stderr, "plugins:\n");
	const tlc_plugin_desc *p;
	const char *file;
	for (int i = 0; (p = tlc_plugin_at(s->ctx, i, &file)); i++)
		fprintf(stderr, "  %s %s (%s)\n", p->name, p->version ? p->version : "?", file);
	fprintf(stderr, "target: %s\n", s->target_name ? s->target_name : "(none)");
	fprintf(stderr, "pipeline:");
	for (int i = 0; i < s->passes.n; i++)
		fprintf(stderr, "%s%s", i ? ", " : " ", s->passes.items[i]);
	fprintf(stderr, "%s\n", s->passes.n ? "" : " (no passes)");
}

/* --emit=ptx|cubin|hsaco|so: the target's device compiler on the generated
 * source; for so, the header beside the library. */
static int build_binary(session *s, const tlc_codegen_result *res)
{
	options *o = s->opt;
	char *stem = input_stem(o->input);
	char *output = NULL;
	if (!o->output) {
		/* like a.out: without a file name, stdin's output is a.<kind>; a
		 * shared library is named as the linker's -l looks for it */
		bool lib = strcmp(o->emit, "so") == 0;
		size_t n = strlen(stem ? stem : "a") + strlen(o->emit) + 5;
		output = xrealloc(NULL, n);
		snprintf(output, n, "%s%s.%s", lib ? "lib" : "", stem ? stem : "a", o->emit);
	}
	const char *out = o->output ? o->output : output;
	bool want_header = strcmp(o->emit, "so") == 0 && res->header.len;
	char *h = want_header ? header_path(out) : NULL;
	bool hip = s->target->compiler && strcmp(s->target->compiler, "hipcc") == 0;
	const str_list *x = hip ? &o->xhipcc : &o->xnvcc;
	devcc_opts dopts = {
		.compiler = hip ? o->hipcc : o->nvcc,
		.nextra = x->n,
		.extra = x->items,
		.keep_temps = o->keep_temps,
		.verbose = o->verbose,
	};
	int rc;
	if (h && strcmp(h, out) == 0) {
		fprintf(stderr, "tlc: error: -o %s: the header would overwrite the library; name it *.so\n", out);
		rc = TLC_EXIT_ERROR;
	} else {
		rc = devcc_build(s->target, &dopts, o->emit, stem ? stem : "stdin", tlc_buf_str(&res->source), out);
	}
	if (rc == TLC_EXIT_OK && h && write_output(h, tlc_buf_str(&res->header)))
		rc = TLC_EXIT_ERROR;
	free(h);
	free(output);
	free(stem);
	return rc;
}

/* The launcher header goes to the output's stem + .h: an output named so
 * (or the input) would be overwritten; say so instead. */
static bool header_clashes(const char *out)
{
	char *h = header_path(out);
	bool clash = same_file(h, out);
	if (clash)
		fprintf(stderr, "tlc: error: -o %s: the launcher header goes to %s, which would overwrite the output; "
		                "name the output *.cu or *.hip\n",
		        out, h);
	free(h);
	return clash;
}

/* -MD / -MF: a make rule saying what the output was made from: the kernel
 * file, the configuration and every plugin loaded (a new tlc, pass or
 * target changes the output), each also a target of its own, so that make
 * does not fail when one goes away. */
/* A file name as make reads it: spaces and '#' escaped, '$' doubled. */
static void make_name(tlc_buf *out, const char *name)
{
	for (const char *c = name; *c; c++) {
		if (*c == ' ' || *c == '#')
			tlc_buf_putc(out, '\\');
		if (*c == '$')
			tlc_buf_putc(out, '$');
		tlc_buf_putc(out, *c);
	}
}

static int write_deps(session *s)
{
	const options *o = s->opt;
	char *path = o->dep_path ? strdup(o->dep_path) : NULL;
	if (!path) {
		char *h = header_path(o->output); /* stem + .h */
		h[strlen(h) - 1] = 'd';
		path = h;
	}
	str_list deps = {0};
	if (strcmp(o->input, "-"))
		list_add(&deps, o->input);
	if (tlc_config_path(s->cfg))
		list_add(&deps, tlc_config_path(s->cfg));
	const char *file;
	for (int i = 0; tlc_plugin_at(s->ctx, i, &file); i++)
		if (file)
			list_add(&deps, file);
	tlc_buf text;
	tlc_buf_init(&text);
	make_name(&text, o->output);
	tlc_buf_puts(&text, ":");
	for (int i = 0; i < deps.n; i++) {
		tlc_buf_puts(&text, " \\\n ");
		make_name(&text, deps.items[i]);
	}
	tlc_buf_puts(&text, "\n");
	for (int i = 0; i < deps.n; i++) {
		tlc_buf_puts(&text, "\n");
		make_name(&text, deps.items[i]);
		tlc_buf_puts(&text, ":\n");
	}
	int rc = write_output(path, tlc_buf_str(&text));
	tlc_buf_free(&text);
	free(deps.items);
	free(path);
	return rc;
}

static int emit_output(session *s, tlc_module *m)
{
	options *o = s->opt;
	if (strcmp(o->emit, "ir") == 0) {
		tlc_buf out;
		tlc_buf_init(&out);
		tlc_print_module(&out, m);
		int rc = write_output(o->output, tlc_buf_str(&out));
		tlc_buf_free(&out);
		return rc ? TLC_EXIT_ERROR : TLC_EXIT_OK;
	}
	const char *ext = s->target->source_ext ? s->target->source_ext : "cu";
	bool gpu_source = !strcmp(ext, "cu") || !strcmp(ext, "hip");
	if (o->emit_given && gpu_source && (!strcmp(o->emit, "cu") || !strcmp(o->emit, "hip")) && strcmp(o->emit, ext)) {
		fprintf(stderr, "tlc: error: --emit=%s: target '%s' prints %s source: use --emit=%s\n", o->emit,
		        s->target->name, !strcmp(ext, "hip") ? "HIP" : "CUDA", ext);
		return TLC_EXIT_USAGE;
	}
	tlc_codegen_result res;
	tlc_buf_init(&res.source);
	tlc_buf_init(&res.header);
	int rc = TLC_EXIT_OK;
	const tlc_pass_options *topts = tlc_config_options(s->cfg, s->target->name);
	if (s->target->emit(m, topts, &res) != 0 || tlc_error_count(s->ctx) > 0) {
		rc = fail_code(s->ctx);
	} else if (devcc_is_binary_kind(o->emit)) {
		rc = build_binary(s, &res);
	} else if (!to_stdout(o->output) && res.header.len && header_clashes(o->output)) {
		rc = TLC_EXIT_USAGE;
	} else if (write_output(o->output, tlc_buf_str(&res.source))) {
		rc = TLC_EXIT_ERROR;
	} else if (!to_stdout(o->output) && res.header.len) {
		char *h = header_path(o->output);
		if (write_output(h, tlc_buf_str(&res.header)))
			rc = TLC_EXIT_ERROR;
		free(h);
	}
	tlc_buf_free(&res.source);
	tlc_buf_free(&res.header);
	return rc;
}

/* --run: the module on the CPU (tlc/sim.h); -o names the output directory.
 * With --compare, `tile` is the same source without passes. */
static int simulate(session *s, tlc_module *m, tlc_module *tile)
{
	options *o = s->opt;
	tlc_sim_options so = {
		.seed = o->seed,
		.ninputs = o->input_names.n,
		.input_names = o->input_names.items,
		.input_values = o->input_values.items,
		.out_dir = to_stdout(o->output) ? NULL : o->output,
		.blocks = o->blocks,
		.after_pass = s->passes.n ? s->passes.items[s->passes.n - 1] : NULL,
		.strict_bounds = o->strict_bounds,
	};
	if (o->output && strcmp(o->output, "-") == 0) {
		fprintf(stderr, "tlc: error: --run writes .npy files: give -o DIR, not -o -\n");
		return TLC_EXIT_USAGE;
	}
	tlc_sim_compare_options co = {o->atol, o->rtol};
	int rc = tile ? tlc_sim_compare(m, tile, &so, &co) : tlc_sim_run(m, &so);
	return rc ? fail_code(s->ctx) : TLC_EXIT_OK;
}

/* Run the pipeline over *m.  Without --verify-each the IR is verified once,
 * after the last pass, which cannot tell which pass broke it; then the
 * source is compiled again verifying after every pass, and that run's
 * diagnostics, which name the pass, are the ones reported. */
static int run_pipeline(session *s, tlc_module *m, const tlc_pipeline_opts *po, const char *name,
                        const char *text, size_t len, const tlc_frontend_opts *fe)
{
	if (po->verify_each)
		return tlc_run_passes(m, po);
	tlc_buf first;
	tlc_buf_init(&first);
	tlc_diag_capture(s->ctx, &first);
	int rc = tlc_run_passes(m, po);
	tlc_diag_capture(s->ctx, NULL);
	if (rc == 0 || !strstr(tlc_buf_str(&first), "does not verify after the pipeline")) {
		fputs(tlc_buf_str(&first), stderr);
		tlc_buf_free(&first);
		return rc;
	}
	tlc_buf again;
	tlc_buf_init(&again);
	tlc_diag_capture(s->ctx, &again);
	tlc_module *m2 = tlc_parse(s->ctx, name, text, len, fe);
	tlc_pipeline_opts each = *po;
	each.verify_each = true;
	each.nprint_before = each.nprint_after = 0; /* printed by the first run */
	each.print_before_all = each.print_after_all = each.time_passes = false;
	bool named = m2 && tlc_run_passes(m2, &each) != 0 &&
		     strstr(tlc_buf_str(&again), "after this pass");
	tlc_diag_capture(s->ctx, NULL);
	fputs(tlc_buf_str(named ? &again : &first), stderr);
	tlc_buf_free(&first);
	tlc_buf_free(&again);
	tlc_module_free(m2);
	return -1;
}

static int compile(session *s)
{
	options *o = s->opt;
	size_t len = 0;
	char *text = read_input(o->input, &len);
	if (!text)
		return TLC_EXIT_ERROR;
	tlc_frontend_opts fe = {
		.entry = o->entry,
		.ndefines = o->define_names.n,
		.define_names = o->define_names.items,
		.define_values = o->define_values.items,
		.limits = &o->limits,
		.config_index = o->config_index,
		.target = s->target ? s->target->info : NULL,
	};
	const char *name = strcmp(o->input, "-") == 0 ? "<stdin>" : o->input;
	if (o->list_configs) {
		tlc_buf configs;
		tlc_buf_init(&configs);
		fe.list_configs = &configs;
		tlc_module *cm = tlc_parse(s->ctx, name, text, len, &fe);
		free(text);
		bool ok = cm && tlc_error_count(s->ctx) == 0;
		if (ok)
			fputs(tlc_buf_str(&configs), stdout);
		tlc_buf_free(&configs);
		tlc_module_free(cm);
		return ok ? TLC_EXIT_OK : fail_code(s->ctx);
	}
	tlc_module *m = tlc_parse(s->ctx, name, text, len, &fe);
	/* --compare: the source again, for the tile level */
	tlc_module *tile = m && o->compare ? tlc_parse(s->ctx, name, text, len, &fe) : NULL;
	if (!m || (o->compare && !tile) || tlc_error_count(s->ctx) > 0) {
		free(text);
		tlc_module_free(m);
		tlc_module_free(tile);
		return fail_code(s->ctx);
	}
	int rc = TLC_EXIT_OK;
	tlc_pipeline_opts po = {
		.target = s->target,
		.npasses = s->passes.n,
		.passes = s->passes.items,
		.config = s->cfg,
		.nprint_before = o->print_before.n,
		.print_before = o->print_before.items,
		.nprint_after = o->print_after.n,
		.print_after = o->print_after.items,
		.print_before_all = o->print_before_all,
		.print_after_all = o->print_after_all,
		.verify_each = o->verify_each,
		.time_passes = o->time_passes,
	};
	/* a target prints thread-level IR as it is: its barriers must be there */
	const char *last = s->passes.n ? s->passes.items[s->passes.n - 1] : NULL;
	if (!tlc_verify_module(s->ctx, m, NULL) || run_pipeline(s, m, &po, name, text, len, &fe) != 0 ||
	    (strcmp(o->emit, "ir") != 0 && !o->run && !tlc_verify_barriers(s->ctx, m, last)))
		rc = fail_code(s->ctx);
	else if (o->run) {
		/* the tile level runs on the same machine (its warpgroups for T.ws) */
		if (tile && s->target)
			tlc_module_set_target(tile, s->target);
		rc = simulate(s, m, tile);
	}
	else
		rc = emit_output(s, m);
	if (rc == TLC_EXIT_OK && o->dep_file && write_deps(s))
		rc = TLC_EXIT_ERROR;
	free(text);
	tlc_module_free(m);
	tlc_module_free(tile);
	return rc;
}

static int run(session *s)
{
	options *o = s->opt;
	if (o->print_plugin_path) {
		tlc_buf dirs;
		tlc_buf_init(&dirs);
		tlc_plugin_search_path(&dirs, o->plugin_dirs.n, o->plugin_dirs.items);
		fputs(tlc_buf_str(&dirs), stdout);
		tlc_buf_free(&dirs);
		return TLC_EXIT_OK;
	}
	int rc = load_config_and_plugins(s);
	if (rc >= 0)
		return rc;
	if (o->list_passes || o->list_targets)
		return list_registry(s);
	if (o->print_target_info)
		return print_target_info(s);
	if ((rc = resolve_pipeline(s)) >= 0)
		return rc;
	tlc_pipeline_opts check = {
		.npasses = s->passes.n, .passes = s->passes.items,
		.nprint_before = o->print_before.n, .print_before = o->print_before.items,
		.nprint_after = o->print_after.n, .print_after = o->print_after.items,
	};
	if (tlc_pipeline_check(s->ctx, &check))
		return TLC_EXIT_ERROR;
	if (o->verbose)
		print_verbose(s);
	if (!o->input)
		return TLC_EXIT_OK;
	return compile(s);
}

int main(int argc, char **argv)
{
	options opt = {0};
	int rc = parse_options(&opt, argc, argv);
	if (rc >= 0) {
		options_free(&opt);
		return rc;
	}
	session s = {.opt = &opt};
	s.ctx = tlc_context_new();
	s.cfg = tlc_config_new();
	tlc_diag_set_caret(s.ctx, !opt.no_caret);
	rc = run(&s);
	free(s.passes.items);
	free(s.passes_copy);
	tlc_config_free(s.cfg);
	tlc_context_free(s.ctx);
	options_free(&opt);
	return rc;
}
