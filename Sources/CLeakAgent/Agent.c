#define _GNU_SOURCE
#include "CLeakAgent.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// The C side of the agent that `leak-detector run` loads (through its loader,
// libLeakDetectorPreload.so, which decides whether this process is one to check and then calls
// `leak_detector_agent_start`): the signals it watches, and the fatal signal that ends it.

// MARK: - Watched signals: a self-pipe carrying each signal's number, read by a thread of the agent

// The thread starts only when something needs it: at once for the snapshot signal, and for the
// termination signals only when the process has (or is about to have) a second thread. A thread
// more would make glibc's `malloc` take its multi-threaded path for good (locks and atomic
// operations on every call its per-thread cache does not serve), which a single-threaded program
// would pay for nothing. The loader calls `cleak_agent_before_thread_creation` before the
// program's every `pthread_create`. A single-threaded process takes its exit capture in a child
// forked from the signal handler instead (`captureInForkedChild`).

enum { watcherNotStarted, watcherStarting, watcherRunning, watcherFailed };
static int wakeDescriptors[2] = {-1, -1};
static cleak_agent_signal_callback signalCallback = NULL;
static atomic_int watcherState = watcherNotStarted;
/// The process whose signals are watched: a child it forks inherits the handlers, not the thread.
static pid_t watcherProcess = 0;
/// The watched signals that end the process by default, by number.
static volatile sig_atomic_t endsProcess[NSIG];

/// How long a process waits for the exit capture of a child forked in its signal handler before
/// it stops the child and ends: a signal that interrupted the program holding a lock the capture
/// needs leaves the child waiting for ever.
static const long forkedCaptureMilliseconds = 30000;

/// The exit capture of a single-threaded process on a termination signal, in a child forked
/// here (`_Fork`: async-signal-safe, no fork handlers), which has this process's memory as the
/// signal found it and may run what a signal handler may not. This process waits for the child,
/// and stops it after `forkedCaptureMilliseconds`.
static void captureInForkedChild(int signal) {
  pid_t child = _Fork();
  if (child == 0) {
    signalCallback(signal, true);
    _exit(0);
  }
  if (child < 0) return;
  struct timespec pause = {0, 1000000};
  for (long waited = 0;; waited++) {
    int status;
    pid_t ended = waitpid(child, &status, WNOHANG);
    if (ended == child || (ended < 0 && errno != EINTR)) return;
    if (waited >= forkedCaptureMilliseconds) {
      kill(child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
      return;
    }
    nanosleep(&pause, NULL);
  }
}

static void onSignal(int signal) {
  int saved = errno;
  if (getpid() != watcherProcess) {
    // A forked child: no thread of its own reads the pipe (the parent's would capture the
    // parent), so a termination request ends it as it would have, and a snapshot is not taken.
    if (signal > 0 && signal < NSIG && endsProcess[signal]) cleak_agent_raise_default(signal);
  } else if (atomic_load_explicit(&watcherState, memory_order_acquire) != watcherRunning) {
    if (signal > 0 && signal < NSIG && endsProcess[signal]) {
      captureInForkedChild(signal);
      cleak_agent_raise_default(signal);
    }
  } else {
    unsigned char byte = (unsigned char)signal;
    ssize_t written = write(wakeDescriptors[1], &byte, 1);
    (void)written;  // a full pipe already has a capture pending
  }
  errno = saved;
}

static void *watch(void *unused) {
  (void)unused;
  for (;;) {
    unsigned char byte;
    ssize_t count = read(wakeDescriptors[0], &byte, 1);
    if (count == 1) {
      signalCallback((int)byte, false);
    } else if (count == 0 || errno != EINTR) {
      return NULL;
    }
  }
}

/// Starts the thread that reads the pipe, once; whether it runs. Its own `pthread_create`
/// passes through the loader, which calls back here and finds it starting.
static bool startWatcher(void) {
  int expected = watcherNotStarted;
  if (!atomic_compare_exchange_strong(&watcherState, &expected, watcherStarting)) {
    return expected == watcherRunning || expected == watcherStarting;
  }
  bool started = false;
  if (pipe2(wakeDescriptors, O_CLOEXEC) == 0) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&thread, &attributes, watch, NULL) == 0;
    pthread_attr_destroy(&attributes);
  }
  atomic_store_explicit(&watcherState, started ? watcherRunning : watcherFailed, memory_order_release);
  return started;
}

void cleak_agent_before_thread_creation(void) {
  if (signalCallback != NULL && atomic_load_explicit(&watcherState, memory_order_relaxed) == watcherNotStarted &&
      getpid() == watcherProcess) {
    startWatcher();
  }
}

bool cleak_agent_watch_signal(int signal, bool endsTheProcess, cleak_agent_signal_callback callback) {
  if (signal <= 0 || signal >= NSIG) return false;
  if (signalCallback == NULL) {
    signalCallback = callback;
    watcherProcess = getpid();
  }
  // A snapshot needs the thread; so does a process with threads already (started before the
  // loader could see them), whose other threads may hold what a forked child would need.
  if ((!endsTheProcess || !__libc_single_threaded) && !startWatcher()) return false;
  endsProcess[signal] = endsTheProcess;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = onSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(signal, &action, NULL) == 0;
}

bool cleak_agent_signal_is_default(int signal) {
  struct sigaction current;
  return sigaction(signal, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
}

void cleak_agent_raise_default(int signal) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(signal);
}

// MARK: - Fatal signals: a file in the run directory names the signal that ended the process

static char fatalSignalPath[4096];
static pid_t fatalSignalProcess = 0;
static struct sigaction actionsBeforeNoting[NSIG];
static const int fatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};

static void onFatalSignal(int signal, siginfo_t *info, void *context) {
  (void)context;
  int saved = errno;
  if (getpid() == fatalSignalProcess) {
    int descriptor = open(fatalSignalPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (descriptor >= 0) {
      char digits[4];
      int length = 0;
      if (signal >= 100) digits[length++] = (char)('0' + signal / 100);
      if (signal >= 10) digits[length++] = (char)('0' + signal / 10 % 10);
      digits[length++] = (char)('0' + signal % 10);
      digits[length++] = '\n';
      ssize_t written = write(descriptor, digits, (size_t)length);
      (void)written;
      close(descriptor);
    }
  }
  // The action the signal had before: a fault recurs when its instruction runs again, and a
  // signal sent by a process (or raised, as abort raises) is raised again, to be delivered to it
  // when this handler returns.
  sigaction(signal, &actionsBeforeNoting[signal], NULL);
  if (info == NULL || info->si_code <= 0) raise(signal);
  errno = saved;
}

bool cleak_agent_note_fatal_signals(const char *path) {
  size_t length = strlen(path);
  if (length >= sizeof fatalSignalPath) return false;
  memcpy(fatalSignalPath, path, length + 1);
  fatalSignalProcess = getpid();
  bool installed = true;
  for (size_t index = 0; index < sizeof fatalSignals / sizeof fatalSignals[0]; index++) {
    int signal = fatalSignals[index];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = onFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    installed = sigaction(signal, &action, &actionsBeforeNoting[signal]) == 0 && installed;
  }
  return installed;
}
