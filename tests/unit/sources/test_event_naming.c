/* SPDX-License-Identifier: MIT */
/* test_event_naming.c: the raw:/pfm: selector grammar (a table, deduplication through the raw
 * source's family), the CPUID-derived libpfm4 table, libpfm4 through the dlopen seam (absent,
 * a missing symbol, a failed initialize, the table retry, the encode ABI) and the real
 * installed libpfm4 (encoding only). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/os.h"
#include "sources/event_naming.h"
#include "sources/source.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the grammar ------------------------------------------------------------------------ */

static const struct {
    const char *selector;
    enum bench__selector_kind kind;
    uint64_t config;
    const char *header;
} grammar[] = {
    {"raw:r00c0", BENCH__SELECTOR_RAW, 0xc0, "r00c0"},
    {"raw:r04c2", BENCH__SELECTOR_RAW, 0x4c2, "r04c2"},
    {"raw:r0", BENCH__SELECTOR_RAW, 0, "r0"},
    {"raw:r00C0", BENCH__SELECTOR_RAW, 0xc0, "r00C0"}, /* hex digits of either case */
    {"raw:rAbCdEf", BENCH__SELECTOR_RAW, 0xabcdef, "rAbCdEf"},
    {"raw:rffffffffffffffff", BENCH__SELECTOR_RAW, UINT64_MAX, "rffffffffffffffff"}, /* 16 */
    {"raw:r0000000000000001", BENCH__SELECTOR_RAW, 1, "r0000000000000001"},
    {"raw:R00c0", BENCH__SELECTOR_MALFORMED, 0, NULL},              /* the r must be lowercase */
    {"raw:r1ffffffffffffffff", BENCH__SELECTOR_MALFORMED, 0, NULL}, /* 17 hex digits */
    {"raw:r00000000000000000", BENCH__SELECTOR_MALFORMED, 0, NULL}, /* 17, even zeros */
    {"raw:r", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:00c0", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r0x10", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r00g0", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r 10", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r-1", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r+1", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r10 ", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:r10:u", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"raw:*", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"pfm:cycles", BENCH__SELECTOR_PFM, 0, "cycles"},
    {"pfm:cycles:u", BENCH__SELECTOR_PFM, 0, "cycles:u"},
    {"pfm:amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", BENCH__SELECTOR_PFM, 0,
     "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS"},
    {"pfm:", BENCH__SELECTOR_MALFORMED, 0, NULL},
    {"RAW:r00c0", BENCH__SELECTOR_OTHER, 0, NULL},
    {"PFM:cycles", BENCH__SELECTOR_OTHER, 0, NULL},
    {"raw", BENCH__SELECTOR_OTHER, 0, NULL},
    {"ipc", BENCH__SELECTOR_OTHER, 0, NULL},
    {"syscalls:read", BENCH__SELECTOR_OTHER, 0, NULL},
    {"", BENCH__SELECTOR_OTHER, 0, NULL},
};

static void test_grammar_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof grammar / sizeof grammar[0]; i++) {
        uint64_t config = 0x5a5a;
        enum bench__selector_kind kind = bench__selector_parse(grammar[i].selector, &config);
        if (kind != grammar[i].kind)
            fail_msg("'%s': kind %d, want %d", grammar[i].selector, kind, grammar[i].kind);
        if (kind == BENCH__SELECTOR_RAW && config != grammar[i].config)
            fail_msg("'%s': config %#llx, want %#llx", grammar[i].selector,
                     (unsigned long long)config, (unsigned long long)grammar[i].config);
        if (kind != BENCH__SELECTOR_RAW && config != 0x5a5a)
            fail_msg("'%s': config written for a non-raw selector", grammar[i].selector);
        if (grammar[i].header)
            assert_string_equal(bench__selector_header(grammar[i].selector), grammar[i].header);
    }
    assert_int_equal(bench__selector_parse("raw:r1", NULL), BENCH__SELECTOR_RAW);
}

