// The process ProcessImageTests capture and dump: 3 threads besides the main one, each counting
// in a loop (a hundred microseconds apart); a heap buffer holding a known 64-byte pattern; a writable global holding a known
// value; a read-only string. Once every thread runs, it writes one line to standard output:
//
//   ready buffer=0x... global=0x... text=0x... counter=0x...
//
// then answers each line it reads on standard input with the counters' sum and how many SIGRTMIN
// signals it handled (`count N signals M`), so a test sees that it runs and that no signal sent to
// it while it was captured was lost (real-time signals queue: each one sent is handled once). Arguments: `--heap-megabytes N` also allocates and touches N MiB (the
// pause benchmark); `--enable-core` raises its core size limit (the kernel core test).
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { threadCount = 3 };

volatile uint64_t knownGlobal = 0x600DF00DCAFEBABEull;
const char knownText[] = "process-image fixture read-only text";
static _Atomic uint64_t counters[threadCount];
static _Atomic int running;
static _Atomic uint64_t signalsHandled;

static void handleSignal(int signal) {
  (void)signal;
  atomic_fetch_add(&signalsHandled, 1);
}

static void *count(void *argument) {
  _Atomic uint64_t *counter = argument;
  atomic_fetch_add(&running, 1);
  for (;;) {
    atomic_fetch_add(counter, 1);
    usleep(100);  // counting, not spinning: the machine that runs the tests runs other builds too
  }
  return NULL;
}

int main(int argc, char **argv) {
  size_t heapMegabytes = 0;
  for (int index = 1; index < argc; index++) {
    if (strcmp(argv[index], "--heap-megabytes") == 0 && index + 1 < argc) heapMegabytes = strtoul(argv[++index], NULL, 10);
    if (strcmp(argv[index], "--enable-core") == 0) {
      struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
      setrlimit(RLIMIT_CORE, &unlimited);
    }
  }
  struct sigaction action = {.sa_handler = handleSignal, .sa_flags = SA_RESTART};
  sigaction(SIGRTMIN, &action, NULL);
  unsigned char *buffer = malloc(64);
  for (int index = 0; index < 64; index++) buffer[index] = (unsigned char)(0xA0 ^ index * 7);
  if (heapMegabytes > 0) {
    unsigned char *heap = malloc(heapMegabytes << 20);
    for (size_t offset = 0; offset < heapMegabytes << 20; offset += 4096) heap[offset] = (unsigned char)offset | 1;
  }
  pthread_t threads[threadCount];
  for (int index = 0; index < threadCount; index++) pthread_create(&threads[index], NULL, count, &counters[index]);
  while (atomic_load(&running) < threadCount) {
  }
  printf("ready buffer=%p global=%p text=%p counter=%p\n", (void *)buffer, (void *)&knownGlobal, (void *)knownText, (void *)&counters[0]);
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin) != NULL) {
    uint64_t sum = 0;
    for (int index = 0; index < threadCount; index++) sum += atomic_load(&counters[index]);
    printf("count %llu signals %llu\n", (unsigned long long)sum, (unsigned long long)atomic_load(&signalsHandled));
    fflush(stdout);
  }
  return 0;
}
