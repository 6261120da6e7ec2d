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
// `leak_detector_agent_start`): the signals it watches.

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