/* Deduplication is by the id as written: raw:r00C0 and raw:r00c0 are two columns. */
static void test_duplicates(void **state)
{
    (void)state;
    char *metrics[] = {"raw:r00c0", "ipc",       "raw:r00C0", "raw:r00c0",
                       "raw:R00c0", "raw:r00c0", "raw:r0c0",  "raw:r00C0"};
    struct bench__source_request req = {.selectors = metrics, .n_selectors = 8};
    struct bench__family family;
    size_t n = bench__source_raw.family_for(&req, &family);
    const struct bench__column_desc *f = family.columns;
    assert_int_equal(n, 3);
    const char *ids[] = {"raw:r00c0", "raw:r00C0", "raw:r0c0"};
    const char *headers[] = {"r00c0", "r00C0", "r0c0"};
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(f[i].name, ids[i]);
        assert_string_equal(f[i].header, headers[i]);
        assert_string_equal(f[i].source, "raw");
        assert_int_equal(f[i].cls, BENCH__DIAGNOSTIC);
        assert_int_equal(f[i].format, BENCH__FORMAT_COUNT);
        assert_true(f[i].is_default);
    }
    free(family.columns);
    free(family.strings);
    struct bench__source_request none = {0};
    assert_int_equal(bench__source_raw.family_for(&none, &family), 0);
}

/* ---- the CPU's table -------------------------------------------------------------------- */

static void test_cpu_table(void **state)
{
    (void)state;
    static const struct {
        const char *cpuinfo;
        const char *table;
    } cases[] = {
        {"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 1\n"
         "model name\t: AMD EPYC 7601\n",
         "amd64_fam17h_zen1"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n", "amd64_fam17h_zen2"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 47\n", "amd64_fam17h_zen1"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n", "amd64_fam19h_zen3"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 16\n", "amd64_fam19h_zen4"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 31\n", "amd64_fam19h_zen4"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 33\n", "amd64_fam19h_zen3"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 97\n", "amd64_fam19h_zen4"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n", "amd64_fam1ah_zen5"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 79\n", "amd64_fam1ah_zen5"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 80\n", "amd64_fam1ah_zen6"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 112\n", "amd64_fam1ah_zen5"},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 128\n", "amd64_fam1ah_zen6"},
        /* "model name" before "model" is not the model */
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel name\t: 99\nmodel\t\t: 8\n",
         "amd64_fam17h_zen1"},
        {"vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n", NULL},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 21\nmodel\t\t: 2\n", NULL},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 23\n", NULL}, /* torn: no model */
        {"vendor_id\t: AuthenticAMD\ncpu family\t: \nmodel\t\t: 2\n", NULL},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 2x\nmodel\t\t: 2\n", NULL},
        {"vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2", "amd64_fam1ah_zen5"},
        {"", NULL},
        {"\n\n\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = bench__pfm_cpu_table(cases[i].cpuinfo);
        if (!cases[i].table ? got != NULL : !got || strcmp(got, cases[i].table))
            fail_msg("case %zu: %s, want %s", i, got ? got : "NULL",
                     cases[i].table ? cases[i].table : "NULL");
    }
}

/* ---- libpfm4 through the dlopen seam --------------------------------------------------- */

#define FAKE_HANDLE ((void *)0x1000)

static struct {
    bool present;          /* dlopen succeeds */
    const char *missing;   /* a symbol dlsym does not find */
    int init_rc;           /* pfm_initialize's result */
    bool env_at_init;      /* LIBPFM_ENCODE_INACTIVE was "1" when initialize ran */
    const char *opened[4]; /* dlopen'ed names */
    size_t n_opened;
    unsigned closes; /* dlclose calls */
    unsigned terminates;
    char encoded[8][300]; /* names encode was asked for */
    size_t n_encoded;
    const char *cpuinfo; /* /proc/cpuinfo */
    size_t cpuinfo_pos;
} fake;

static int fake_initialize(void)
{
    const char *env = getenv("LIBPFM_ENCODE_INACTIVE");
    fake.env_at_init = env && !strcmp(env, "1");
    return fake.init_rc;
}

static void fake_terminate(void)
{
    fake.terminates++;
}

static const char *fake_strerror(int code)
{
    return code == -4 ? "event not found" : "not initialized";
}

/* libpfm4's pfm_get_os_event_encoding with the layout of pfm_perf_encode_arg_t */
struct encode_arg {
    struct perf_event_attr *attr;
    char **fstr;
    size_t size;
    int idx, cpu, flags, pad0;
};

