/* insn_count_plugin.c: a TCG plugin for qemu-user (QEMU 7.2 plugin API) that
 * counts the guest instructions executed per translation block, per thread
 * class and per "owner", and writes them out when the guest exits.
 *
 * It is what benchmarks/board_host/board_host_work.py uses to measure how many
 * ARM instructions the board's CPU executes for one inference, apart from the
 * functional simulator that stands in for the FPGA.
 *
 * Build:  cc -O2 -shared -fPIC -o insn_count_plugin.so insn_count_plugin.c
 * Use:    qemu-arm -plugin ./insn_count_plugin.so,out=FILE[,lib=LO-HI]... PROGRAM ...
 *   out=FILE   where the counts go (required)
 *   lib=LO-HI  a guest address range (hex, HI exclusive) whose blocks are
 *              charged to their caller: a system library (libc, libstdc++,
 *              libm, libgcc_s) or the PLT stubs through which a library
 *              calls one; any number of them (up to MAX_LIB_RANGES)
 *
 * Output: a first line "# exe START END ENTRY" (hex) giving where qemu put the
 * guest executable's code, then one line per (class, block start, owner):
 *   CLASS VADDR OWNER COUNT      (VADDR, OWNER in hex, COUNT in decimal)
 * CLASS is 0 for the guest's first thread (the one main() runs on) and 1 for
 * every other thread. COUNT is the number of guest instructions executed in
 * blocks starting at VADDR. OWNER is 0 for a block outside the lib= ranges;
 * for a block inside them it is the start of the last block outside them that
 * the same thread executed, so that a memcpy, malloc or std:: routine is
 * charged to the code that called it rather than to "libc".
 *
 * Why not a header: Debian's qemu-user ships plugin support (the qemu_plugin_*
 * functions are exported by the qemu-arm executable) but no qemu-plugin.h, so
 * the few types and functions used here are declared below from the
 * documented plugin API of QEMU 7.2. They are resolved against the qemu
 * executable when it loads this library.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The QEMU 7.2 plugin API, as far as this plugin uses it ---------------- */

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb; /* opaque: a block being translated */

/* The start of the information QEMU passes to qemu_plugin_install; only the
 * leading fields are read (target name, whether this is system emulation), so
 * the trailing union is not declared. */
typedef struct {
  const char *target_name;
  struct {
    int min;
    int cur;
  } version;
  bool system_emulation;
} plugin_info_head;

enum plugin_cb_flags { PLUGIN_CB_NO_REGS = 0 }; /* the callback reads no guest registers */

typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb, enum plugin_cb_flags flags,
                                          void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
/* The guest executable's code segment and entry point (qemu-user only): the
 * executable is mapped by qemu itself, so no openat/mmap of it shows in
 * -strace; these tell where it lies. */
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);
uint64_t qemu_plugin_entry_code(void);

/* QEMU refuses a plugin whose API version it does not support; 7.2 speaks
 * version 1 (version 2, in later QEMUs, removed functions this plugin does
 * not use anyway). */
__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- State ----------------------------------------------------------------- */

/* What the translation callback learns about a block and the execution
 * callback needs on every run of it. A block may be translated more than
 * once (after a flush); each translation gets its own record, and counts are
 * keyed by the start address, so that does not split them. */
struct block {
  uint64_t vaddr;
  uint64_t n_insns;
  bool in_lib; /* inside a lib= range: charge it to the caller */
};

/* One counter: (class, block start, owner) -> instructions. Entries are
 * allocated one by one so that pointers to them stay valid while the table
 * that indexes them grows. */
struct counter {
  uint64_t vaddr, owner;
  unsigned cls;
  uint64_t count;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards the table */
static struct counter **table;                           /* open addressing */
static size_t table_size, table_used;

#define MAX_LIB_RANGES 64
static uint64_t lib_lo[MAX_LIB_RANGES], lib_hi[MAX_LIB_RANGES];
static int n_lib_ranges;
static char *out_path;

/* Per guest thread: qemu-user runs each guest thread on its own host thread,
 * so thread-local variables are per guest thread. */
static __thread uint64_t current_owner; /* start of the last block outside the libraries */
static __thread int thread_class = -1;  /* 0: the first thread, 1: others */

/* A small direct-mapped cache per thread in front of the shared table: the
 * execution callback runs for every executed block, and taking the lock each
 * time would cost more than everything else here. */
#define CACHE_SIZE 4096
struct cache_entry {
  uint64_t vaddr, owner;
  struct counter *counter;
};
static __thread struct cache_entry cache[CACHE_SIZE];

static int first_thread_seen;         /* the first vCPU index to execute a block */
static unsigned first_vcpu_index = 0; /* in qemu-user the initial thread is vCPU 0 */

/* ---- The table ------------------------------------------------------------- */

static uint64_t hash_key(uint64_t vaddr, uint64_t owner, unsigned cls) {
  uint64_t h = vaddr * 0x9E3779B97F4A7C15ull ^ (owner + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^ cls;
  return h ^ (h >> 29);
}

static void table_insert(struct counter *c) {
  size_t i = hash_key(c->vaddr, c->owner, c->cls) & (table_size - 1);
  while (table[i]) i = (i + 1) & (table_size - 1);
  table[i] = c;
}

static void table_grow(void) {
  struct counter **old = table;
  size_t old_size = table_size;
  table_size = table_size ? table_size * 2 : 1 << 16;
  table = calloc(table_size, sizeof *table);
  if (!table) {
    fprintf(stderr, "insn_count_plugin: out of memory\n");
    abort();
  }
  for (size_t i = 0; i < old_size; ++i)
    if (old[i]) table_insert(old[i]);
  free(old);
}

/* Finds or creates the counter of (cls, vaddr, owner); under the lock. */
static struct counter *table_find(uint64_t vaddr, uint64_t owner, unsigned cls) {
  pthread_mutex_lock(&lock);
  if (2 * (table_used + 1) > table_size) table_grow();
  size_t i = hash_key(vaddr, owner, cls) & (table_size - 1);
  struct counter *c;
  while ((c = table[i]) && !(c->vaddr == vaddr && c->owner == owner && c->cls == cls)) i = (i + 1) & (table_size - 1);
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c) {
      fprintf(stderr, "insn_count_plugin: out of memory\n");
      abort();
    }
    c->vaddr = vaddr;
    c->owner = owner;
    c->cls = cls;
    table[i] = c;
    ++table_used;
  }
  pthread_mutex_unlock(&lock);
  return c;
}

