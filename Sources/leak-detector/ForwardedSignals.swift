#if canImport(Glibc)
  import Glibc
#endif

/// Passing signals this process receives on to the program (`kill -USR2 <leak-detector's pid>`
/// reaches the program's agent; `kill -INT` or a termination request ends the program, not just
/// the command). A signal the kernel sent for the terminal (`SI_KERNEL`: Ctrl-C, Ctrl-\, a hang-up)
/// went to the whole foreground group, the program included, and is not sent twice.
enum ForwardedSignals {
  /// The program, once started; signals that arrive before are dropped.
  nonisolated(unsafe) static var child: pid_t = 0

  /// Handles `signals` by passing them on, from now until ``stop(_:)``.
  static func start(_ signals: [Int32]) {
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = { received, information, _ in
      let fromTerminal = information.map { $0.pointee.si_code == Int32(SI_KERNEL) } ?? false
      if ForwardedSignals.child > 0 && !fromTerminal { kill(ForwardedSignals.child, received) }
    }
    action.sa_flags = SA_SIGINFO | SA_RESTART
    sigemptyset(&action.sa_mask)
    for signal in signals { sigaction(signal, &action, nil) }
  }

  /// Gives `signals` back their default actions.
  static func stop(_ signals: [Int32]) {
    for signal in signals { Glibc.signal(signal, SIG_DFL) }
    child = 0
  }
}