static int fake_encode(const char *str, int dfl_plm, int os, void *args)
{
    struct encode_arg *arg = args;
    assert_int_equal(dfl_plm, 0x01 | 0x08); /* PLM0 | PLM3 */
    assert_int_equal(os, 1);                /* PFM_OS_PERF_EVENT */
    assert_int_equal(arg->size, 40);
    assert_non_null(arg->attr);
    assert_true(fake.n_encoded < 8);
    snprintf(fake.encoded[fake.n_encoded++], sizeof fake.encoded[0], "%s", str);
    if (!strcmp(str, "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS")) {
        arg->attr->type = PERF_TYPE_RAW;
        arg->attr->config = 0xc0;
        arg->attr->config1 = 7;
    } else if (!strcmp(str, "cycles:u")) {
        arg->attr->type = PERF_TYPE_HARDWARE;
        arg->attr->config = 0;
        arg->attr->exclude_kernel = 1;
    } else {
        return -4;
    }
    if (arg->fstr) {
        *arg->fstr = malloc(strlen(str) + 1);
        strcpy(*arg->fstr, str);
    }
    return 0;
}

static void *fake_dlopen(const char *file, int mode)
{
    assert_true(mode & RTLD_NOW);
    assert_true(fake.n_opened < 4);
    fake.opened[fake.n_opened++] = file;
    return fake.present ? FAKE_HANDLE : NULL;
}

static char *fake_dlerror(void)
{
    static char text[] = "libpfm.so.4: cannot open shared object file: No such file or directory";
    static char sym[] = "undefined symbol";
    return fake.present ? sym : text;
}

static void *as_object(void (*fn)(void))
{
    void *p;
    memcpy(&p, &fn, sizeof p);
    return p;
}

static void *fake_dlsym(void *handle, const char *name)
{
    assert_ptr_equal(handle, FAKE_HANDLE);
    if (fake.missing && !strcmp(name, fake.missing))
        return NULL;
    if (!strcmp(name, "pfm_initialize"))
        return as_object((void (*)(void))fake_initialize);
    if (!strcmp(name, "pfm_terminate"))
        return as_object((void (*)(void))fake_terminate);
    if (!strcmp(name, "pfm_strerror"))
        return as_object((void (*)(void))fake_strerror);
    if (!strcmp(name, "pfm_get_os_event_encoding"))
        return as_object((void (*)(void))fake_encode);
    return NULL;
}

static int fake_dlclose(void *handle)
{
    assert_ptr_equal(handle, FAKE_HANDLE);
    fake.closes++;
    return 0;
}

#define CPUINFO_FD 60

static int fake_open(const char *path, int flags)
{
    (void)flags;
    if (!strcmp(path, "/proc/cpuinfo") && fake.cpuinfo) {
        fake.cpuinfo_pos = 0;
        return CPUINFO_FD;
    }
    errno = ENOENT;
    return -1;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, CPUINFO_FD);
    size_t left = strlen(fake.cpuinfo) - fake.cpuinfo_pos;
    size_t n = left < count ? left : count;
    memcpy(buf, fake.cpuinfo + fake.cpuinfo_pos, n);
    fake.cpuinfo_pos += n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    assert_int_equal(fd, CPUINFO_FD);
    return 0;
}

static int setup_fake(void **state)
{
    (void)state;
    bench__pfm_unload();
    memset(&fake, 0, sizeof fake);
    fake.present = true;
    unsetenv("LIBPFM_ENCODE_INACTIVE");
    bench__os.dlopen = fake_dlopen;
    bench__os.dlsym = fake_dlsym;
    bench__os.dlclose = fake_dlclose;
    bench__os.dlerror = fake_dlerror;
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
    return 0;
}

static int teardown_fake(void **state)
{
    (void)state;
    bench__pfm_unload();
    bench__os_reset();
    return 0;
}

#define NOT_LOADED                                                                                 \
    "libpfm4 not loaded: dlopen(libpfm.so.4) failed: libpfm.so.4: cannot open shared object "      \
    "file: No such file or directory"

static void test_absent_names_soname(void **state)
{
    (void)state;
    fake.present = false;
    char reason[240];
    assert_false(bench__pfm_load(reason, sizeof reason));
    assert_string_equal(reason, NOT_LOADED);
    /* the soname first, then the development symlink */
    assert_int_equal(fake.n_opened, 2);
    assert_string_equal(fake.opened[0], "libpfm.so.4");
    assert_string_equal(fake.opened[1], "libpfm.so");
    struct bench__event_encoding enc;
    assert_int_equal(bench__pfm_resolve("cycles", &enc, reason, sizeof reason), -1);
    assert_string_equal(reason, NOT_LOADED);
    assert_int_equal(fake.closes, 0);
}