/* ---- Callbacks ------------------------------------------------------------- */

/* Runs before every execution of a block. Counts its instructions (a block
 * always runs to its end unless the guest faults, which this program does
 * not), charging library blocks to the thread's current owner. */
static void on_block_exec(unsigned int vcpu_index, void *userdata) {
  const struct block *b = userdata;
  if (thread_class < 0) {
    /* The class is fixed per thread on its first block: the initial thread
     * runs main(); the accelerator stand-in's runs happen on threads it
     * starts (std::async), which get other vCPU indices. */
    if (!__atomic_exchange_n(&first_thread_seen, 1, __ATOMIC_RELAXED)) first_vcpu_index = vcpu_index;
    thread_class = vcpu_index == first_vcpu_index ? 0 : 1;
  }
  uint64_t owner = 0;
  if (b->in_lib)
    owner = current_owner;
  else
    current_owner = b->vaddr;
  struct cache_entry *e = &cache[(b->vaddr >> 1 ^ owner * 31) & (CACHE_SIZE - 1)];
  if (!e->counter || e->vaddr != b->vaddr || e->owner != owner) {
    e->counter = table_find(b->vaddr, owner, (unsigned)thread_class);
    e->vaddr = b->vaddr;
    e->owner = owner;
  }
  /* Not atomic: a counter belongs to one class, and the threads of class 1
   * (one accelerator run at a time) do not run at once. */
  e->counter->count += b->n_insns;
}

static bool in_lib_range(uint64_t vaddr) {
  for (int i = 0; i < n_lib_ranges; ++i)
    if (vaddr >= lib_lo[i] && vaddr < lib_hi[i]) return true;
  return false;
}

/* Runs once per translation of a block: records what the execution callback
 * needs and attaches it. */
static void on_block_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  struct block *b = malloc(sizeof *b); /* lives as long as the translation may run */
  if (!b) {
    fprintf(stderr, "insn_count_plugin: out of memory\n");
    abort();
  }
  b->vaddr = qemu_plugin_tb_vaddr(tb);
  b->n_insns = qemu_plugin_tb_n_insns(tb);
  b->in_lib = in_lib_range(b->vaddr);
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_exec, PLUGIN_CB_NO_REGS, b);
}

/* Runs when the guest exits: writes every non-zero counter. */
static void on_guest_exit(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  FILE *f = fopen(out_path, "w");
  if (!f) {
    fprintf(stderr, "insn_count_plugin: cannot write %s\n", out_path);
    return;
  }
  fprintf(f, "# exe %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", qemu_plugin_start_code(), qemu_plugin_end_code(),
          qemu_plugin_entry_code());
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < table_size; ++i) {
    const struct counter *c = table[i];
    if (c && c->count) fprintf(f, "%u %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", c->cls, c->vaddr, c->owner, c->count);
  }
  pthread_mutex_unlock(&lock);
  fclose(f);
}

/* ---- Installation ---------------------------------------------------------- */

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const plugin_info_head *info,
                                                               int argc, char **argv) {
  if (info->system_emulation) {
    /* Thread classes and library ranges only make sense for one process. */
    fprintf(stderr, "insn_count_plugin: for qemu-user (%s), not system emulation\n", info->target_name);
    return -1;
  }
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "out=", 4) == 0) {
      out_path = strdup(argv[i] + 4);
    } else if (strncmp(argv[i], "lib=", 4) == 0) {
      uint64_t lo, hi;
      if (n_lib_ranges == MAX_LIB_RANGES || sscanf(argv[i] + 4, "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2 || lo >= hi) {
        fprintf(stderr, "insn_count_plugin: bad or too many lib= ranges ('%s')\n", argv[i]);
        return -1;
      }
      lib_lo[n_lib_ranges] = lo;
      lib_hi[n_lib_ranges] = hi;
      ++n_lib_ranges;
    } else {
      fprintf(stderr, "insn_count_plugin: unknown argument '%s' (out=FILE, lib=LO-HI)\n", argv[i]);
      return -1;
    }
  }
  if (!out_path) {
    fprintf(stderr, "insn_count_plugin: needs out=FILE\n");
    return -1;
  }
  table_grow();
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_block_translate);
  qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
  return 0;
}
