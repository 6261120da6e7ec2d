#define _GNU_SOURCE
#include "CLeakAgent.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The C side of the agent that `leak-detector run` loads (through its loader,
// libLeakDetectorPreload.so, which decides whether this process is one to check and then calls
// `leak_detector_agent_start`): the signals it watches, and the fatal signal that ends it.

// MARK: - Watched signals: a self-pipe carrying each signal's number, read by a thread of the agent

static int wakeDescriptors[2] = {-1, -1};
static cleak_agent_signal_callback signalCallback = NULL;
static pthread_once_t watching = PTHREAD_ONCE_INIT;
static bool watcherStarted = false;
/// The process whose thread reads the pipe: a child it forks inherits the handlers, not the thread.
static pid_t watcherProcess = 0;
/// The watched signals that end the process by default, by number.
static volatile sig_atomic_t endsProcess[NSIG];

static void onSignal(int signal) {
  if (getpid() != watcherProcess) {
    // A forked child: no thread of its own reads the pipe (the parent's would capture the
    // parent), so a termination request ends it as it would have, and a snapshot is not taken.
    if (signal > 0 && signal < NSIG && endsProcess[signal]) cleak_agent_raise_default(signal);
    return;
  }
  int saved = errno;
  unsigned char byte = (unsigned char)signal;
  ssize_t written = write(wakeDescriptors[1], &byte, 1);
  (void)written;  // a full pipe already has a capture pending
  errno = saved;
}

static void *watch(void *unused) {
  (void)unused;
  for (;;) {
    unsigned char byte;
    ssize_t count = read(wakeDescriptors[0], &byte, 1);
    if (count == 1) {
      signalCallback((int)byte);
    } else if (count == 0 || errno != EINTR) {
      return NULL;
    }
  }
}

static void startWatcher(void) {
  if (pipe2(wakeDescriptors, O_CLOEXEC) != 0) return;
  watcherProcess = getpid();
  pthread_t thread;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  watcherStarted = pthread_create(&thread, &attributes, watch, NULL) == 0;
  pthread_attr_destroy(&attributes);
}

bool cleak_agent_watch_signal(int signal, bool endsTheProcess, cleak_agent_signal_callback callback) {
  if (signal <= 0 || signal >= NSIG) return false;
  if (signalCallback == NULL) signalCallback = callback;
  pthread_once(&watching, startWatcher);
  if (!watcherStarted) return false;
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