/* A pfm name that does not resolve: one warning when the source opens, naming the event and
 * the reason, and its column dropped (the catalog removes what column_dropped names; the
 * catalog's side is tested in test_raw.c). */
static void test_absent_drops_column_with_one_warning(void **state)
{
    (void)state;
    fake.present = false;
    char *metrics[] = {"raw:r00c0", "pfm:cycles", "pfm:cycles"};
    struct bench__source_request req = {.selectors = metrics, .n_selectors = 3};
    struct bench__family family;
    size_t n = bench__source_raw.family_for(&req, &family);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    char path[] = "/tmp/test_event_naming.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    dup2(fd, STDERR_FILENO);
    struct bench__caps caps;
    memset(&caps, 0, sizeof caps);
    char status[256];
    void *st = bench__source_raw.open(&req, &caps, status, sizeof status);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char out[1024] = "";
    ssize_t got = pread(fd, out, sizeof out - 1, 0);
    close(fd);
    unlink(path);
    assert_true(got > 0);
    assert_string_equal(out, "--metrics: pfm:cycles \xe2\x80\x94 " NOT_LOADED
                             "; its column is dropped\n");
    assert_int_equal(n, 2);
    assert_string_equal(family.columns[0].name, "raw:r00c0");
    assert_string_equal(family.columns[1].name, "pfm:cycles");
    assert_non_null(st); /* the source says which columns it dropped */
    assert_false(bench__source_raw.column_dropped(st, 0));
    assert_true(bench__source_raw.column_dropped(st, 1));
    /* the remaining column (raw:r00c0) is the first the counts fill, a number or NaN */
    double values[2] = {0, 7};
    bool estimate[2];
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    bench__source_raw.pass_begin(st);
    bench__source_raw.pass_end(st, 1, 0, &counts);
    assert_true(values[1] == 7); /* nothing written past the kept columns */
    bench__source_raw.close(st);
    free(family.columns);
    free(family.strings);
}

static void test_missing_symbol(void **state)
{
    (void)state;
    fake.missing = "pfm_get_os_event_encoding";
    char reason[240];
    assert_false(bench__pfm_load(reason, sizeof reason));
    assert_string_equal(reason, "libpfm.so.4 has no pfm_get_os_event_encoding (undefined symbol)");
    assert_int_equal(fake.closes, 1); /* all symbols at once, or the library is let go */
    assert_false(fake.env_at_init);   /* initialize never ran */
}

static void test_initialize_fails(void **state)
{
    (void)state;
    fake.init_rc = -9;
    char reason[240];
    assert_false(bench__pfm_load(reason, sizeof reason));
    assert_string_equal(reason, "pfm_initialize failed: not initialized");
    assert_int_equal(fake.closes, 1);
}

static void test_loaded_once_encode_inactive_first(void **state)
{
    (void)state;
    char reason[240] = "";
    assert_true(bench__pfm_load(reason, sizeof reason));
    assert_true(bench__pfm_load(reason, sizeof reason));
    assert_int_equal(fake.n_opened, 1);
    assert_string_equal(fake.opened[0], "libpfm.so.4");
    assert_true(fake.env_at_init); /* set before pfm_initialize */
    bench__pfm_unload();
    assert_int_equal(fake.terminates, 1);
    assert_int_equal(fake.closes, 1);
}

/* Modifiers land in the exclude flags; config1 travels; the fully qualified name is kept. */
static void test_modifiers(void **state)
{
    (void)state;
    struct bench__event_encoding enc;
    char reason[240];
    assert_int_equal(bench__pfm_resolve("cycles:u", &enc, reason, sizeof reason), 0);
    assert_int_equal(enc.type, PERF_TYPE_HARDWARE);
    assert_int_equal(enc.config, 0);
    assert_true(enc.exclude_kernel);
    assert_false(enc.exclude_user);
    assert_string_equal(enc.fstr, "cycles:u");
}

/* A bare name that fails is retried as <table>::<name>, the table from /proc/cpuinfo. */
static void test_table_retry(void **state)
{
    (void)state;
    fake.cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                   "model\t\t: 97\nmodel name\t: AMD Ryzen 9 7950X\n";
    struct bench__event_encoding enc;
    char reason[240];
    assert_int_equal(bench__pfm_resolve("RETIRED_INSTRUCTIONS", &enc, reason, sizeof reason), 0);
    assert_int_equal(fake.n_encoded, 2);
    assert_string_equal(fake.encoded[0], "RETIRED_INSTRUCTIONS");
    assert_string_equal(fake.encoded[1], "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS");
    assert_int_equal(enc.type, PERF_TYPE_RAW);
    assert_int_equal(enc.config, 0xc0);
    assert_int_equal(enc.config1, 7);

    /* a qualified name is not retried; a failed retry names both */
    fake.n_encoded = 0;
    assert_int_equal(bench__pfm_resolve("x::NOPE", &enc, reason, sizeof reason), -1);
    assert_int_equal(fake.n_encoded, 1);
    assert_string_equal(reason, "libpfm4: event not found");
    assert_int_equal(bench__pfm_resolve("NOPE", &enc, reason, sizeof reason), -1);
    assert_string_equal(reason, "libpfm4: event not found (also as amd64_fam19h_zen4::NOPE)");
}

static void test_no_table_on_intel(void **state)
{
    (void)state;
    fake.cpuinfo = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n";
    struct bench__event_encoding enc;
    char reason[240];
    assert_int_equal(bench__pfm_resolve("NOPE", &enc, reason, sizeof reason), -1);
    assert_int_equal(fake.n_encoded, 1);
    assert_string_equal(reason, "libpfm4: event not found");
}

static void test_name_length_cap(void **state)
{
    (void)state;
    char name[300];
    memset(name, 'a', sizeof name);
    name[256] = '\0';
    struct bench__event_encoding enc;
    char reason[240];
    assert_int_equal(bench__pfm_resolve(name, &enc, reason, sizeof reason), -1);
    assert_string_equal(reason, "name longer than 255 characters");
    assert_int_equal(fake.n_opened, 0); /* refused before loading anything */
    name[255] = '\0';
    assert_int_equal(bench__pfm_resolve(name, &enc, reason, sizeof reason), -1);
    assert_string_equal(reason, "libpfm4: event not found");
}

/* ---- the real libpfm4 (encoding only: opening needs a PMU) ------------------------------ */

static void test_real_libpfm(void **state)
{
    (void)state;
    bench__os_reset();
    bench__pfm_unload();
    char reason[240];
    if (!bench__pfm_load(reason, sizeof reason)) {
        print_message("libpfm4 is not installed here: %s\n", reason);
        assert_non_null(strstr(reason, "libpfm.so.4"));
        skip();
    }
    const char *env = getenv("LIBPFM_ENCODE_INACTIVE");
    assert_non_null(env);
    assert_string_equal(env, "1");

    struct bench__event_encoding enc;
    assert_int_equal(bench__pfm_resolve("cycles", &enc, reason, sizeof reason), 0);
    print_message("libpfm4: cycles -> %s (type %u, config %#llx)\n", enc.fstr, enc.type,
                  (unsigned long long)enc.config);
    assert_int_equal(enc.type, PERF_TYPE_HARDWARE);
    assert_int_equal(enc.config, PERF_COUNT_HW_CPU_CYCLES);
    assert_false(enc.exclude_user);
    assert_false(enc.exclude_kernel);

    assert_int_equal(bench__pfm_resolve("instructions", &enc, reason, sizeof reason), 0);
    assert_int_equal(enc.type, PERF_TYPE_HARDWARE);
    assert_int_equal(enc.config, PERF_COUNT_HW_INSTRUCTIONS);

    assert_int_equal(bench__pfm_resolve("instructions:u", &enc, reason, sizeof reason), 0);
    assert_true(enc.exclude_kernel);
    assert_false(enc.exclude_user);
    assert_int_equal(bench__pfm_resolve("cycles:k", &enc, reason, sizeof reason), 0);
    assert_true(enc.exclude_user);
    assert_false(enc.exclude_kernel);

    assert_int_equal(bench__pfm_resolve("no_such_event_anywhere", &enc, reason, sizeof reason), -1);
    print_message("libpfm4: no_such_event_anywhere -> %s\n", reason);
    assert_non_null(strstr(reason, "libpfm4: "));
    bench__pfm_unload();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_fake, teardown_fake)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_table),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_cpu_table),
        T(test_absent_names_soname),
        T(test_absent_drops_column_with_one_warning),
        T(test_missing_symbol),
        T(test_initialize_fails),
        T(test_loaded_once_encode_inactive_first),
        T(test_modifiers),
        T(test_table_retry),
        T(test_no_table_on_intel),
        T(test_name_length_cap),
        cmocka_unit_test_teardown(test_real_libpfm, teardown_fake),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
